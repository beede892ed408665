// Starting a CommonJS bundle from V8's code cache: the bytecode of every
// function a typical run compiled, saved by the build (scripts/build.mjs), so
// that a run does not parse and compile them again. A cache from another node
// (or with other V8 flags) is rejected by V8 and the bundle is compiled as usual.
//
// V8 checks a cache against the length of the source only: a cache used with
// another source of the same length runs the old code. So the cache file starts
// with the SHA-256 of the bundle it was made from, and is used only with it.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** Set by the build to have one run save the cache as it exits. */
export const WRITE_CACHE_ENV = 'FLEET_GIT_WRITE_CODE_CACHE';

const HASH_BYTES = 32;

export interface Compiled {
  script: Script;
  /** The bundle's SHA-256, which a cache made of it starts with. */
  hash: Buffer;
  /**
   * 'used'; 'stale' (made from another bundle: not given to V8); 'rejected' (by
   * V8: made by another node or with other flags); 'none' (no cache file).
   */
  cache: 'used' | 'stale' | 'rejected' | 'none';
}

/** Compiles the bundle at `file` in the function wrapper node gives a CommonJS module, from its cache when it has one. */
export function compile(file: string, cacheFile: string): Compiled {
  const bytes = readFileSync(file);
  const hash = createHash('sha256').update(bytes).digest();
  let saved: Buffer | undefined;
  try {
    saved = readFileSync(cacheFile);
  } catch { /* no cache: compiled as usual */ }
  const fresh = saved !== undefined && saved.length > HASH_BYTES && saved.subarray(0, HASH_BYTES).equals(hash);
  const source = `(function (exports, require, module, __filename, __dirname) {${bytes.toString('utf8')}\n})`;
  const script = new Script(source, { filename: file, ...(fresh ? { cachedData: saved!.subarray(HASH_BYTES) } : {}) });
  const cache = saved === undefined ? 'none' : !fresh ? 'stale' : script.cachedDataRejected ? 'rejected' : 'used';
  return { script, hash, cache };
}

/**
 * Runs the bundle at `file` as node runs a CommonJS module; with `write`,
 * saves its code cache when the run exits (written whole, then renamed).
 */
export function runBundle(file: string, cacheFile: string, write = false): void {
  const { script, hash } = compile(file, cacheFile);
  if (write) {
    process.on('exit', () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([hash, script.createCachedData()]));
      renameSync(tmp, cacheFile);
    });
  }
  const module = { exports: {} };
  (script.runInThisContext() as (...a: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
}
