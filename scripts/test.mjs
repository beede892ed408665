// Runs every test file under test/ (recursively) with node:test through tsx.
// A shell glob would silently skip nested files on Node 20, so the list is built here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const files = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));
const only = process.argv.slice(2);
const chosen = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
if (chosen.length === 0) {
  console.error('test: no test files found');
  process.exit(1);
}
// One Copilot package cache for every file that runs the real Copilot CLI (test/helpers.ts copilotCache).
const cache = process.env.FLEET_GIT_TEST_COPILOT_CACHE ? null : mkdtempSync(join(tmpdir(), 'fleet-git-copilot-cache-'));
const env = cache ? { ...process.env, FLEET_GIT_TEST_COPILOT_CACHE: cache } : process.env;
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...chosen], {
  cwd: root,
  stdio: 'inherit',
  env,
});
if (cache) rmSync(cache, { recursive: true, force: true });
process.exit(r.status ?? 1);
