// What the two libraries the project's first design named would cost, beside what fleet-git does
// instead (docs/how-it-works.md, Dependencies): fast-glob finding the .git entries of a workspace
// (it cannot stop at a repository root, so it reads every working tree; node_modules ignored)
// against the whole of `fleet-git scan --json`; simple-git asking one repository's core.hooksPath
// (a git process each time) against reading its .git/config, as fleet-git does.
//
//   npm install --prefix DIR fast-glob@3 simple-git@3      (a throwaway folder: neither is a dependency)
//   npm run build && node bench/by-hand/alternatives.mjs DIR WORKSPACE  (a workspace from bench/make-workspace.sh)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { built } from '../lib/built.mjs';
import { median } from '../lib/stats.mjs';

const [modules, ws] = process.argv.slice(2);
if (!modules || !ws) {
  console.error('usage: node bench/by-hand/alternatives.mjs MODULES_DIR WORKSPACE');
  process.exit(2);
}
const require = createRequire(join(modules, 'node_modules', 'x.js'));
const fg = require('fast-glob');
const { simpleGit } = require('simple-git');
const CLI = built('cli.cjs');
const ms = async (f) => {
  const t = process.hrtime.bigint();
  const r = await f();
  return [Number(process.hrtime.bigint() - t) / 1e6, r];
};

const globbed = [];
const scanned = [];
let entries = 0;
let repos = 0;
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS; // as bench/scan.mjs: fleet-git makes no TLS connection
for (let i = 0; i < 5; i++) {
  const [a, found] = await ms(() => fg('**/.git', { cwd: ws, onlyFiles: false, dot: true, ignore: ['**/node_modules/**'] }));
  globbed.push(a);
  entries = found.length;
  const [b, r] = await ms(() => spawnSync(process.execPath, [CLI, 'scan', ws, '--json'], { env, encoding: 'utf8', maxBuffer: 1 << 28 }));
  scanned.push(b);
  repos = JSON.parse(r.stdout).repos.length;
}
console.log(
  `fast-glob '**/.git': ${median(globbed).toFixed(0)} ms (${entries} entries); fleet-git scan --json, node's start, the walk and every repository's state: ${median(scanned).toFixed(0)} ms (${repos} repositories); medians of 5, interleaved`,
);

const dirs = fg
  .sync('*/*/.git', { cwd: ws, onlyFiles: false, dot: true, deep: 3 })
  .slice(0, 100)
  .map((d) => join(ws, dirname(d)));
const [asked] = await ms(async () => {
  for (const d of dirs) await simpleGit(d).raw(['config', '--get-all', 'core.hooksPath']);
});
const [read] = await ms(() => {
  for (const d of dirs) readFileSync(join(d, '.git', 'config'), 'utf8');
});
console.log(
  `simple-git, core.hooksPath of ${dirs.length} repositories: ${(asked / dirs.length).toFixed(1)} ms a repository; reading .git/config: ${((read / dirs.length) * 1000).toFixed(0)} µs a repository`,
);
