// Two builds' scans of one workspace, interleaved (A B, B A, ...), medians of wall and CPU time:
//   node bench/by-hand/readers.mjs WORKSPACE HOME [RUNS] [LABEL] BEFORE_CLI AFTER_CLI
// (a workspace from bench/make-workspace.sh; each CLI a dist/cli.cjs, e.g. of a clone at the commit before a change).
import { spawnSync } from 'node:child_process';
import { homeEnv } from '../lib/home-env.mjs';
const [ws, home, runs = '20', label = '', beforeCli, afterCli] = process.argv.slice(2);
if (!ws || !home || !beforeCli || !afterCli) {
  console.error('usage: node bench/by-hand/readers.mjs WORKSPACE HOME [RUNS] [LABEL] BEFORE_CLI AFTER_CLI');
  process.exit(2);
}
const builds = { before: beforeCli, after: afterCli };
const env = homeEnv(home);
const t = { before: [], after: [] },
  c = { before: [], after: [] };
const once = (k) => {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', process.execPath, builds[k], 'scan', ws, '--json'], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  const [e, u, s] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return [e, u + s];
};
for (const k of ['before', 'after']) once(k); // warm
for (let i = 0; i < Number(runs); i++)
  for (const k of i % 2 ? ['after', 'before'] : ['before', 'after']) {
    const [e, cpu] = once(k);
    t[k].push(e);
    c[k].push(cpu);
  }
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
console.log(
  `${label} runs ${runs} each, interleaved: before ${(med(t.before) * 1000).toFixed(0)} ms (cpu ${(med(c.before) * 1000).toFixed(0)}), after ${(med(t.after) * 1000).toFixed(0)} ms (cpu ${(med(c.after) * 1000).toFixed(0)}); after/before ${(med(t.after) / med(t.before)).toFixed(3)} wall, ${(med(c.after) / med(c.before)).toFixed(3)} cpu`,
);
