#!/usr/bin/env node
// The floor of what scan reads per repository (bench/scan.mjs): the same
// file-system calls, through the same Node calls, and nothing else (no walk,
// no state, no output), for each repository of a list (the bare-bulk list:
// kind<TAB>path per line; worktrees are left out).
//
//   node bench/lib/bare-scan.mjs plain|enabled|record LIST [ROOT-TO-REPLACE ROOT]
//
// plain: a repository without fleet-git (discovery's five existence checks,
// the hook file's lstat, info/exclude read, the git hook's and its .old's
// lstat); enabled: that, and what an enabled one adds (the link checks on the
// hook file's path and in the git dir, the hook file, the config, the start of
// the index and the git hook read into one reused buffer); record: the floor
// of a stat-checked record that enable would keep of what it read (not built:
// what such a cache could save): the plain calls, and an lstat each of what an
// exact record would have to be checked against (the common git dir and its
// hooks folder, whose times tell any entry made, removed or renamed there,
// `.github`, config and the index), each looked up in a Map. With the last two
// arguments, each path's ROOT-TO-REPLACE prefix is read as ROOT (the same
// repositories in another copy of the workspace).
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, readSync } from 'node:fs';

const [mode, list, from, to] = process.argv.slice(2);
if (!['plain', 'enabled', 'record'].includes(mode) || !list) {
  console.error('usage: bare-scan.mjs plain|enabled|record LIST [FROM TO]');
  process.exit(2);
}
const repos = readFileSync(list, 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('repo\t'))
  .map((l) => l.slice(5))
  .map((p) => (from && p.startsWith(from) ? to + p.slice(from.length) : p));
const NO_ENTRY_OK = { throwIfNoEntry: false };
const buf = Buffer.allocUnsafe(64 * 1024);
const lstat = (p) => {
  try {
    return lstatSync(p, NO_ENTRY_OK);
  } catch {
    return undefined;
  }
};
const read = (p, flags = constants.O_RDONLY) => {
  let fd;
  try {
    fd = openSync(p, flags);
  } catch {
    return -1;
  }
  try {
    return readSync(fd, buf, 0, buf.length, 0);
  } finally {
    closeSync(fd);
  }
};
const NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;
const record = new Map();
let differ = 0;
const checked = (p) => {
  const st = lstat(p);
  const key = st ? `${st.ino} ${st.size} ${st.mtimeMs} ${st.ctimeMs}` : '';
  if (record.get(p) !== key) differ++;
};
for (const r of repos) {
  const g = `${r}/.git`;
  for (const n of ['HEAD', 'objects', 'refs', 'commondir', 'worktrees']) existsSync(`${g}/${n}`);
  lstat(`${r}/.github/hooks/fleet.json`);
  if (mode === 'enabled') {
    lstat(`${r}/.github`);
    lstat(`${r}/.github/hooks`);
    read(`${r}/.github/hooks/fleet.json`, NOFOLLOW);
    read(`${g}/config`);
    read(`${g}/index`);
  }
  read(`${g}/info/exclude`, NOFOLLOW);
  lstat(`${g}/hooks/post-checkout`);
  if (mode === 'enabled') read(`${g}/hooks/post-checkout`);
  lstat(`${g}/hooks/post-checkout.old`);
  if (mode === 'record') for (const p of [g, `${g}/hooks`, `${r}/.github`, `${g}/config`, `${g}/index`]) checked(p);
  if (mode === 'enabled')
    for (const n of [
      'info',
      'hooks',
      'hooks/post-checkout.fleet-git-prev',
      'hooks/post-checkout.legacy',
      'fleet-git-created',
      'fleet-git-replaced-fleet.json',
    ])
      lstat(`${g}/${n}`);
}
if (differ < 0) console.log(differ); // keeps the lookups from being optimized away
