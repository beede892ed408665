// fleet-git beside real husky 9 and lefthook 2 (installed from npm as dev
// dependencies), and beside a core.hooksPath it must not write into.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, sandbox, snapshot } from './helpers.js';

const HOOK = '.github/hooks/fleet.json';
const codes = (s: ReturnType<typeof sandbox>, cwd: string) => JSON.parse(s.cli(cwd, 'status', '--json').stdout).problems.map((p: any) => p.code);

describe('husky 9', () => {
  it('keeps husky working, says auto-provisioning is off, and writes nothing into .husky', () => {
    const s = sandbox();
    const repo = s.repo('husky');
    writeFileSync(join(repo, 'package.json'), '{"name":"x","private":true}\n');
    const husky = join(ROOT, 'node_modules/husky/bin.js');
    const init = spawn(process.execPath, [husky], repo, s.env);
    assert.equal(init.status, 0, init.stderr);
    assert.equal(s.git(repo, 'config', 'core.hooksPath'), '.husky/_');
    mkdirSync(join(repo, '.husky'), { recursive: true });
    writeFileSync(join(repo, '.husky/pre-commit'), `echo ran >> "${s.dir}/husky.log"\n`);
    const huskyBefore = snapshot(join(repo, '.husky'));
    const r = s.cli(repo, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /auto-provisioning is not active.*husky/);
    assert.ok(existsSync(join(repo, HOOK)), 'the hook file is still written');
    assert.deepEqual(codes(s, repo), ['hooks-path']);
    assert.deepEqual(snapshot(join(repo, '.husky')), huskyBefore, 'nothing written into .husky');
    s.git(repo, 'add', '.husky/pre-commit', 'package.json');
    s.git(repo, 'commit', '-q', '-m', 'with husky');
    assert.equal(readFileSync(join(s.dir, 'husky.log'), 'utf8'), 'ran\n', "husky's hook still runs");
    assert.equal(s.git(repo, 'status', '--porcelain'), '', 'the hook file stays out of commits');
    assert.equal(s.cli(repo, 'disable').status, 0);
    assert.ok(!existsSync(join(repo, HOOK)));
    assert.equal(s.git(repo, 'config', 'core.hooksPath'), '.husky/_');
    s.git(repo, 'commit', '-q', '--allow-empty', '-m', 'again');
    assert.equal(readFileSync(join(s.dir, 'husky.log'), 'utf8'), 'ran\nran\n');
  });
});

describe('lefthook 2', () => {
  it('shows fleet-git displaced when lefthook renames its hook, repairs it keeping lefthook running, and disable leaves lefthook as it was', () => {
    const s = sandbox();
    const repo = s.repo('lefthook');
    writeFileSync(join(repo, 'lefthook.yml'), `post-checkout:\n  commands:\n    mark:\n      run: echo checkout >> "${s.dir}/lefthook.log"\n`);
    s.git(repo, 'add', 'lefthook.yml');
    s.git(repo, 'commit', '-q', '-m', 'lefthook');
    assert.equal(s.cli(repo, 'enable').status, 0);
    const lefthook = join(ROOT, 'node_modules/.bin/lefthook');
    const inst = spawn(lefthook, ['install'], repo, s.env);
    assert.equal(inst.status, 0, inst.stderr + inst.stdout);
    assert.ok(existsSync(join(repo, '.git/hooks/post-checkout.old')), 'lefthook renamed our hook');
    assert.deepEqual(codes(s, repo), ['git-hook-displaced']);
    const lefthookHook = readFileSync(join(repo, '.git/hooks/post-checkout'));
    const r = s.cli(repo, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(codes(s, repo), []);
    assert.ok(!existsSync(join(repo, '.git/hooks/post-checkout.old')));
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'lh-wt'), '-b', 'w');
    assert.ok(existsSync(join(s.dir, 'lh-wt', HOOK)), 'fleet-git provisions the new worktree');
    assert.match(readFileSync(join(s.dir, 'lefthook.log'), 'utf8'), /checkout/, "lefthook's post-checkout still runs");
    assert.equal(s.cli(repo, 'disable').status, 0);
    assert.deepEqual(readFileSync(join(repo, '.git/hooks/post-checkout')), lefthookHook, "lefthook's hook is back in place");
    assert.ok(!existsSync(join(repo, '.git/hooks/post-checkout.fleet-git-prev')));
  });
});

describe('core.hooksPath', () => {
  it('a global hooks folder elsewhere: not written into, and status says why', () => {
    const s = sandbox();
    const repo = s.repo('hookspath');
    const global = join(s.dir, 'global-hooks');
    mkdirSync(global);
    s.git(repo, 'config', '--global', 'core.hooksPath', global);
    const r = s.cli(repo, 'enable');
    assert.equal(r.status, 0);
    assert.deepEqual(snapshot(global), {});
    assert.deepEqual(codes(s, repo), ['hooks-path']);
    assert.match(s.cli(repo, 'status').stdout, /core\.hooksPath=.*global config/);
  });

  it('core.hooksPath pointing at the repository hooks folder itself is used', () => {
    const s = sandbox();
    const repo = s.repo('hookspath-own');
    s.git(repo, 'config', 'core.hooksPath', '.git/hooks');
    assert.equal(s.cli(repo, 'enable').status, 0);
    assert.deepEqual(codes(s, repo), []);
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'own-wt'), '-b', 'w');
    assert.ok(existsSync(join(s.dir, 'own-wt', HOOK)));
  });
});

describe('a hook that fails', () => {
  it('never fails the git command: fleet-git gone, one line on stderr, exit 0', () => {
    const s = sandbox();
    const repo = s.repo('gone');
    s.cli(repo, 'enable');
    // fleet-git uninstalled: its per-user files are gone
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
    spawn('rm', ['-rf', data], repo, s.env);
    const r = s.run(repo, ['worktree', 'add', '-q', join(s.dir, 'gone-wt'), '-b', 'w']);
    assert.equal(r.status, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /^fleet-git: /);
    assert.ok(!existsSync(join(s.dir, 'gone-wt', HOOK)));
  });

  it('a write that fails: one line, exit 0, nothing half-written', () => {
    const s = sandbox();
    const repo = s.repo('blocked');
    s.cli(repo, 'enable');
    s.git(repo, 'worktree', 'add', '-q', '--no-checkout', join(s.dir, 'blocked-wt'), '-b', 'w');
    // a file where the hook folder should be makes mkdir fail
    writeFileSync(join(s.dir, 'blocked-wt', '.github'), 'in the way\n');
    const r = s.run(join(s.dir, 'blocked-wt'), ['checkout', '-q', 'w']);
    assert.equal(r.status, 0);
    assert.match(r.stderr, /^fleet-git: could not add/m);
    assert.equal(readFileSync(join(s.dir, 'blocked-wt', '.github'), 'utf8'), 'in the way\n');
  });

  it('FLEET_GIT=0 skips it', () => {
    const s = sandbox();
    const repo = s.repo('skip');
    s.cli(repo, 'enable');
    const r = spawn('git', ['worktree', 'add', '-q', join(s.dir, 'skip-wt'), '-b', 'w'], repo, { ...s.env, FLEET_GIT: '0' });
    assert.equal(r.status, 0);
    assert.ok(!existsSync(join(s.dir, 'skip-wt', HOOK)));
  });
});

function spawn(cmd: string, args: string[], cwd: string, env: Record<string, string>) {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
}
