// `git worktree add`, and a branch switch in a provisioned worktree, in a
// repository enabled by fleet-git against the same repository without it:
// medians of interleaved runs, measured in one run, with the number of node
// processes each starts (counted by strace, once). FLEET_GIT_BENCH_OTHER=<another
// build's dist/cli.cjs> (named FLEET_GIT_BENCH_OTHER_NAME) measures that build too, in the same run (each build in
// a home of its own). Targets: a branch switch starts no node and stays within
// noise of bare git; a new worktree starts at most one node. Uses the built
// CLI (npm run build).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './lib/stats.mjs';
import { homeEnv } from './lib/home-env.mjs';
import { nodeStarts } from './lib/node-starts.mjs';

const RUNS = Number(process.env.RUNS ?? 31);
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-wt-'));
const builds = [
  ['without fleet-git', null],
  ['this build', join(root, 'dist/cli.cjs')],
  ...(process.env.FLEET_GIT_BENCH_OTHER
    ? [[process.env.FLEET_GIT_BENCH_OTHER_NAME ?? 'the other build', process.env.FLEET_GIT_BENCH_OTHER]]
    : []),
];
const git = (env, cwd, ...args) => execFileSync('git', args, { cwd, env, stdio: 'pipe' });

/** A repository of 50 files with two branches, in a home of its own, enabled by `cli` (null: not). */
function makeRepo(k, cli) {
  const env = homeEnv(join(dir, `home${k}`));
  const p = join(dir, `repo${k}`);
  mkdirSync(join(p, 'src'), { recursive: true });
  for (let i = 0; i < 50; i++) writeFileSync(join(p, 'src', `f${i}.ts`), `export const n = ${i};\n`);
  git(env, p, 'init', '-q');
  git(env, p, 'add', '-A');
  git(env, p, 'commit', '-q', '-m', 'init');
  git(env, p, 'branch', 'other');
  writeFileSync(join(p, 'src', 'f0.ts'), 'export const n = -1;\n');
  git(env, p, 'commit', '-q', '-am', 'change');
  if (cli) execFileSync(process.execPath, [cli, 'enable'], { cwd: p, env, stdio: 'pipe' });
  return { env, p };
}
const repos = builds.map(([, cli], k) => makeRepo(k, cli));

const ms = (f) => {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const add = ({ env, p }, i) => ms(() => git(env, p, 'worktree', 'add', '-q', `${p}-wt${i}`, '-b', `b${i}`));
const branch = (i) => (i % 2 ? 'main' : 'other');
const swap = ({ env, p }, i) => ms(() => git(env, p, 'checkout', '-q', branch(i)));
const times = { add: builds.map(() => []), switch: builds.map(() => []) };
for (let i = 0; i < RUNS; i++) {
  const order = builds.map((_, k) => (k + i) % builds.length); // rotate who goes first
  for (const k of order) times.add[k].push(add(repos[k], i));
  for (const k of order) times.switch[k].push(swap(repos[k], i));
}
const starts = repos.map(({ env, p }) => ({
  add: nodeStarts(['git', 'worktree', 'add', '-q', `${p}-counted`, '-b', 'counted'], { cwd: p, env }),
  switch: nodeStarts(['git', 'checkout', '-q', branch(RUNS)], { cwd: p, env }),
}));
rmSync(dir, { recursive: true, force: true });
console.log(`worktree add and a branch switch (medians of ${RUNS} interleaved runs; node processes started, counted once by strace):`);
for (const what of ['add', 'switch']) {
  const base = median(times[what][0]);
  builds.forEach(([name], k) => {
    const m = median(times[what][k]);
    const n = starts[k][what];
    console.log(
      `  ${(what === 'add' ? 'worktree add' : 'branch switch').padEnd(14)} ${name.padEnd(20)} ${m.toFixed(1).padStart(6)} ms${k ? `  ratio ${(m / base).toFixed(2)}` : ''}  node started: ${n ?? '? (no strace)'}`,
    );
  });
}
