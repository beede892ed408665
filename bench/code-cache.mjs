// What the V8 code cache (src/code-cache.ts) saves and costs, measured side by
// side in one run: `fleet-git --help` and `fleet-git scan DIR --json` of a small
// folder, each (1) with no data folder (no cache is read or written: compiled as
// usual), (2) from a cache, (3) on the first run, which compiles and saves the
// cache as it exits, and for scan (4) from a cache that another command's first
// run (--help) saved. Medians of the wall time of the whole process and of its
// CPU time (user and system, as /usr/bin/time reports it, when there is one:
// on a loaded machine it drifts less than the wall time).
//
//   npm run build && node bench/code-cache.mjs [runs]
//
// Builds nothing itself. Uses temporary HOMEs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { built } from './lib/built.mjs';
import { median } from './lib/stats.mjs';

const cli = built('cli.cjs');
const runs = Number(process.argv[2]) || 30;
const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-cache-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
// The folder scanned: one repository and one plain folder.
for (const d of ['code/repo/.git/objects', 'code/repo/.git/refs', 'code/folder/sub']) mkdirSync(join(dir, d), { recursive: true });
writeFileSync(join(dir, 'code/repo/.git/HEAD'), 'ref: refs/heads/main\n');
const homeOf = (name) => {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    COPILOT_HOME: join(home, '.copilot'),
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
  };
};
const data = (env) => join(env.XDG_DATA_HOME, 'fleet-git');
const cacheOf = (env) => join(data(env), 'cli-main.cache');
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const cpu = [];
/** Runs fleet-git with `args`; returns its wall time in ms (its CPU time goes into `cpu`). */
const time = (env, args) => {
  const argv = [process.execPath, cli, ...args];
  const t = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync(gnuTime, ['-f', '%U %S', ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
    : spawnSync(argv[0], argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`fleet-git ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  const [u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  cpu.push(gnuTime ? (u + s) * 1000 : NaN);
  return wall;
};
/** The wall and CPU times of one run. */
const both = (env, args) => {
  const wall = time(env, args);
  return { wall, cpu: cpu.pop() };
};
const commands = { help: ['--help'], scan: ['scan', join(dir, 'code'), '--json'] };
const none = homeOf('none'); // no data folder: no cache at all
const cached = Object.fromEntries(Object.keys(commands).map((k) => [k, homeOf(`cached-${k}`)])); // each made by the command itself
const first = homeOf('first');
const cross = homeOf('cross');
for (const e of [...Object.values(cached), first, cross]) mkdirSync(data(e), { recursive: true });
const t = {};
for (const [k, args] of Object.entries(commands)) {
  t[k] = { none: [], cached: [], first: [], cross: [] };
  time(cached[k], args);
}
for (let i = 0; i < runs; i++) {
  for (const [k, args] of Object.entries(commands)) {
    t[k].none.push(both(none, args));
    t[k].cached.push(both(cached[k], args));
    rmSync(cacheOf(first), { force: true });
    t[k].first.push(both(first, args));
    if (k === 'scan') {
      rmSync(cacheOf(cross), { force: true });
      time(cross, commands.help);
      t[k].cross.push(both(cross, args));
    }
  }
}
const f = (runs, what) => median(runs.map((r) => r[what]));
for (const [k, v] of Object.entries(t)) {
  for (const what of gnuTime ? ['wall', 'cpu'] : ['wall']) {
    const n = f(v.none, what);
    const one = (label, runs) => `${label} ${f(runs, what).toFixed(0)} ms (${(f(runs, what) / n).toFixed(2)} times)`;
    const parts = [`compiled ${n.toFixed(0)} ms`, one('from its cache', v.cached), one('first run, saving it', v.first)];
    if (v.cross.length) parts.push(one('from the cache --help saved', v.cross));
    console.log(`${k} (${what}): ${parts.join('; ')}`);
  }
}
