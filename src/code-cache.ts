// Starting a CommonJS bundle from V8's code cache: the bytecode of the
// functions a run compiled, so that later runs do not parse and compile them
// again. The cache is made where it is used: the first run that finds none (or
// one that does not fit) saves it as it exits, after its output is written,
// with the node that runs it. A cache from another node (or with other V8
// flags) is rejected by V8, the bundle is compiled as usual, and that run saves
// a new one.
//
// V8 checks a cache against the length of the source only: a cache used with
// another source of the same length runs the old code. So the cache file starts
// with the SHA-256 of the bundle it was made from, and is used only with it.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The cache of dist/cli-main.cjs, in fleet-git's data folder. */
export const CACHE_FILE = 'cli-main.cache';

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
  } catch {
    /* no cache: compiled as usual */
  }
  const fresh = saved !== undefined && saved.length > HASH_BYTES && saved.subarray(0, HASH_BYTES).equals(hash);
  const source = `(function (exports, require, module, __filename, __dirname) {${bytes.toString('utf8')}\n})`;
  const script = new Script(source, { filename: file, ...(fresh ? { cachedData: saved!.subarray(HASH_BYTES) } : {}) });
  const cache = saved === undefined ? 'none' : !fresh ? 'stale' : script.cachedDataRejected ? 'rejected' : 'used';
  return { script, hash, cache };
}

/**
 * Saves the code cache of `compiled` as `cacheFile` (written whole, then
 * renamed), only into a folder that exists: the data folder is made by
 * `enable` and taken away by `uninstall`; a cache never makes it, so runs
 * before any `enable` compile as usual. Whatever fails, nothing is said.
 */
export function saveCache({ script, hash }: Compiled, cacheFile: string): void {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([hash, script.createCachedData()]), { mode: 0o644 });
    renameSync(tmp, cacheFile);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* left for nobody to read: its name is not the cache's */
    }
  }
}

/**
 * Runs the bundle at `file` as node runs a CommonJS module, from `cacheFile`
 * when it fits; when it does not, saves one as the run exits.
 */
export function runBundle(file: string, cacheFile: string): void {
  const compiled = compile(file, cacheFile);
  if (compiled.cache !== 'used') process.on('exit', () => saveCache(compiled, cacheFile));
  const module = { exports: {} };
  (compiled.script.runInThisContext() as (...a: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
}
