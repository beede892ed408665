// `git clone` of a small local repository with `fleet-git setup` in effect
// (the clone included by the config, and one excluded) against the same clone
// without setup: medians of interleaved runs, with the number of node
// processes each starts (counted by strace, once). FLEET_GIT_BENCH_OTHER=<another
// build's dist/cli.cjs> (named FLEET_GIT_BENCH_OTHER_NAME) measures that build too, in the same run (each build in
// a home of its own). Target: a clone starts at most one node. Uses the built
// CLI (npm run build). Not a timed test.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './lib/stats.mjs';
import { homeEnv } from './lib/home-env.mjs';
import { nodeStarts } from './lib/node-starts.mjs';

const RUNS = Number(process.env.RUNS ?? 21);
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-clone-'));
const builds = [
  ['this build', join(root, 'dist/cli.cjs')],
  ...(process.env.FLEET_GIT_BENCH_OTHER
    ? [[process.env.FLEET_GIT_BENCH_OTHER_NAME ?? 'the other build', process.env.FLEET_GIT_BENCH_OTHER]]
    : []),
];
const git = (env, cwd, ...args) => execFileSync('git', args, { cwd, env, stdio: 'pipe' });

const plainEnv = homeEnv(join(dir, 'plain-home'));
const src = join(dir, 'src');
mkdirSync(join(src, 'src'), { recursive: true });
for (let i = 0; i < 50; i++) writeFileSync(join(src, 'src', `f${i}.ts`), `export const n = ${i};\n`);
git(plainEnv, src, 'init', '-q');
git(plainEnv, src, 'add', '-A');
git(plainEnv, src, 'commit', '-q', '-m', 'init');

/** A home with setup done by `cli`, and a config that includes in-* clones and leaves out-* ones. */
function setupHome(k, cli) {
  const env = homeEnv(join(dir, `setup-home${k}`));
  mkdirSync(join(env.XDG_CONFIG_HOME, 'fleet-git'), { recursive: true });
  writeFileSync(
    join(env.XDG_CONFIG_HOME, 'fleet-git', 'config.json5'),
    `{ include: ['${dir}/in-*', '~/code/**', '**/work/{api,web}*'], exclude: ['**/forks', '~/code/*/tmp-*'] }\n`,
  );
  execFileSync(process.execPath, [cli, 'setup'], { cwd: dir, env, stdio: 'pipe' });
  return env;
}
const homes = builds.map(([, cli], k) => setupHome(k, cli));

function time(env, dest) {
  const t = process.hrtime.bigint();
  git(env, dir, 'clone', '-q', src, dest);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
const variants = [
  ['without setup', plainEnv, 'plain'],
  ...builds.flatMap(([name], k) => [
    [`${name}, included`, homes[k], `in-${k}`],
    [`${name}, excluded`, homes[k], `out-${k}`],
  ]),
];
const times = variants.map(() => []);
for (let i = 0; i < RUNS; i++) {
  const order = variants.map((_, k) => (k + i) % variants.length); // rotate who goes first
  for (const k of order) times[k].push(time(variants[k][1], join(dir, `${variants[k][2]}-${i}`)));
}
for (const [, , name] of variants.slice(1))
  if (existsSync(join(dir, `${name}-0`, '.github/hooks/fleet.json')) !== name.startsWith('in-'))
    throw new Error(`the benchmark did not provision ${name} as expected`);
const starts = variants.map(([, env, name]) => nodeStarts(['git', 'clone', '-q', src, join(dir, `${name}-counted`)], { cwd: dir, env }));
rmSync(dir, { recursive: true, force: true });
const base = median(times[0]);
console.log(`git clone (medians of ${RUNS} interleaved runs; node processes started, counted once by strace):`);
variants.forEach(([name], k) => {
  const m = median(times[k]);
  console.log(
    `  ${name.padEnd(34)} ${m.toFixed(1).padStart(6)} ms${k ? `  ratio ${(m / base).toFixed(2)}` : ''}  node started: ${starts[k] ?? '? (no strace)'}`,
  );
});
