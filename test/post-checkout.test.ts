// The post-checkout hook provisions a worktree as enable does (it runs enable's
// plan): the hook file, and the exclude block, also when git's info/ folder is
// missing. Under a held lock and when killed: test/post-checkout-lock.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { EXCLUDE_BLOCK, addExcludeBlock } from '../src/core/repo/exclude.js';
import { needs, sandbox, type Sandbox } from './helpers.js';

const HOOK = '.github/hooks/fleet.json';

// A user text without a final newline gets the block first; one with it, the block after it.
for (const [name, user, expected] of [
  ['pc', '# mine\n*.log', `${EXCLUDE_BLOCK}# mine\n*.log`],
  ['pc-append', '# mine\n*.log\n', `# mine\n*.log\n${EXCLUDE_BLOCK}`],
] as const) {
  it(`puts the exclude block back exactly as enable writes it: ${JSON.stringify(user)}`, async () => {
    const s = sandbox();
    const repo = s.repo(name);
    await s.fleet(repo, 'enable');
    writeFileSync(join(repo, '.git/info/exclude'), user);
    const wt = join(s.dir, `${name}-wt`);
    s.git(repo, 'worktree', 'add', '-q', wt, '-b', 'w');
    assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), expected);
    assert.equal(addExcludeBlock(user), expected, 'the bytes enable would write');
    assert.equal(s.git(wt, 'status', '--porcelain'), '');
    assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  });
}

it('creates info/exclude when git has none, and disable removes only what it created', async () => {
  const s = sandbox();
  const repo = s.repo('pc-info');
  await s.fleet(repo, 'enable');
  rmSync(join(repo, '.git/info'), { recursive: true });
  s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'pc-info-wt'), '-b', 'w');
  assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), EXCLUDE_BLOCK);
  assert.equal(readFileSync(join(s.dir, 'pc-info-wt', HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  assert.equal((await s.fleet(repo, 'disable')).status, 0);
  assert.ok(!existsSync(join(repo, '.git/info')), 'the info folder it created is gone');
  assert.ok(!existsSync(join(s.dir, 'pc-info-wt/.github')), 'the folders it created in the worktree are gone');
  assert.ok(!existsSync(join(repo, '.git/fleet-git-created')));
});

it('rewrites an outdated hook file of its own but never a foreign one', async () => {
  const s = sandbox();
  const repo = s.repo('pc-own');
  await s.fleet(repo, 'enable');
  const current = readFileSync(join(repo, HOOK), 'utf8');
  writeFileSync(join(repo, HOOK), current.replace(/"timeoutSec": 10/g, '"timeoutSec": 5'));
  s.git(repo, 'checkout', '-q', '-b', 'b1');
  assert.equal(readFileSync(join(repo, HOOK), 'utf8'), current);
  writeFileSync(join(repo, HOOK), '{"mine":true}\n');
  s.git(repo, 'checkout', '-q', '-b', 'b2');
  assert.equal(readFileSync(join(repo, HOOK), 'utf8'), '{"mine":true}\n');
});

it("a new worktree of a branch that tracks the hook file keeps git's; a stale own file is rewritten, a foreign one that names the mark outside a command is left alone", async () => {
  const s = sandbox();
  const repo = s.repo('pc-states');
  s.git(repo, 'checkout', '-q', '-b', 'team');
  mkdirSync(join(repo, '.github/hooks'), { recursive: true });
  writeFileSync(join(repo, HOOK), '{"version":1,"hooks":{}}\n');
  s.git(repo, 'add', '-f', HOOK);
  s.git(repo, 'commit', '-q', '-m', 'team hook');
  s.git(repo, 'checkout', '-q', 'main');
  rmSync(join(repo, '.github'), { recursive: true, force: true });
  await s.fleet(repo, 'enable');
  const ours = readFileSync(join(repo, HOOK), 'utf8');
  const team = join(s.dir, 'pc-states-team');
  const r = s.run(repo, ['worktree', 'add', '-q', team, 'team']);
  assert.deepEqual([r.status, r.stderr], [0, '']);
  assert.equal(readFileSync(join(team, HOOK), 'utf8'), '{"version":1,"hooks":{}}\n', "git's file, as git checked it out");
  assert.equal(s.git(team, 'status', '--porcelain'), '');
  const wt = join(s.dir, 'pc-states-wt');
  s.git(repo, 'worktree', 'add', '-q', wt, '-b', 'w');
  writeFileSync(join(wt, HOOK), ours.replaceAll(s.env.XDG_DATA_HOME, '/gone'));
  s.git(wt, 'checkout', '-q', '-b', 'w2');
  assert.equal(readFileSync(join(wt, HOOK), 'utf8'), ours, 'a stale own file is rewritten');
  const foreign =
    '{"version":1,"note":"not # claude-code-fleet fleet-git","hooks":{"sessionStart":[{"type":"command","bash":"echo mine"}]}}\n';
  writeFileSync(join(wt, HOOK), foreign);
  const c = s.run(wt, ['checkout', '-q', '-b', 'w3']);
  assert.deepEqual([c.status, c.stderr], [0, '']);
  assert.equal(readFileSync(join(wt, HOOK), 'utf8'), foreign);
});

it('provisions a worktree whose .git file names its git dir by a relative path', async () => {
  const s = sandbox();
  const repo = s.repo('pc-rel');
  await s.fleet(repo, 'enable');
  const wt = join(s.dir, 'pc-rel-wt');
  s.git(repo, 'worktree', 'add', '-q', wt, '-b', 'w');
  // As `git worktree add --relative-paths` (git 2.48) writes it.
  writeFileSync(join(wt, '.git'), 'gitdir: ../pc-rel/.git/worktrees/pc-rel-wt\n');
  rmSync(join(wt, HOOK));
  // Run as `git worktree add` runs it: in the new worktree, GIT_DIR unset, from the null commit.
  const head = s.git(wt, 'rev-parse', 'HEAD');
  // The data folder's copy of the hook (repo-hook), the same with either git (git 2.54+ runs it from the config, not .git/hooks).
  const hook = join(s.env.XDG_DATA_HOME, 'fleet-git', 'repo-hook');
  const r = spawnSync(hook, ['0'.repeat(40), head, '1'], { cwd: wt, env: s.env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  assert.equal(s.git(wt, 'status', '--porcelain'), '');
});

/** The node processes `git ...args` starts in `cwd`, hook and all: each execve of a program named node that succeeded (strace). */
function nodeStarts(s: Sandbox, cwd: string, ...args: string[]): number {
  const log = join(s.dir, 'strace.log');
  const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=execve', '-e', 'signal=none', '-o', log, 'git', ...args], {
    cwd,
    env: s.env,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => /execve\("[^"]*\/node"/.test(l) && / = 0$/.test(l)).length;
}

it('a branch switch in a provisioned worktree starts no node; a new worktree starts one', { skip: needs('strace') }, async () => {
  const s = sandbox();
  const repo = s.repo('pc-nodes');
  await s.fleet(repo, 'enable');
  assert.equal(nodeStarts(s, repo, 'checkout', '-q', '-b', 'b1'), 0);
  const wt = join(s.dir, 'pc-nodes-wt');
  assert.equal(nodeStarts(s, repo, 'worktree', 'add', '-q', wt, '-b', 'w'), 1);
  assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  assert.equal(nodeStarts(s, wt, 'checkout', '-q', '-b', 'w2'), 0);
});

it("a kit gone from the data folder: a new worktree says so in one line, not node's stack trace, and git succeeds", async () => {
  const s = sandbox();
  const repo = s.repo('kitless');
  assert.equal((await s.fleet(repo, 'enable')).status, 0);
  rmSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'kit'), { recursive: true });
  const r = s.run(repo, ['worktree', 'add', '-q', join(s.dir, 'kitless-wt'), '-b', 'wt']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stderr,
    /^fleet-git: could not add \.github\/hooks\/fleet\.json in .*kitless-wt \(fleet-git's kit \w+ is gone from .*\); run 'fleet-git enable' there\n$/,
  );
});
