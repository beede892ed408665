// `git worktree add` in a repository enabled by fleet-git against the same
// repository without it: medians of interleaved runs, measured in one run.
// Target (issue 2): at most 1.5 times. Uses the built CLI (npm run build).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './lib/stats.mjs';
import { homeEnv } from './lib/home-env.mjs';

const RUNS = Number(process.env.RUNS ?? 31);
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-wt-'));
const home = join(dir, 'home');
const env = homeEnv(home);
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env, stdio: 'pipe' });

function makeRepo(name) {
  const p = join(dir, name);
  mkdirSync(join(p, 'src'), { recursive: true });
  for (let i = 0; i < 50; i++) writeFileSync(join(p, 'src', `f${i}.ts`), `export const n = ${i};\n`);
  git(p, 'init', '-q');
  git(p, 'add', '-A');
  git(p, 'commit', '-q', '-m', 'init');
  return p;
}
const plain = makeRepo('plain');
const enabled = makeRepo('enabled');
execFileSync(process.execPath, [join(root, 'dist/cli.cjs'), 'enable'], { cwd: enabled, env, stdio: 'pipe' });

function time(repo, i) {
  const t = process.hrtime.bigint();
  git(repo, 'worktree', 'add', '-q', `${repo}-wt${i}`, '-b', `b${i}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
const a = [],
  b = [];
for (let i = 0; i < RUNS; i++) {
  if (i % 2) {
    b.push(time(enabled, i));
    a.push(time(plain, i));
  } else {
    a.push(time(plain, i));
    b.push(time(enabled, i));
  }
}
rmSync(dir, { recursive: true, force: true });
const [ma, mb] = [median(a), median(b)];
console.log(
  `worktree add: without fleet-git ${ma.toFixed(1)} ms, enabled ${mb.toFixed(1)} ms (medians of ${RUNS}), ratio ${(mb / ma).toFixed(2)} (target <= 1.5)`,
);
