#!/usr/bin/env node
// What the repository lock (src/fs/lock.ts, src/core/repo/repo-lock.ts) costs a bulk
// run: each of N folders (stand-ins for common git dirs) locked and unlocked,
// the lock a hard link to one file (as enable --under and remove take it) and,
// side by side in turns, a lock file made each time (as a command on named
// repositories takes it). Medians of --runs rounds, per folder and for all N.
//
//   node bench/lock.mjs [--folders 2000] [--runs 7]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { median } from './lib/stats.mjs';

// The lock module itself, from the source (the build bundles it into the CLI, exporting nothing).
const { acquireLock, makeLinkSource } = await tsImport('../src/fs/lock.ts', import.meta.url);

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const n = opt('folders', 2000);
const runs = Math.max(3, opt('runs', 7));
const root = mkdtempSync(join(tmpdir(), 'fleet-git-bench-lock-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const dirs = Array.from({ length: n }, (_, i) => join(root, `r${i}`));
for (const d of dirs) mkdirSync(d);
const source = join(root, 'source');
makeLinkSource(source);

const kinds = [
  { name: 'lock as a hard link (bulk runs)', linkFrom: source },
  { name: 'lock as a file of its own', linkFrom: null },
];
const times = new Map(kinds.map((k) => [k, []]));
for (let r = 0; r < runs + 1; r++) {
  for (const k of r % 2 ? [...kinds].reverse() : kinds) {
    const t = performance.now();
    for (const d of dirs) acquireLock(join(d, 'fleet-git.lock'), { waitMs: 1000, linkFrom: k.linkFrom })();
    if (r > 0) times.get(k).push(performance.now() - t); // the first round warms up
  }
}
console.log(`${new Date().toISOString().slice(0, 10)}, ${n} folders, median of ${runs} rounds, taken and released in turns`);
const ms = new Map(kinds.map((k) => [k, median(times.get(k))]));
for (const k of kinds) {
  const m = ms.get(k);
  console.log(
    `${k.name.padEnd(36)} ${((m * 1000) / n).toFixed(1).padStart(6)} µs a folder, ${m.toFixed(0).padStart(5)} ms for all (min ${Math.min(...times.get(k)).toFixed(0)}, max ${Math.max(...times.get(k)).toFixed(0)})`,
  );
}
console.log(`hard link / file: ${(ms.get(kinds[0]) / ms.get(kinds[1])).toFixed(2)}`);
