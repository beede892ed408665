// The command starts from V8's code cache (src/code-cache.ts): the build leaves
// one this node accepts, and a missing or foreign cache only costs time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile, WRITE_CACHE_ENV } from '../src/code-cache.js';
import { CLI, ROOT } from './helpers.js';

test('the build leaves a code cache of the command that this node accepts', () => {
  const started = compile(join(ROOT, 'dist', 'cli-main.cjs'), join(ROOT, 'dist', 'cli-main.cache'));
  assert.equal(started.cache, 'used');
  const r = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
});

test('a bundle runs the same with no cache, a garbage cache, and the cache it saved', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-git-code-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A CommonJS module that uses what node gives one: require, module, __filename, __dirname.
  const bundle = join(dir, 'main.cjs');
  writeFileSync(bundle, "const { basename } = require('node:path');\nmodule.exports.x = 1;\nprocess.stdout.write(`${basename(__filename)} ${basename(__dirname)} ${module.exports.x} ${process.argv.slice(2).join(',')}\\n`);\n");
  const cache = join(dir, 'main.cache');
  const loader = join(dir, 'loader.mjs');
  writeFileSync(loader, `import { runBundle } from ${JSON.stringify(join(ROOT, 'src', 'code-cache.ts'))};\nrunBundle(${JSON.stringify(bundle)}, ${JSON.stringify(cache)}, process.env.${WRITE_CACHE_ENV} === '1');\n`);
  const run = (write: boolean) => spawnSync(process.execPath, ['--import', 'tsx', loader, 'a', 'b'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, [WRITE_CACHE_ENV]: write ? '1' : '' } });
  const expected = `main.cjs ${dir.split('/').pop()} 1 a,b\n`;

  let r = run(false);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, expected);
  assert.equal(existsSync(cache), false, 'no cache is written unless asked');
  assert.equal(compile(bundle, cache).cache, 'none');

  writeFileSync(cache, 'not a code cache, and longer than the hash it should start with');
  assert.equal(compile(bundle, cache).cache, 'stale');
  r = run(false);
  assert.equal(r.stdout, expected);
  assert.equal(readFileSync(cache, 'utf8'), 'not a code cache, and longer than the hash it should start with', 'a cache that does not fit is left as it is');

  r = run(true);
  assert.equal(r.stdout, expected);
  assert.equal(compile(bundle, cache).cache, 'used');
  r = run(false);
  assert.equal(r.stdout, expected);
  const made = readFileSync(cache);

  // V8 checks a cache against the source's length only: the same length with
  // other code must not run the old code. The hash at the start keeps it out.
  writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('module.exports.x = 1', 'module.exports.x = 2'));
  assert.equal(compile(bundle, cache).cache, 'stale');
  assert.equal(run(false).stdout, expected.replace(' 1 a,b', ' 2 a,b'));

  // A cache V8 itself turns down (here: its data made from a shorter source) is
  // not used either. (Compiled here for the first time: V8 answers a source it
  // compiled before in this process from memory, without looking at the cache.)
  writeFileSync(bundle, `${readFileSync(bundle, 'utf8').replace('module.exports.x = 2', 'module.exports.x = 3')}// longer\n`);
  writeFileSync(cache, Buffer.concat([createHash('sha256').update(readFileSync(bundle)).digest(), made.subarray(32)]));
  assert.equal(compile(bundle, cache).cache, 'rejected');
  assert.equal(run(false).stdout, expected.replace(' 1 a,b', ' 3 a,b'));
});
