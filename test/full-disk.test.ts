// A full disk, on a real small tmpfs (mounted by the test, which runs as root):
// a short write is never taken for a whole one. enable fails with one line and
// leaves the repository byte for byte as it was; the hook client in the data
// folder is whole or not replaced at all.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { ROOT, describeNeeding, gitChurn, needsRoot, sandbox, snapshot, type Ran, type Sandbox } from './helpers.js';

const BUILT_CLIENT = join(ROOT, 'dist', 'hook-client.cjs');
/** Room for the repository's lock (fleet-git.lock holds a PID: one page), and no more. */
const LOCK_PAGE = 4096;

/** A 200 KiB tmpfs in a new temporary folder (beside the sandbox, which is removed first), unmounted after the test file. */
function smallDisk(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'fleet-git-disk-')));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, `this test mounts a small tmpfs and needs root: ${r.stderr}`);
  after(() => {
    spawnSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills the disk holding `dir` to the last page, then frees `free` bytes (whole pages). Returns the filler file. */
function fill(dir: string, free = 0): string {
  const filler = join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const page = Buffer.alloc(4096, 120);
  let size = 0;
  try {
    for (;;) size += writeSync(fd, page);
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  if (free) ftruncateSync(fd, Math.max(0, size - free));
  closeSync(fd);
  return filler;
}

/** A repository on the small disk, with an info/exclude of `excludeSize` bytes (ending in a newline). */
function repoOnDisk(s: Sandbox, disk: string, name: string, excludeSize: number): string {
  const repo = join(disk, name);
  s.git(disk, 'init', '-q', '--template=', '-b', 'main', repo);
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  s.git(repo, 'add', '-A');
  s.git(repo, 'commit', '-q', '-m', 'a');
  mkdirSync(join(repo, '.git/info'));
  const line = "# the user's own exclude text, to be kept byte for byte\n";
  let text = '';
  while (text.length + line.length < excludeSize) text += line;
  text += `${'#'.repeat(excludeSize - text.length - 1)}\n`;
  writeFileSync(join(repo, '.git/info/exclude'), text);
  assert.equal(statSync(join(repo, '.git/info/exclude')).size, excludeSize);
  return repo;
}

function assertOneLineFailure(r: Ran): void {
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

describeNeeding(needsRoot('mount a 200 KiB tmpfs'), 'a full disk', () => {
  it('info/exclude 6 bytes short of a page: enable fails with one line, info/exclude is byte-identical, no stray folder or record', async () => {
    const s = sandbox();
    const disk = smallDisk();
    const repo = repoOnDisk(s, disk, 'r', 4096 - 6);
    const filler = fill(disk, LOCK_PAGE);
    const before = snapshot(repo, gitChurn);
    const r = await s.fleet(repo, 'enable');
    assertOneLineFailure(r);
    assert.match(r.stderr, /could not write .*\/\.git\/info\/exclude: no space left on the disk$/m);
    assert.deepEqual(snapshot(repo, gitChurn), before, 'nothing changed, nothing left behind');
    // With room again, enable and disable leave nothing either.
    truncateSync(filler, 0);
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(snapshot(repo, gitChurn), before);
  });

  it('room for the exclude block but not for the hook file: the undo puts info/exclude back and removes the folders it made', async () => {
    const s = sandbox();
    const disk = smallDisk();
    const repo = repoOnDisk(s, disk, 'r', 4096 - 400);
    fill(disk, LOCK_PAGE);
    const before = snapshot(repo, gitChurn);
    const r = await s.fleet(repo, 'enable');
    assertOneLineFailure(r);
    assert.match(r.stderr, /could not write .*\/\.github\/hooks\/fleet\.json: no space left on the disk/);
    assert.deepEqual(snapshot(repo, gitChurn), before);
  });

  it("the post-checkout hook's append to a full info/exclude is cut back to the user's bytes", async () => {
    const s = sandbox();
    const disk = smallDisk();
    const repo = repoOnDisk(s, disk, 'r', 4096 - 6);
    const exclude = join(repo, '.git/info/exclude');
    const user = readFileSync(exclude);
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    writeFileSync(exclude, user); // the block lost, and the hook file: the hook puts them back on the next checkout
    rmSync(join(repo, '.github/hooks/fleet.json'));
    fill(disk);
    const head = s.git(repo, 'rev-parse', 'HEAD');
    const r = spawnSync('sh', ['.git/hooks/post-checkout', head, head, '1'], { cwd: repo, env: s.env, encoding: 'utf8' });
    assert.equal(r.status, 0, 'the git command is never failed');
    assert.match(r.stderr, /fleet-git: could not add/);
    assert.deepEqual(readFileSync(exclude), user, 'info/exclude is byte-identical');
  });

  it('a full data folder: no truncated hook client is ever installed, a new one nor over an older one', async () => {
    const s = sandbox();
    const data = smallDisk();
    s.env.XDG_DATA_HOME = data;
    const repo = s.repo('r');
    const client = join(data, 'fleet-git', 'hook-client.cjs');
    const built = readFileSync(BUILT_CLIENT);
    assert.ok(built.length > 12 * 1024, 'the hook client spans several pages');
    // Room for about half of it.
    const filler = fill(data, 12 * 1024);
    const r = await s.fleet(repo, 'enable');
    assertOneLineFailure(r);
    assert.match(r.stderr, /could not write .*hook-client\.cjs: no space left on the disk/);
    assert.ok(!existsSync(client), 'no hook client rather than part of one');
    assert.ok(!existsSync(join(repo, '.github')), 'and no hook file that would run it');
    // An older client in place, then the disk full: it stays whole.
    truncateSync(filler, 0);
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.deepEqual(readFileSync(client), built);
    const older = Buffer.concat([built, Buffer.from('\n// an older version\n')]);
    writeFileSync(client, older);
    fill(data, 12 * 1024);
    assertOneLineFailure(await s.fleet(repo, 'enable'));
    assert.deepEqual(readFileSync(client), older, 'the older client is still whole');
    assert.ok(spawnSync(process.execPath, ['--check', client]).status === 0, 'and still parses');
  });
});
