// The command starts from V8's code cache (src/code-cache.ts), which the first
// run saves in the data folder for the node that runs it; a missing or foreign
// cache only costs time.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { CACHE_FILE } from '../src/code-cache.js';
import { ROOT, sandbox } from './helpers.js';

/**
 * The environment of the test's own node processes: nothing of the caller's
 * (NODE_OPTIONS with V8 flags would make V8 turn down a cache made without them;
 * NODE_EXTRA_CA_CERTS naming no file makes node 20 warn on stderr).
 */
const ownEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: tmpdir(), LANG: 'C.UTF-8' };

/**
 * src/code-cache.ts as CommonJS, made once by esbuild as the build makes it (its imports are node's own):
 * the processes below run it with node alone, each without tsx's 0.3 s of CPU to start.
 */
const built = mkdtempSync(join(tmpdir(), 'fleet-git-code-cache-src-'));
after(() => rmSync(built, { recursive: true, force: true }));
const CODE_CACHE = join(built, 'code-cache.cjs');
buildSync({
  entryPoints: [join(ROOT, 'src', 'code-cache.ts')],
  outfile: CODE_CACHE,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
});

/**
 * What compile() finds for `bundle` and `cache`, asked in a process of its own:
 * V8 answers a source it compiled before in this process from memory, without
 * looking at the cache.
 */
const cacheState = (bundle: string, cache: string) =>
  spawnSync(
    process.execPath,
    [
      '-e',
      `
  const { compile } = require(${JSON.stringify(CODE_CACHE)});
  process.stdout.write(compile(${JSON.stringify(bundle)}, ${JSON.stringify(cache)}).cache);`,
    ],
    { cwd: ROOT, encoding: 'utf8', env: ownEnv },
  ).stdout;

test('the first run saves a code cache of the command in the data folder, which the next runs use, and makes no data folder', () => {
  const s = sandbox();
  const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
  const cache = join(data, CACHE_FILE);
  const bundle = join(ROOT, 'dist', 'cli-main.cjs');
  let r = s.cli(s.dir, '--version');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
  assert.equal(existsSync(data), false, 'a cache never makes the data folder');

  mkdirSync(data, { recursive: true });
  r = s.cli(s.dir, '--version');
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
  assert.equal(cacheState(bundle, cache), 'used');
  assert.deepEqual(readdirSync(data), [CACHE_FILE], 'no temporary file is left');
  const made = statSync(cache).mtimeMs;
  r = s.cli(s.dir, '--version');
  assert.equal(r.status, 0);
  assert.equal(statSync(cache).mtimeMs, made, 'a cache that fits is not written again');

  // Another bundle (an upgrade): the cache no longer fits, and the next run replaces it.
  writeFileSync(cache, Buffer.concat([createHash('sha256').update('another bundle').digest(), readFileSync(cache).subarray(32)]));
  assert.equal(cacheState(bundle, cache), 'stale');
  r = s.cli(s.dir, '--version');
  assert.equal(r.status, 0);
  assert.equal(cacheState(bundle, cache), 'used');

  // A cache that cannot be written (here a folder where the file goes): the command runs as usual and says nothing.
  rmSync(cache);
  mkdirSync(cache);
  r = s.cli(s.dir, '--version');
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
  assert.deepEqual(readdirSync(data), [CACHE_FILE], 'no temporary file is left');
});

test('a bundle runs the same with no cache, a garbage cache, and the cache it saved', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-git-code-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A CommonJS module that uses what node gives one: require, module, __filename, __dirname.
  const bundle = join(dir, 'main.cjs');
  writeFileSync(
    bundle,
    "const { basename } = require('node:path');\nmodule.exports.x = 1;\nprocess.stdout.write(`${basename(__filename)} ${basename(__dirname)} ${module.exports.x} ${process.argv.slice(2).join(',')}\\n`);\n",
  );
  const cache = join(dir, 'main.cache');
  // The loader, as dist/cli.cjs is one: CommonJS.
  const loader = join(dir, 'loader.cjs');
  writeFileSync(loader, `require(${JSON.stringify(CODE_CACHE)}).runBundle(${JSON.stringify(bundle)}, ${JSON.stringify(cache)});\n`);
  const run = () => spawnSync(process.execPath, [loader, 'a', 'b'], { cwd: ROOT, encoding: 'utf8', env: ownEnv });
  const state = () => cacheState(bundle, cache);
  const expected = `main.cjs ${dir.split('/').pop()} 1 a,b\n`;

  let r = run();
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, expected);
  assert.equal(state(), 'used', 'the first run saves a cache');
  const made = readFileSync(cache);
  assert.equal(run().stdout, expected);
  assert.ok(readFileSync(cache).equals(made), 'a cache that fits is used and left as it is');

  writeFileSync(cache, 'not a code cache, and longer than the hash it should start with');
  assert.equal(state(), 'stale');
  r = run();
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, expected);
  assert.equal(state(), 'used', 'a cache that does not fit is replaced');

  // V8 checks a cache against the source's length only: the same length with
  // other code must not run the old code. The hash at the start keeps it out.
  writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('module.exports.x = 1', 'module.exports.x = 2'));
  assert.equal(state(), 'stale');
  assert.equal(run().stdout, expected.replace(' 1 a,b', ' 2 a,b'));
  assert.equal(state(), 'used');

  // A cache V8 itself turns down (here: its data made from a shorter source) is
  // not used either, and the run saves one that fits.
  writeFileSync(bundle, `${readFileSync(bundle, 'utf8').replace('module.exports.x = 2', 'module.exports.x = 3')}// longer\n`);
  writeFileSync(cache, Buffer.concat([createHash('sha256').update(readFileSync(bundle)).digest(), made.subarray(32)]));
  assert.equal(state(), 'rejected');
  assert.equal(run().stdout, expected.replace(' 1 a,b', ' 3 a,b'));
  assert.equal(state(), 'used');
});
