// Git's own hook configuration (hook.<name>.event and .command, git 2.54 and
// later): enable provisions new worktrees through the repository's config,
// under husky's core.hooksPath too, and disable takes out exactly what it added.
// With an older git on PATH the same cases check the older way: the hooks
// folder, and under husky the line to add and where (husky's init.sh when
// .husky/post-checkout is tracked, else that file, excluded), which is then
// added, works, leaves git status clean, and ends the problem status reported.
// .ci/run runs this file with each git.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { configHookBlock, runsConfigHooks, withConfigHook, withoutConfigHook } from '../src/core/repo/config-hook.js';
import { ROOT, describeNeeding, needs, run, sandbox, snapshot } from './helpers.js';
import { preCommit, preCommitRepo } from './pre-commit.js';

const HOOK = '.github/hooks/fleet.json';

function gitVersionOf(env: Record<string, string>): number[] {
  const r = run('git', ['--version'], { cwd: ROOT, env });
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(r.stdout);
  assert.ok(m, r.stdout);
  return m.slice(1).map(Number);
}

const statusOf = async (s: ReturnType<typeof sandbox>, cwd: string) => JSON.parse((await s.fleet(cwd, 'status', '--json')).stdout);

describe('the config entry, as text', () => {
  const cmd = `[ ! -x '/d/repo-hook' ] || '/d/repo-hook'`;
  const base = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n';
  it('is added at the end and taken out byte for byte, wherever git put the rest', () => {
    const added = withConfigHook(base, 'fleet-git', cmd);
    assert.equal(added, `${base}[hook "fleet-git"]\n\tevent = post-checkout\n\tcommand = "[ ! -x '/d/repo-hook' ] || '/d/repo-hook'"\n`);
    assert.equal(withConfigHook(added, 'fleet-git', cmd), added, 'current: unchanged');
    assert.equal(withoutConfigHook(added, 'fleet-git'), base);
    // git config appended to the file after: the rest stays as it is.
    const later = `${added}[remote "origin"]\n\turl = x\n`;
    assert.equal(withoutConfigHook(later, 'fleet-git'), `${base}[remote "origin"]\n\turl = x\n`);
  });
  it("keeps what is not its own: another hook's entry, a user's key in its section, a value continued on the next line", () => {
    const other = '[hook "lint"]\n\tevent = pre-commit\n\tcommand = make lint\n';
    const mine = '[hook "fleet-git"]\n\tevent = post-checkout\n\tcommand = "a \\\n b"\n\tenabled = false\n';
    assert.equal(withoutConfigHook(`${other}${mine}`, 'fleet-git'), `${other}[hook "fleet-git"]\n\tenabled = false\n`);
    assert.equal(
      withoutConfigHook(`${other}${configHookBlock('fleet-git-clone', cmd)}`, 'fleet-git'),
      `${other}${configHookBlock('fleet-git-clone', cmd)}`,
    );
    // An outdated command is replaced, the rest kept.
    const stale = withConfigHook(base, 'fleet-git', 'old');
    assert.equal(withConfigHook(stale, 'fleet-git', cmd), withConfigHook(base, 'fleet-git', cmd));
  });
  it('knows which gits run it', () => {
    assert.equal(runsConfigHooks([2, 39, 5]), false);
    assert.equal(runsConfigHooks([2, 53, 0]), false);
    assert.equal(runsConfigHooks([2, 54, 0]), true);
    assert.equal(runsConfigHooks([3, 0, 0]), true);
    assert.equal(runsConfigHooks(null), false);
  });
});

describe('new worktrees, by the git on PATH', () => {
  it('a plain repository: the config entry (git 2.54+) or the hooks folder provisions a new worktree; disable leaves the config as it was', async () => {
    const s = sandbox();
    const repo = s.repo('plain');
    const config = join(repo, '.git/config');
    const before = readFileSync(config, 'utf8');
    const hooksBefore = snapshot(join(repo, '.git/hooks'));
    const viaConfig = runsConfigHooks(gitVersionOf(s.env));
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0, r.stderr);
    const repoHook = join(s.home, '.local/share/fleet-git/repo-hook');
    if (viaConfig) {
      assert.equal(readFileSync(config, 'utf8'), before + configHookBlock('fleet-git', `[ ! -x '${repoHook}' ] || '${repoHook}'`));
      assert.deepEqual(snapshot(join(repo, '.git/hooks')), hooksBefore, 'nothing in the hooks folder');
      assert.match(r.stdout, /added the hook\.fleet-git entry/);
    } else {
      assert.equal(readFileSync(config, 'utf8'), before, 'an older git: the config is not touched');
      assert.ok(existsSync(join(repo, '.git/hooks/post-checkout')));
    }
    const st = await s.fleet(repo, 'status');
    assert.match(st.stdout, viaConfig ? /through the hook\.fleet-git entry in .*\.git\/config/ : /through the post-checkout hook in /);
    assert.deepEqual((await statusOf(s, repo)).problems, []);
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'wt'));
    assert.equal(
      readFileSync(join(s.dir, 'wt', HOOK), 'utf8'),
      readFileSync(join(repo, HOOK), 'utf8'),
      'the new worktree got the hook file',
    );
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.equal(readFileSync(config, 'utf8'), before, 'the config as it was');
    assert.deepEqual(snapshot(join(repo, '.git/hooks')), hooksBefore);
    assert.ok(!existsSync(join(s.dir, 'wt', HOOK)));
  });

  // husky 9 with and without a tracked .husky/post-checkout (the line goes in husky's init.sh, or in that file, excluded).
  for (const tracked of [true, false])
    it(`husky 9${tracked ? '' : ' without a .husky/post-checkout'}: a new worktree gets the hook file (git 2.54+), or enable and status give the line and where it goes, which works and leaves git status clean; status then says so; husky's files unchanged`, async () => {
      const s = sandbox();
      const repo = s.repo('husky');
      writeFileSync(join(repo, 'package.json'), '{"name":"x","private":true}\n');
      const init = run(process.execPath, [join(ROOT, 'node_modules/husky/bin.js')], { cwd: repo, env: s.env });
      assert.equal(init.status, 0, init.stderr);
      mkdirSync(join(repo, '.husky'), { recursive: true });
      if (tracked) writeFileSync(join(repo, '.husky/post-checkout'), `echo "husky $3" >> "${s.dir}/husky.log"\n`);
      s.git(repo, 'add', '-A');
      s.git(repo, 'commit', '-q', '-m', 'husky');
      const config = join(repo, '.git/config');
      const configBefore = readFileSync(config, 'utf8');
      const huskyBefore = snapshot(join(repo, '.husky'));
      const hooksBefore = snapshot(join(repo, '.git/hooks'));
      const viaConfig = runsConfigHooks(gitVersionOf(s.env));
      const repoHook = join(s.home, '.local/share/fleet-git/repo-hook');
      const r = await s.fleet(repo, 'enable');
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(snapshot(join(repo, '.husky')), huskyBefore, 'nothing written into .husky');
      assert.deepEqual(snapshot(join(repo, '.git/hooks')), hooksBefore, 'nothing written into .git/hooks');
      const line = `[ "\${0##*/}" != post-checkout ] || ! grep -qsF '# >>> fleet-git:' "$(git rev-parse --git-path info/exclude)" || '${repoHook}' "$@" || true`;
      const huskyInit = join(s.env.XDG_CONFIG_HOME, 'husky/init.sh');
      const exclude = join(repo, '.git/info/exclude');
      if (viaConfig) {
        assert.doesNotMatch(r.stdout, /not active/);
        assert.deepEqual((await statusOf(s, repo)).problems, []);
      } else {
        // What worktrees miss, and the exact line and where it goes so that git status stays clean.
        const want = tracked
          ? `add this line to husky's ${huskyInit}, which runs before each husky hook (${join(repo, '.husky/post-checkout')} is tracked, so a line there shows in git status): ${line}`
          : `add this line to ${join(repo, '.husky/post-checkout')}: ${line}, and the line /.husky/post-checkout to ${exclude} so that git status stays clean`;
        assert.ok(r.stdout.includes('new worktrees are not provisioned automatically') && r.stdout.includes(want), r.stdout);
        const st = await statusOf(s, repo);
        assert.deepEqual(
          st.problems.map((p: { code: string }) => p.code),
          ['hooks-path'],
        );
        assert.ok(st.problems[0].message.includes(want), st.problems[0].message);
        // Followed: then status says so, with no problem, and git status shows nothing.
        if (tracked) {
          mkdirSync(dirname(huskyInit), { recursive: true });
          writeFileSync(huskyInit, `# the user's own\nexport SOMETHING=1\n${line}\n`);
        } else {
          writeFileSync(join(repo, '.husky/post-checkout'), `echo "husky $3" >> "${s.dir}/husky.log"\n${line}\n`);
          const half = await statusOf(s, repo);
          assert.deepEqual(half.problems, [
            {
              code: 'hooks-path',
              message: `git status shows ${join(repo, '.husky/post-checkout')}, whose line provisions them: add the line /.husky/post-checkout to ${exclude}`,
            },
          ]);
          appendFileSync(exclude, '/.husky/post-checkout\n');
        }
        assert.deepEqual((await statusOf(s, repo)).problems, []);
        const text = (await s.fleet(repo, 'status')).stdout;
        assert.ok(
          text.startsWith(
            `${repo}: enabled\n  new worktrees get the hook file through the line in ${tracked ? huskyInit : join(repo, '.husky/post-checkout')} (this git is older than 2.54)\n`,
          ),
          text,
        );
        assert.doesNotMatch((await s.fleet(repo, 'enable')).stdout, /not active|add this line/, 'enable: nothing left to say');
      }
      assert.equal(s.git(repo, 'status', '--porcelain'), '', 'git status clean');
      s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'wt'));
      assert.equal(
        readFileSync(join(s.dir, 'wt', HOOK), 'utf8'),
        readFileSync(join(repo, HOOK), 'utf8'),
        'the new worktree got the hook file',
      );
      if (tracked || !viaConfig)
        assert.equal(readFileSync(join(s.dir, 'husky.log'), 'utf8'), 'husky 1\n', "husky's own post-checkout ran too");
      assert.equal(s.git(join(s.dir, 'wt'), 'status', '--porcelain'), '', 'excluded there too');
      assert.equal(s.git(repo, 'config', 'core.hooksPath'), '.husky/_');
      assert.equal((await s.fleet(repo, 'disable')).status, 0);
      assert.equal(readFileSync(config, 'utf8'), configBefore, 'the config as it was');
      assert.deepEqual(snapshot(join(repo, '.git/hooks')), hooksBefore);
      // Disabled, the line is inert: a new worktree gets nothing.
      s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'wt2'));
      assert.ok(!existsSync(join(s.dir, 'wt2', HOOK)), 'the line does nothing in a repository not enabled');
      assert.equal(s.git(join(s.dir, 'wt2'), 'status', '--porcelain'), '');
    });
});

describe('lefthook 2 and a failing hook, by the git on PATH', () => {
  it("lefthook installed first: a new worktree gets the hook file and lefthook's hook runs; with git 2.54+ .git/hooks is never touched; disable leaves it and the config as they were", async () => {
    const s = sandbox();
    const repo = s.repo('lefthook');
    writeFileSync(
      join(repo, 'lefthook.yml'),
      `post-checkout:\n  commands:\n    mark:\n      run: echo checkout >> "${s.dir}/lefthook.log"\n`,
    );
    s.git(repo, 'add', 'lefthook.yml');
    s.git(repo, 'commit', '-q', '-m', 'lefthook');
    const inst = run(join(ROOT, 'node_modules/.bin/lefthook'), ['install'], { cwd: repo, env: s.env });
    assert.equal(inst.status, 0, inst.stderr + inst.stdout);
    const hooksBefore = snapshot(join(repo, '.git/hooks'));
    const configBefore = readFileSync(join(repo, '.git/config'), 'utf8');
    const viaConfig = runsConfigHooks(gitVersionOf(s.env));
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.deepEqual((await statusOf(s, repo)).problems, []);
    if (viaConfig) assert.deepEqual(snapshot(join(repo, '.git/hooks')), hooksBefore, "lefthook's hooks untouched");
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'lh-wt'), '-b', 'w');
    assert.ok(existsSync(join(s.dir, 'lh-wt', HOOK)), 'fleet-git provisions the new worktree');
    assert.match(readFileSync(join(s.dir, 'lefthook.log'), 'utf8'), /checkout/, "lefthook's post-checkout still runs");
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(snapshot(join(repo, '.git/hooks')), hooksBefore);
    assert.equal(readFileSync(join(repo, '.git/config'), 'utf8'), configBefore);
  });

  it('the data folder gone: git worktree add still exits 0', async () => {
    const s = sandbox();
    const repo = s.repo('gone');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    rmSync(join(s.home, '.local/share/fleet-git'), { recursive: true });
    const r = s.run(repo, ['worktree', 'add', '-q', join(s.dir, 'gone-wt')]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!existsSync(join(s.dir, 'gone-wt', HOOK)));
  });
});

describeNeeding(needs('pre-commit'), 'pre-commit 3, by the git on PATH', () => {
  it("pre-commit installed first: a new worktree gets the hook file and pre-commit's hook runs once; with git 2.54+ .git/hooks is never touched; disable leaves it and the config as they were", async () => {
    const s = sandbox();
    const p = preCommitRepo(s, 'pc-config', false);
    preCommit(s, p.repo, 'install', '-t', 'post-checkout');
    const hooksBefore = snapshot(join(p.repo, '.git/hooks'));
    const configBefore = readFileSync(join(p.repo, '.git/config'), 'utf8');
    const viaConfig = runsConfigHooks(gitVersionOf(s.env));
    assert.equal((await s.fleet(p.repo, 'enable')).status, 0);
    assert.deepEqual((await statusOf(s, p.repo)).problems, []);
    if (viaConfig) assert.deepEqual(snapshot(join(p.repo, '.git/hooks')), hooksBefore, "pre-commit's hooks untouched");
    p.reset();
    s.git(p.repo, 'worktree', 'add', '-q', join(s.dir, 'pc-config-wt'), '-b', 'w');
    assert.ok(existsSync(join(s.dir, 'pc-config-wt', HOOK)), 'fleet-git provisions the new worktree');
    assert.equal(p.ran(), 'pre-commit\n', "pre-commit's post-checkout runs once");
    assert.equal((await s.fleet(p.repo, 'disable')).status, 0);
    assert.deepEqual(snapshot(join(p.repo, '.git/hooks')), hooksBefore);
    assert.equal(readFileSync(join(p.repo, '.git/config'), 'utf8'), configBefore);
  });
});

describe('new clones after setup, by the git on PATH', () => {
  it("git 2.54+: the global config's hook entry provisions a clone, under a global core.hooksPath too, with nothing in any hooks or template folder; --undo puts the global config back byte for byte", async () => {
    const s = sandbox();
    const src = s.repo('src');
    const hooksPath = join(s.dir, 'my-hooks');
    mkdirSync(hooksPath);
    writeFileSync(join(hooksPath, 'post-checkout'), `#!/bin/sh\necho "mine $3" >> "${s.dir}/mine.log"\n`, { mode: 0o755 });
    s.git(s.dir, 'config', '--global', 'core.hooksPath', hooksPath);
    const globalBefore = readFileSync(s.env.GIT_CONFIG_GLOBAL, 'utf8');
    const hooksBefore = snapshot(hooksPath);
    const viaConfig = runsConfigHooks(gitVersionOf(s.env));
    const r = await s.fleet(s.dir, 'setup');
    const clone = join(s.dir, 'c1');
    if (!viaConfig) {
      // An older git: setup changes nothing and says what to add to the user's own hook (as before).
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stdout + r.stderr, /Either add this line to .*my-hooks\/post-checkout/);
      assert.equal(readFileSync(s.env.GIT_CONFIG_GLOBAL, 'utf8'), globalBefore);
      return;
    }
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const cloneHook = join(s.home, '.local/share/fleet-git/clone-hook');
    assert.equal(s.git(s.dir, 'config', '--global', 'hook.fleet-git-clone.event'), 'post-checkout');
    assert.equal(s.git(s.dir, 'config', '--global', 'hook.fleet-git-clone.command'), `[ ! -x '${cloneHook}' ] || '${cloneHook}'`);
    assert.equal(s.run(s.dir, ['config', '--global', 'init.templateDir']).status, 1, 'no template folder');
    assert.match((await s.fleet(src, 'status')).stdout, /new clones \(fleet-git setup\): in effect: .*hook\.fleet-git-clone/);
    assert.equal((await s.fleet(s.dir, 'setup')).stdout.includes('set hook.'), false, 'setup again changes nothing');
    const c = s.run(s.dir, ['-c', 'protocol.file.allow=always', 'clone', '-q', src, clone]);
    assert.equal(c.status, 0, c.stderr);
    assert.equal(c.stderr, '');
    assert.ok(existsSync(join(clone, HOOK)), 'the clone got the hook file');
    assert.equal(s.git(clone, 'status', '--porcelain'), '', 'excluded from commits');
    assert.deepEqual((await statusOf(s, clone)).problems, []);
    assert.equal(readFileSync(join(s.dir, 'mine.log'), 'utf8'), 'mine 1\n', "the user's own hook ran too");
    assert.deepEqual(snapshot(hooksPath), hooksBefore, "the user's hooks folder unchanged");
    assert.ok(!existsSync(join(clone, '.git/hooks/post-checkout')), 'no hook file in the clone');
    s.git(clone, 'worktree', 'add', '-q', join(s.dir, 'c1-wt'));
    assert.ok(existsSync(join(s.dir, 'c1-wt', HOOK)), "the global entry provisions the clone's new worktrees too");
    const u = await s.fleet(s.dir, 'setup', '--undo');
    assert.equal(u.status, 0, u.stderr);
    assert.equal(readFileSync(s.env.GIT_CONFIG_GLOBAL, 'utf8'), globalBefore, 'the global config as it was');
    assert.match((await s.fleet(src, 'status')).stdout, /new clones \(fleet-git setup\): not in effect/);
  });
});

describe('uninstall, by the git on PATH', () => {
  it('takes the repository entry and setup out: the repository config and the global config byte for byte as before', async () => {
    const s = sandbox();
    const code = join(s.dir, 'code');
    mkdirSync(code);
    const repo = s.repo('code/app');
    const configBefore = readFileSync(join(repo, '.git/config'), 'utf8');
    const globalBefore = readFileSync(s.env.GIT_CONFIG_GLOBAL, 'utf8');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.equal((await s.fleet(s.dir, 'setup')).status, 0);
    if (runsConfigHooks(gitVersionOf(s.env))) {
      assert.notEqual(readFileSync(join(repo, '.git/config'), 'utf8'), configBefore);
      assert.notEqual(readFileSync(s.env.GIT_CONFIG_GLOBAL, 'utf8'), globalBefore);
    }
    const r = await s.fleet(s.dir, 'uninstall', code, '--yes');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(readFileSync(join(repo, '.git/config'), 'utf8'), configBefore);
    assert.equal(readFileSync(s.env.GIT_CONFIG_GLOBAL, 'utf8'), globalBefore);
  });
});
