// `git clone` of a small local repository with `fleet-git setup` in effect
// (the clone included by the config, and one excluded) against the same clone
// without setup: medians of interleaved runs. Target (issue 5): at most 1.5
// times. Uses the built CLI (npm run build). Not a timed test.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './lib/stats.mjs';
import { homeEnv } from './lib/home-env.mjs';

const RUNS = Number(process.env.RUNS ?? 21);
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-clone-'));

function userEnv(name) {
  return homeEnv(join(dir, name));
}
const plainEnv = userEnv('plain-home');
const setupEnv = userEnv('setup-home');
const git = (env, cwd, ...args) => execFileSync('git', args, { cwd, env, stdio: 'pipe' });

const src = join(dir, 'src');
mkdirSync(join(src, 'src'), { recursive: true });
for (let i = 0; i < 50; i++) writeFileSync(join(src, 'src', `f${i}.ts`), `export const n = ${i};\n`);
git(plainEnv, src, 'init', '-q');
git(plainEnv, src, 'add', '-A');
git(plainEnv, src, 'commit', '-q', '-m', 'init');

execFileSync(process.execPath, [join(root, 'dist/cli.cjs'), 'setup'], { cwd: dir, env: setupEnv, stdio: 'pipe' });
mkdirSync(join(setupEnv.XDG_CONFIG_HOME, 'fleet-git'), { recursive: true });
writeFileSync(
  join(setupEnv.XDG_CONFIG_HOME, 'fleet-git', 'config.json5'),
  `{ include: ['${dir}/in-*', '~/code/**', '**/work/{api,web}*'], exclude: ['**/forks', '~/code/*/tmp-*'] }\n`,
);
execFileSync(process.execPath, [join(root, 'dist/cli.cjs'), 'setup'], { cwd: dir, env: setupEnv, stdio: 'pipe' }); // compiles the rules

function time(env, dest) {
  const t = process.hrtime.bigint();
  git(env, dir, 'clone', '-q', src, dest);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
const variants = [
  ['without setup', (i) => time(plainEnv, join(dir, `plain-${i}`))],
  ['setup, included', (i) => time(setupEnv, join(dir, `in-${i}`))],
  ['setup, excluded', (i) => time(setupEnv, join(dir, `out-${i}`))],
];
const times = variants.map(() => []);
for (let i = 0; i < RUNS; i++) {
  const order = [0, 1, 2].map((k) => (k + i) % 3); // rotate who goes first
  for (const k of order) times[k].push(variants[k][1](i));
}
if (!existsSync(join(dir, 'in-0', '.github/hooks/fleet.json')) || existsSync(join(dir, 'out-0', '.github')))
  throw new Error('the benchmark did not provision as expected');
rmSync(dir, { recursive: true, force: true });
const base = median(times[0]);
console.log(`git clone (medians of ${RUNS} interleaved runs):`);
variants.forEach(([name], k) => {
  const m = median(times[k]);
  console.log(`  ${name.padEnd(16)} ${m.toFixed(1)} ms${k ? `  ratio ${(m / base).toFixed(2)} (target <= 1.5)` : ''}`);
});
