// fleet-git beside real husky 9 and lefthook 2 (installed from npm as dev
// dependencies), and beside a core.hooksPath it must not write into.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, describeNeeding, needs, sandbox, snapshot } from './helpers.js';
import { preCommit, preCommitRepo } from './pre-commit.js';

const HOOK = '.github/hooks/fleet.json';
const codes = async (s: ReturnType<typeof sandbox>, cwd: string) =>
  JSON.parse((await s.fleet(cwd, 'status', '--json')).stdout).problems.map((p: any) => p.code);

describe('husky 9', () => {
  it('keeps husky working, says auto-provisioning is off, and writes nothing into .husky', async () => {
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
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /auto-provisioning is not active.*husky/);
    assert.ok(existsSync(join(repo, HOOK)), 'the hook file is still written');
    assert.deepEqual(await codes(s, repo), ['hooks-path']);
    assert.deepEqual(snapshot(join(repo, '.husky')), huskyBefore, 'nothing written into .husky');
    s.git(repo, 'add', '.husky/pre-commit', 'package.json');
    s.git(repo, 'commit', '-q', '-m', 'with husky');
    assert.equal(readFileSync(join(s.dir, 'husky.log'), 'utf8'), 'ran\n', "husky's hook still runs");
    assert.equal(s.git(repo, 'status', '--porcelain'), '', 'the hook file stays out of commits');
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.ok(!existsSync(join(repo, HOOK)));
    assert.equal(s.git(repo, 'config', 'core.hooksPath'), '.husky/_');
    s.git(repo, 'commit', '-q', '--allow-empty', '-m', 'again');
    assert.equal(readFileSync(join(s.dir, 'husky.log'), 'utf8'), 'ran\nran\n');
  });
});

describe('lefthook 2', () => {
  it('shows fleet-git displaced when lefthook renames its hook, repairs it keeping lefthook running, and disable leaves lefthook as it was', async () => {
    const s = sandbox();
    const repo = s.repo('lefthook');
    writeFileSync(
      join(repo, 'lefthook.yml'),
      `post-checkout:\n  commands:\n    mark:\n      run: echo checkout >> "${s.dir}/lefthook.log"\n`,
    );
    s.git(repo, 'add', 'lefthook.yml');
    s.git(repo, 'commit', '-q', '-m', 'lefthook');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    const lefthook = join(ROOT, 'node_modules/.bin/lefthook');
    const inst = spawn(lefthook, ['install'], repo, s.env);
    assert.equal(inst.status, 0, inst.stderr + inst.stdout);
    assert.ok(existsSync(join(repo, '.git/hooks/post-checkout.old')), 'lefthook renamed our hook');
    assert.deepEqual(await codes(s, repo), ['git-hook-displaced']);
    const lefthookHook = readFileSync(join(repo, '.git/hooks/post-checkout'));
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(await codes(s, repo), []);
    assert.ok(!existsSync(join(repo, '.git/hooks/post-checkout.old')));
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'lh-wt'), '-b', 'w');
    assert.ok(existsSync(join(s.dir, 'lh-wt', HOOK)), 'fleet-git provisions the new worktree');
    assert.match(readFileSync(join(s.dir, 'lefthook.log'), 'utf8'), /checkout/, "lefthook's post-checkout still runs");
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(readFileSync(join(repo, '.git/hooks/post-checkout')), lefthookHook, "lefthook's hook is back in place");
    assert.ok(!existsSync(join(repo, '.git/hooks/post-checkout.fleet-git-prev')));
  });
});

describe('core.hooksPath', () => {
  it('a global hooks folder elsewhere: not written into, and status says why', async () => {
    const s = sandbox();
    const repo = s.repo('hookspath');
    const global = join(s.dir, 'global-hooks');
    mkdirSync(global);
    s.git(repo, 'config', '--global', 'core.hooksPath', global);
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0);
    assert.deepEqual(snapshot(global), {});
    assert.deepEqual(await codes(s, repo), ['hooks-path']);
    assert.match((await s.fleet(repo, 'status')).stdout, /core\.hooksPath=.*global config/);
  });

  it('core.hooksPath pointing at the repository hooks folder itself is used', async () => {
    const s = sandbox();
    const repo = s.repo('hookspath-own');
    s.git(repo, 'config', 'core.hooksPath', '.git/hooks');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.deepEqual(await codes(s, repo), []);
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'own-wt'), '-b', 'w');
    assert.ok(existsSync(join(s.dir, 'own-wt', HOOK)));
  });
});

describe('a hook that fails', () => {
  it('never fails the git command: fleet-git gone, one line on stderr, exit 0', async () => {
    const s = sandbox();
    const repo = s.repo('gone');
    await s.fleet(repo, 'enable');
    // fleet-git uninstalled: its per-user files are gone
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
    spawn('rm', ['-rf', data], repo, s.env);
    const r = s.run(repo, ['worktree', 'add', '-q', join(s.dir, 'gone-wt'), '-b', 'w']);
    assert.equal(r.status, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /^fleet-git: /);
    assert.ok(!existsSync(join(s.dir, 'gone-wt', HOOK)));
  });

  it('a write that fails: one line, exit 0, nothing half-written', async () => {
    const s = sandbox();
    const repo = s.repo('blocked');
    await s.fleet(repo, 'enable');
    s.git(repo, 'worktree', 'add', '-q', '--no-checkout', join(s.dir, 'blocked-wt'), '-b', 'w');
    // a file where the hook folder should be makes mkdir fail
    writeFileSync(join(s.dir, 'blocked-wt', '.github'), 'in the way\n');
    const r = s.run(join(s.dir, 'blocked-wt'), ['checkout', '-q', 'w']);
    assert.equal(r.status, 0);
    assert.match(r.stderr, /^fleet-git: could not add/m);
    assert.equal(readFileSync(join(s.dir, 'blocked-wt', '.github'), 'utf8'), 'in the way\n');
  });

  it('FLEET_GIT=0 skips it', async () => {
    const s = sandbox();
    const repo = s.repo('skip');
    await s.fleet(repo, 'enable');
    const r = spawn('git', ['worktree', 'add', '-q', join(s.dir, 'skip-wt'), '-b', 'w'], repo, { ...s.env, FLEET_GIT: '0' });
    assert.equal(r.status, 0);
    assert.ok(!existsSync(join(s.dir, 'skip-wt', HOOK)));
  });
});

function spawn(cmd: string, args: string[], cwd: string, env: Record<string, string>) {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
}

const hooksOf = (repo: string) => snapshot(join(repo, '.git/hooks'), (rel) => rel.endsWith('.sample'));
const fleetHookIn = (repo: string) =>
  Object.entries(hooksOf(repo))
    .filter(([, v]) =>
      Buffer.from(v.split(' ')[2] ?? '', 'base64')
        .toString()
        .includes('fleet-git post-checkout hook'),
    )
    .map(([k]) => k);

describeNeeding(needs('pre-commit'), 'pre-commit 3', () => {
  for (const foreign of [false, true]) {
    it(`installed after fleet-git${foreign ? ", over a hook of the user's own" : ''}: fleet-git runs as its .legacy, status is clean, disable leaves pre-commit${foreign ? ' running that hook first' : ''}`, async () => {
      const s = sandbox();
      const p = preCommitRepo(s, 'pc-after', foreign);
      assert.equal((await s.fleet(p.repo, 'enable')).status, 0);
      preCommit(s, p.repo, 'install', '-t', 'post-checkout');
      const preCommitHook = readFileSync(join(p.repo, '.git/hooks/post-checkout'));
      assert.deepEqual(fleetHookIn(p.repo), ['post-checkout.legacy'], 'pre-commit moved fleet-git to .legacy');
      assert.deepEqual(await codes(s, p.repo), []);
      assert.match((await s.fleet(p.repo, 'status')).stdout, /fleet-git's is .*post-checkout\.legacy, which pre-commit's runs first/);
      const before = hooksOf(p.repo);
      const again = await s.fleet(p.repo, 'enable');
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(hooksOf(p.repo), before, 'enable again changes nothing');

      p.reset();
      s.git(p.repo, 'worktree', 'add', '-q', join(s.dir, 'pc-wt1'), '-b', 'w1');
      assert.ok(existsSync(join(s.dir, 'pc-wt1', HOOK)), 'fleet-git provisions the new worktree through pre-commit');
      assert.equal(p.ran(), `${foreign ? 'own\n' : ''}pre-commit\n`, 'every hook runs once');

      const off = await s.fleet(p.repo, 'disable');
      assert.equal(off.status, 0, off.stderr);
      assert.deepEqual(fleetHookIn(p.repo), [], 'no fleet-git hook left anywhere');
      assert.ok(!existsSync(join(p.repo, '.git/hooks/post-checkout.fleet-git-prev')));
      assert.deepEqual(readFileSync(join(p.repo, '.git/hooks/post-checkout')), preCommitHook, "pre-commit's hook is as it was");
      if (foreign)
        assert.equal(
          readFileSync(join(p.repo, '.git/hooks/post-checkout.legacy'), 'utf8'),
          p.own,
          "the user's hook takes fleet-git's place in pre-commit's chain",
        );
      else assert.ok(!existsSync(join(p.repo, '.git/hooks/post-checkout.legacy')));

      p.reset();
      s.git(p.repo, 'worktree', 'add', '-q', join(s.dir, 'pc-wt2'), '-b', 'w2');
      assert.ok(!existsSync(join(s.dir, 'pc-wt2', HOOK)), 'no fleet.json in a worktree made after disable');
      assert.ok(!readFileSync(join(p.repo, '.git/info/exclude'), 'utf8').includes('fleet-git'), 'nor the exclude block again');
      assert.equal(p.ran(), `${foreign ? 'own\n' : ''}pre-commit\n`);
      preCommit(s, p.repo, 'uninstall', '-t', 'post-checkout');
      if (foreign)
        assert.equal(
          readFileSync(join(p.repo, '.git/hooks/post-checkout'), 'utf8'),
          p.own,
          "pre-commit's uninstall puts the user's hook back",
        );
      else assert.ok(!existsSync(join(p.repo, '.git/hooks/post-checkout')));
    });

    it(`installed before fleet-git${foreign ? ", over a hook of the user's own" : ''}: fleet-git goes in as .legacy, pre-commit's hook untouched; disable puts everything back`, async () => {
      const s = sandbox();
      const p = preCommitRepo(s, 'pc-before', foreign);
      preCommit(s, p.repo, 'install', '--hook-type', 'post-checkout');
      const before = hooksOf(p.repo);
      const preCommitHook = readFileSync(join(p.repo, '.git/hooks/post-checkout'));
      const r = await s.fleet(p.repo, 'enable');
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /installed the post-checkout hook as post-checkout\.legacy, which pre-commit's hook runs first/);
      assert.deepEqual(readFileSync(join(p.repo, '.git/hooks/post-checkout')), preCommitHook);
      assert.deepEqual(fleetHookIn(p.repo), ['post-checkout.legacy']);
      assert.deepEqual(await codes(s, p.repo), []);
      p.reset();
      s.git(p.repo, 'worktree', 'add', '-q', join(s.dir, 'pcb-wt'), '-b', 'w');
      assert.ok(existsSync(join(s.dir, 'pcb-wt', HOOK)));
      assert.equal(p.ran(), `${foreign ? 'own\n' : ''}pre-commit\n`);
      // pre-commit installed again finds its own hook in place and changes nothing of fleet-git's
      preCommit(s, p.repo, 'install', '-t', 'post-checkout');
      assert.deepEqual(fleetHookIn(p.repo), ['post-checkout.legacy']);
      assert.equal((await s.fleet(p.repo, 'disable')).status, 0);
      assert.deepEqual(hooksOf(p.repo), before, 'the hooks folder is as pre-commit left it');
    });
  }
});

describeNeeding(needs('pre-commit'), 'pre-commit init-templatedir and fleet-git setup', () => {
  async function templateSetup(s: ReturnType<typeof sandbox>) {
    const r = await s.fleet(s.dir, 'setup');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    return r;
  }
  const cloneOf = (s: ReturnType<typeof sandbox>, src: string, name: string) => {
    const r = s.run(s.dir, ['clone', '-q', src, join(s.dir, name)]);
    assert.equal(r.status, 0, r.stderr);
    return join(s.dir, name);
  };

  it("into fleet-git's own template folder: setup finds its hook replaced and puts it behind pre-commit's; undo takes out only fleet-git's files", async () => {
    const s = sandbox();
    const p = preCommitRepo(s, 'pc-src', false);
    await templateSetup(s);
    const tpl = s.git(s.dir, 'config', '--global', 'init.templateDir');
    preCommit(s, p.repo, 'init-templatedir', '-t', 'post-checkout', tpl);
    const theirs = readFileSync(join(tpl, 'hooks/post-checkout'));
    assert.match(
      (await s.fleet(p.repo, 'status')).stdout,
      /new clones \(fleet-git setup\): broken: fleet-git's post-checkout hook in .* was replaced by pre-commit's/,
    );
    const r = await templateSetup(s);
    assert.match(r.stdout, /found: fleet-git's post-checkout hook in .* was replaced by pre-commit's/);
    assert.match(r.stdout, /installed fleet-git's post-checkout hook in .* as post-checkout\.legacy/);
    assert.match((await s.fleet(p.repo, 'status')).stdout, /new clones \(fleet-git setup\): in effect/);
    assert.deepEqual(readFileSync(join(tpl, 'hooks/post-checkout')), theirs);

    p.reset();
    const c1 = cloneOf(s, p.repo, 'pc-c1');
    assert.ok(existsSync(join(c1, HOOK)), 'a new clone gets fleet-git');
    assert.equal(p.ran(), 'pre-commit\n', "and runs pre-commit's hook");
    assert.deepEqual(await codes(s, c1), []);

    const undo = await s.fleet(s.dir, 'setup', '--undo');
    assert.equal(undo.status, 0, undo.stderr);
    assert.match(undo.stdout, /kept .* and init\.templateDir: other tools put files there \(hooks\/post-checkout\)/);
    assert.deepEqual(
      snapshot(tpl),
      { hooks: 'dir 755', 'hooks/post-checkout': `file 755 ${theirs.toString('base64')}` },
      "only pre-commit's hook is left",
    );
    assert.equal(s.git(s.dir, 'config', '--global', 'init.templateDir'), tpl, 'init.templateDir stays for it');
    p.reset();
    const c2 = cloneOf(s, p.repo, 'pc-c2');
    assert.ok(!existsSync(join(c2, HOOK)), 'fleet-git is out of new clones');
    assert.equal(p.ran(), 'pre-commit\n', "pre-commit's template hook still works");
  });

  it("init-templatedir first, then setup: fleet-git goes in beside pre-commit's hook as .legacy, and undo leaves the folder as pre-commit made it", async () => {
    const s = sandbox();
    const p = preCommitRepo(s, 'pc-src3', false);
    const tpl = join(s.dir, 'pc-template');
    s.git(s.dir, 'config', '--global', 'init.templateDir', tpl);
    preCommit(s, p.repo, 'init-templatedir', '-t', 'post-checkout', tpl);
    const before = snapshot(tpl);
    const r = await templateSetup(s);
    assert.match(
      r.stdout,
      /installed fleet-git's post-checkout hook in .* as post-checkout\.legacy, which pre-commit's hook there runs first/,
    );
    assert.match((await s.fleet(p.repo, 'status')).stdout, /new clones \(fleet-git setup\): in effect/);
    p.reset();
    const c1 = cloneOf(s, p.repo, 'pc3-c1');
    assert.ok(existsSync(join(c1, HOOK)));
    assert.equal(p.ran(), 'pre-commit\n');
    assert.equal((await s.fleet(s.dir, 'setup', '--undo')).status, 0);
    assert.deepEqual(snapshot(tpl), before);
  });

  it("into the user's own template folder, over their hook: setup chains both, undo leaves pre-commit running the user's hook first", async () => {
    const s = sandbox();
    const p = preCommitRepo(s, 'pc-src2', false);
    const tpl = join(s.dir, 'my-template');
    mkdirSync(join(tpl, 'hooks'), { recursive: true });
    writeFileSync(join(tpl, 'hooks/post-checkout'), p.own, { mode: 0o755 });
    s.git(s.dir, 'config', '--global', 'init.templateDir', tpl);
    await templateSetup(s);
    preCommit(s, p.repo, 'init-templatedir', '--hook-type', 'post-checkout', tpl);
    const theirs = readFileSync(join(tpl, 'hooks/post-checkout'));
    const r = await templateSetup(s);
    assert.match(r.stdout, /found: .*replaced by pre-commit's/);
    p.reset();
    const c1 = cloneOf(s, p.repo, 'pc2-c1');
    assert.ok(existsSync(join(c1, HOOK)));
    assert.equal(p.ran(), 'own\npre-commit\n', "the user's hook, fleet-git and pre-commit all run");
    const undo = await s.fleet(s.dir, 'setup', '--undo');
    assert.equal(undo.status, 0, undo.stderr);
    assert.deepEqual(
      snapshot(tpl),
      {
        hooks: 'dir 755',
        'hooks/post-checkout': `file 755 ${theirs.toString('base64')}`,
        'hooks/post-checkout.legacy': `file 755 ${Buffer.from(p.own).toString('base64')}`,
      },
      "pre-commit's hook, and the user's as the one it runs first",
    );
    p.reset();
    const c2 = cloneOf(s, p.repo, 'pc2-c2');
    assert.ok(!existsSync(join(c2, HOOK)));
    assert.equal(p.ran(), 'own\npre-commit\n');
  });
});
