// fleet-git setup / setup --undo and the template hook, with real `git clone`s
// from a local repository under a temporary HOME and GIT_CONFIG_GLOBAL.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { otherBuild, sandbox, snapshot, type Sandbox } from './helpers.js';
import { runSync } from './spawn.js';
import { kitId, readStamp } from '../src/core/repo/kit.js';
import { excludeBlock } from '../src/core/repo/exclude.js';

const HOOK = '.github/hooks/fleet.json';
const GIT_DEFAULT_EXCLUDE = readFileSync('/usr/share/git-core/templates/info/exclude', 'utf8');
/** What changes with any git command or clock tick; the rest must be equal. */
const churn = (rel: string) =>
  /(^|\/)\.git\/(index|logs|FETCH_HEAD|ORIG_HEAD)$/.test(rel) || /(^|\/)modules\/[^/]+\/(index|logs)$/.test(rel);

async function status(s: Sandbox, cwd: string) {
  const r = await s.fleet(cwd, 'status', '--json');
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function setup(s: Sandbox, ...args: string[]) {
  const r = await s.fleet(s.dir, 'setup', ...args);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r;
}

function clone(s: Sandbox, src: string, name: string, ...args: string[]) {
  const dest = join(s.dir, name);
  const r = s.run(s.dir, ['-c', 'protocol.file.allow=always', 'clone', '-q', ...args, src, dest]);
  assert.equal(r.status, 0, r.stderr);
  return { path: dest, stderr: r.stderr };
}

function writeConfig(s: Sandbox, text: string): void {
  mkdirSync(join(s.env.XDG_CONFIG_HOME, 'fleet-git'), { recursive: true });
  writeFileSync(join(s.env.XDG_CONFIG_HOME, 'fleet-git', 'config.json5'), text);
}

async function assertProvisioned(s: Sandbox, path: string): Promise<void> {
  assert.ok(existsSync(join(path, HOOK)), `${path} has the hook file`);
  assert.equal(s.git(path, 'status', '--porcelain'), '', 'nothing shows up for commit');
  const st = await status(s, path);
  assert.deepEqual([st.path, st.enabled, st.problems], [path, true, []]);
  for (const w of st.worktrees) assert.deepEqual([w.enabled, w.problems], [true, []]);
}

describe('setup', () => {
  it('without a template folder: makes one, points init.templateDir at it, and new clones arrive enabled', async () => {
    const s = sandbox();
    const src = s.repo('src');
    const globalBefore = readFileSync(s.env.GIT_CONFIG_GLOBAL);
    const r = await setup(s);
    const tpl = join(s.env.XDG_DATA_HOME, 'fleet-git', 'template');
    assert.equal(s.git(s.dir, 'config', '--global', 'init.templateDir'), tpl);
    assert.match(r.stdout, /set init\.templateDir/);
    assert.equal(readFileSync(join(tpl, 'info/exclude'), 'utf8'), GIT_DEFAULT_EXCLUDE, "git's usual info/exclude is kept");
    assert.match((await s.fleet(src, 'status')).stdout, /new clones \(fleet-git setup\): in effect/);

    const { path, stderr } = clone(s, src, 'c1');
    assert.equal(stderr, '');
    await assertProvisioned(s, path);
    const exclude = readFileSync(join(path, '.git/info/exclude'), 'utf8');
    assert.equal(
      exclude,
      `${GIT_DEFAULT_EXCLUDE}${excludeBlock(['.github', '.github/hooks'])}`,
      "git's default exclude text is kept as it was, the block appended after it as enable writes it (recording the folders it made)",
    );
    assert.ok(existsSync(join(path, '.git/hooks/pre-commit.sample')), "git's sample hooks are still there");
    // The clone's hook is now the one `enable` writes: worktrees are provisioned.
    s.git(path, 'worktree', 'add', '-q', join(s.dir, 'c1-wt'), '-b', 'wt');
    assert.ok(existsSync(join(s.dir, 'c1-wt', HOOK)));
    assert.equal((await status(s, path)).worktrees[0].enabled, true);

    // setup --undo: the global config back byte for byte, the template gone, c1 still enabled.
    const u = await s.fleet(s.dir, 'setup', '--undo');
    assert.equal(u.status, 0, u.stderr);
    assert.deepEqual(readFileSync(s.env.GIT_CONFIG_GLOBAL), globalBefore);
    assert.ok(!existsSync(tpl));
    assert.match((await s.fleet(src, 'status')).stdout, /new clones \(fleet-git setup\): not in effect/);
    assert.equal((await status(s, path)).enabled, true);
    assert.deepEqual((await status(s, path)).problems, []);
    s.git(path, 'worktree', 'add', '-q', join(s.dir, 'c1-wt2'), '-b', 'wt2');
    assert.ok(existsSync(join(s.dir, 'c1-wt2', HOOK)), 'enabled repositories keep working after undo');
    const after = clone(s, src, 'c2');
    assert.ok(!existsSync(join(after.path, '.github')), 'no longer for new clones');
    // Undo twice: nothing to undo.
    assert.match((await s.fleet(s.dir, 'setup', '--undo')).stdout, /nothing to undo/);
  });

  it('is idempotent: a second run changes no byte', async () => {
    const s = sandbox();
    await setup(s);
    const snap = () => ({ cfg: readFileSync(s.env.GIT_CONFIG_GLOBAL, 'utf8'), data: snapshot(join(s.env.XDG_DATA_HOME, 'fleet-git')) });
    const before = snap();
    const r = await setup(s);
    assert.match(r.stdout, /already set up, nothing changed/);
    assert.deepEqual(snap(), before);
    // Undo restores even a global config file that did not exist.
    rmSync(join(s.env.XDG_DATA_HOME, 'fleet-git'), { recursive: true });
    s.git(s.dir, 'config', '--global', '--unset', 'init.templateDir');
    unlinkSync(s.env.GIT_CONFIG_GLOBAL);
    await setup(s);
    assert.ok(existsSync(s.env.GIT_CONFIG_GLOBAL));
    await setup(s, '--undo');
    assert.ok(!existsSync(s.env.GIT_CONFIG_GLOBAL));
  });

  it('a clone the config leaves out is exactly as git makes it (but for the inert hook copy), not enabled, and enable makes it normal', async () => {
    const s = sandbox();
    const src = s.repo('src');
    const plain = clone(s, src, 'plain');
    await setup(s);
    writeConfig(s, `{ include: ['~/code'], exclude: ['${s.dir}/out*'] }`);
    const out = clone(s, src, 'out');
    assert.equal(out.stderr, '');
    const got = snapshot(out.path, churn);
    assert.match(got['.git/hooks/post-checkout'], /^file 755 /);
    delete got['.git/hooks/post-checkout'];
    assert.deepEqual(got, snapshot(plain.path, churn), 'no hook file, no exclude block, no record');
    assert.deepEqual(await status(s, out.path), {
      path: out.path,
      kind: 'repo',
      enabled: false,
      problems: [],
      worktrees: [],
      copilot: { trusted: false, hooks: 'none' },
    });
    // A later checkout there stays inert too.
    s.git(out.path, 'checkout', '-q', '-b', 'x');
    assert.ok(!existsSync(join(out.path, '.github')));
    const e = await s.fleet(out.path, 'enable');
    assert.equal(e.status, 0, e.stderr);
    await assertProvisioned(s, out.path);
    // Also not included: a clone outside ~/code (include is set).
    const other = clone(s, src, 'other');
    assert.ok(!existsSync(join(other.path, '.github')));
    // Included.
    mkdirSync(join(s.home, 'code'));
    const inc = clone(s, src, 'home/code/inc');
    await assertProvisioned(s, inc.path);
  });

  it('after --undo, the hook git copied into a repository made meanwhile provisions nothing, and undo says where it stays', async () => {
    const s = sandbox();
    await setup(s);
    const made = s.repo('made-meanwhile'); // git init: the template's hook, no checkout yet
    assert.match(readFileSync(join(made, '.git', 'hooks', 'post-checkout'), 'utf8'), /fleet-git/);
    const undo = await setup(s, '--undo');
    assert.match(undo.stdout, /that fleet-git did not enable \(a git init, a clone your config left out\) keep its post-checkout hook/);
    const gitOwn = (rel: string) => churn(rel) || /^\.git\/(HEAD|refs\/heads\/next)$/.test(rel);
    const before = snapshot(made, gitOwn);
    s.git(made, 'checkout', '-q', '-b', 'next'); // the first checkout: the previous HEAD is the new one, as in a new clone
    assert.ok(!existsSync(join(made, '.github')), 'no hook file');
    assert.deepEqual(snapshot(made, gitOwn), before, 'no exclude block, nothing of fleet-git in .git');
    assert.equal((await status(s, made)).enabled, false);
  });

  it("keeps a user's template folder and runs their post-checkout first; undo puts the folder back byte for byte", async () => {
    const s = sandbox();
    const src = s.repo('src');
    const tpl = join(s.dir, 'my-template');
    mkdirSync(join(tpl, 'hooks'), { recursive: true });
    mkdirSync(join(tpl, 'info'));
    writeFileSync(join(tpl, 'info/exclude'), '*.mine\n');
    writeFileSync(join(tpl, 'hooks/post-checkout'), `#!/bin/sh\necho "mine $3 $(pwd)" >> "${s.dir}/mine.log"\n`);
    chmodSync(join(tpl, 'hooks/post-checkout'), 0o750);
    s.git(s.dir, 'config', '--global', 'init.templateDir', tpl);
    const cfgBefore = readFileSync(s.env.GIT_CONFIG_GLOBAL);
    const tplBefore = snapshot(tpl);
    const r = await setup(s);
    assert.match(r.stdout, /kept your template folder/);
    assert.deepEqual(readFileSync(s.env.GIT_CONFIG_GLOBAL), cfgBefore, 'the setting is kept as it was');
    const { path } = clone(s, src, 'c');
    assert.equal(readFileSync(join(s.dir, 'mine.log'), 'utf8'), `mine 1 ${path}\n`, "the user's template hook still runs");
    await assertProvisioned(s, path);
    assert.match(readFileSync(join(path, '.git/info/exclude'), 'utf8'), /^\*\.mine$/m);
    // Worktrees: the user's hook and fleet-git's, chained as enable does.
    s.git(path, 'worktree', 'add', '-q', join(s.dir, 'c-wt'), '-b', 'w');
    assert.ok(existsSync(join(s.dir, 'c-wt', HOOK)));
    assert.match(readFileSync(join(s.dir, 'mine.log'), 'utf8'), /mine 1 .*c-wt$/m);
    await setup(s, '--undo');
    assert.deepEqual(snapshot(tpl), tplBefore);
    assert.deepEqual(readFileSync(s.env.GIT_CONFIG_GLOBAL), cfgBefore);
    await assertProvisioned(s, path);
  });

  it('a template hook and a different one kept aside already: stops with one line, changing nothing; the same one: goes ahead', async () => {
    const s = sandbox();
    const tpl = join(s.dir, 'tpl-two');
    mkdirSync(join(tpl, 'hooks'), { recursive: true });
    writeFileSync(join(tpl, 'hooks/post-checkout'), '#!/bin/sh\necho now\n');
    writeFileSync(join(tpl, 'hooks/post-checkout.fleet-git-prev'), '#!/bin/sh\necho before\n');
    s.git(s.dir, 'config', '--global', 'init.templateDir', tpl);
    const before = snapshot(tpl);
    const cfgBefore = readFileSync(s.env.GIT_CONFIG_GLOBAL);
    const r = await s.fleet(s.dir, 'setup');
    assert.notEqual(r.status, 0);
    assert.match(
      r.stderr,
      /post-checkout is not fleet-git's and .*post-checkout\.fleet-git-prev already holds an earlier hook; move one of them away, then run fleet-git setup again/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.deepEqual(snapshot(tpl), before);
    assert.deepEqual(readFileSync(s.env.GIT_CONFIG_GLOBAL), cfgBefore);
    writeFileSync(join(tpl, 'hooks/post-checkout.fleet-git-prev'), '#!/bin/sh\necho now\n');
    assert.equal((await s.fleet(s.dir, 'setup')).status, 0);
    assert.equal(readFileSync(join(tpl, 'hooks/post-checkout.fleet-git-prev'), 'utf8'), '#!/bin/sh\necho now\n');
  });

  it('--recurse-submodules, --no-checkout then checkout, --bare', async () => {
    const s = sandbox();
    const lib = s.repo('lib');
    const app = s.repo('app');
    s.git(app, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'lib');
    s.git(app, 'commit', '-q', '-m', 'lib');
    await setup(s);
    const sup = clone(s, app, 'sup', '--recurse-submodules');
    assert.equal(sup.stderr, '');
    await assertProvisioned(s, sup.path);
    const sub = join(sup.path, 'lib');
    assert.ok(existsSync(join(sub, HOOK)), 'the submodule is provisioned');
    assert.equal(s.git(sub, 'status', '--porcelain'), '');
    assert.equal((await status(s, sub)).enabled, true);
    assert.equal(s.git(sup.path, 'status', '--porcelain'), '', 'the superproject sees no change in the submodule');

    const nc = clone(s, app, 'nc', '--no-checkout');
    assert.ok(!existsSync(join(nc.path, '.github')), 'no checkout, no hook run');
    assert.equal((await status(s, nc.path)).enabled, false);
    s.git(nc.path, 'checkout', '-q', 'main');
    await assertProvisioned(s, nc.path);

    const bare = clone(s, app, 'bare.git', '--bare');
    assert.ok(existsSync(join(bare.path, 'hooks/post-checkout')), 'git copies the template hook');
    assert.equal(readFileSync(join(bare.path, 'info/exclude'), 'utf8'), GIT_DEFAULT_EXCLUDE, 'no exclude block');
    assert.ok(!existsSync(join(bare.path, 'fleet-git-created')));
  });

  it("clones follow the config's globs as picomatch reads them: * stays within a folder name, ** spans folders", async () => {
    const s = sandbox();
    const src = s.repo('src');
    await setup(s);
    writeConfig(s, `{ include: ['~/code/**'], exclude: ['~/code/*/forks', '**/tmp-*'] }`);
    const at = (rel: string) => existsSync(join(clone(s, src, `home/${rel}`).path, HOOK));
    assert.equal(at('code/a/forks/lib'), false, '~/code/*/forks covers what is below it');
    assert.equal(at('code/a/b/forks/lib'), true, '* does not cross a /');
    assert.equal(at('code/x/tmp-1'), false, '**/tmp-* at any depth');
    assert.equal(at('code/deep/er/repo'), true, '~/code/** at any depth');
    assert.equal(at('elsewhere/repo'), false, 'not included');
    for (const p of ['code/a/b/forks/lib', 'code/x/tmp-1', 'elsewhere/repo']) {
      const r = await s.fleet(s.dir, 'config', '--json', '--test', join(s.home, p));
      assert.equal(JSON.parse(r.stdout).included, p.startsWith('code/a/b'), `config --test says what the hook did: ${p}`);
    }
  });

  it('the files an older fleet-git kept for setup (its clone rules compiled to sh, the path of its command) go at the next setup', async () => {
    const s = sandbox();
    const src = s.repo('src');
    await setup(s);
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
    // As fleet-git 0.2.0 left them: rules that take no clone, which nothing reads any more.
    writeFileSync(
      join(data, 'clone-rules.sh'),
      '# fleet-git clone rules\nfleet_git_rules_cfg=absent\nfleet_git_included() {\n\treturn 1\n}\n',
    );
    writeFileSync(join(data, 'cli'), '/gone/cli.cjs\n');
    await assertProvisioned(s, clone(s, src, 'after-upgrade').path);
    await setup(s);
    assert.ok(!existsSync(join(data, 'clone-rules.sh')) && !existsSync(join(data, 'cli')));
  });

  it('a broken config, a changed config with no Node: the clone succeeds untouched with one line on stderr', async () => {
    const s = sandbox();
    const src = s.repo('src');
    const plain = clone(s, src, 'plain');
    await setup(s);
    writeConfig(s, '{ include: [ }');
    const broken = clone(s, src, 'broken');
    assert.equal(broken.stderr.trim().split('\n').length, 1, broken.stderr);
    assert.match(broken.stderr, /^fleet-git: left this clone as git made it/);
    const got = snapshot(broken.path, churn);
    delete got['.git/hooks/post-checkout'];
    assert.deepEqual(got, snapshot(plain.path, churn));

    // A valid but changed config, and no node on PATH nor where fleet-git recorded it.
    writeConfig(s, '{ exclude: [] }');
    const bin = join(s.dir, 'bin');
    mkdirSync(bin);
    for (const t of ['git', 'cp', 'mv', 'rm', 'mkdir', 'cat'])
      symlinkSync(execFileSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).trim(), join(bin, t));
    writeFileSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'node'), '/nonexistent/node');
    const env = { ...s.env, PATH: bin };
    const dest = join(s.dir, 'nonode');
    const r = execFileSync('git', ['clone', '-q', src, dest], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(r, '');
    assert.ok(!existsSync(join(dest, '.github')));
    // With Node back, the next clone is provisioned.
    await assertProvisioned(s, clone(s, src, 'back').path);
  });

  it('a changed config and no node on PATH: the hook runs the node fleet-git recorded (one line, no final newline) and provisions the clone', async () => {
    const s = sandbox();
    const src = s.repo('src');
    await setup(s);
    writeConfig(s, '{ exclude: [] }');
    const recorded = readFileSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'node'), 'utf8');
    assert.ok(!recorded.endsWith('\n') && recorded.length > 0, 'the record as fleet-git writes it');
    const bin = join(s.dir, 'bin');
    mkdirSync(bin);
    for (const t of ['git', 'mkdir', 'mv', 'rm'])
      symlinkSync(execFileSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).trim(), join(bin, t));
    const dest = join(s.dir, 'recorded-node');
    const r = spawnSync('git', ['clone', '-q', src, dest], { env: { ...s.env, PATH: bin }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    await assertProvisioned(s, dest);
    assert.ok(!existsSync(join(dest, '.git', 'fleet-git.lock')), 'the lock taken to write is removed');
  });

  it('with a global core.hooksPath: says so, offers the alternative, changes no git config', async () => {
    const s = sandbox();
    const src = s.repo('src');
    const hooks = join(s.dir, 'global-hooks');
    mkdirSync(hooks);
    s.git(s.dir, 'config', '--global', 'core.hooksPath', hooks);
    const before = readFileSync(s.env.GIT_CONFIG_GLOBAL);
    const r = await s.fleet(s.dir, 'setup');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /core\.hooksPath=.*never from a template/);
    assert.match(r.stderr, /fleet-git enable/);
    assert.deepEqual(readFileSync(s.env.GIT_CONFIG_GLOBAL), before);
    // The offered line works.
    const line = /add this line to \S+ \(.*\): (.*)$/m.exec(r.stderr)?.[1];
    assert.ok(line, r.stderr);
    writeFileSync(join(hooks, 'post-checkout'), `#!/bin/sh\n${line}\n`);
    chmodSync(join(hooks, 'post-checkout'), 0o755);
    const c = clone(s, src, 'c');
    assert.ok(existsSync(join(c.path, HOOK)));
    assert.equal(s.git(c.path, 'status', '--porcelain'), '');
    assert.match((await s.fleet(c.path, 'status')).stdout, /new clones \(fleet-git setup\): through .*core\.hooksPath/);
    const u = await s.fleet(s.dir, 'setup', '--undo');
    assert.equal(u.status, 0, u.stderr);
    assert.ok(!existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'clone-hook')));
    assert.deepEqual(readFileSync(s.env.GIT_CONFIG_GLOBAL), before);
  });
});

/** A snapshot that also tells a file rewritten with the same bytes (its change time, which no command can set back). */
function snapshotTimes(root: string, skip?: (rel: string) => boolean): Record<string, string> {
  const snap = snapshot(root, skip);
  for (const rel of Object.keys(snap)) {
    const st = lstatSync(join(root, rel), { bigint: true });
    snap[rel] += ` ${st.mtimeNs} ${st.ctimeNs} ${st.ino}`;
  }
  return snap;
}

describe('a reading command writes nothing (issue 13)', () => {
  it('status, scan, doctor and config on a config changed since setup leave the data and config folders as they were; the next clone follows the new rules', async () => {
    const s = sandbox();
    const src = s.repo('src');
    const repo = s.repo('work/enabled');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    await setup(s);
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
    const config = join(s.env.XDG_CONFIG_HOME, 'fleet-git');
    writeConfig(s, `{ exclude: ["${join(s.dir, 'skipped')}"] }`);
    // doctor runs the hook command as Copilot does, with XDG_RUNTIME_DIR unset here (the data folder's spool
    // then): its test event goes through a spool of its own in a temporary folder.
    const now = () => ({ data: snapshotTimes(data), config: snapshotTimes(config) });
    const before = now();
    for (const args of [
      ['status'],
      ['status', '--json'],
      ['scan', s.dir],
      ['scan', s.dir, '--json'],
      ['doctor'],
      ['doctor', '--json'],
      ['config'],
      ['config', '--json'],
      ['config', '--test', join(s.dir, 'skipped')],
      ['help'],
    ]) {
      const r = await s.fleet(repo, ...args);
      assert.ok(r.status === 0 || (args[0] === 'doctor' && r.status === 1), `${args.join(' ')}: ${r.stderr}`);
      assert.deepEqual(now(), before, `${args.join(' ')} wrote nothing`);
    }
    // The clone hook reads the config as it is now.
    const skipped = clone(s, src, 'skipped');
    assert.equal(skipped.stderr, '');
    assert.ok(!existsSync(join(skipped.path, '.github')), 'the excluded clone is left as git made it');
    await assertProvisioned(s, clone(s, src, 'kept').path);
  });

  it("status, scan, doctor and config leave another build's kit as it is (an upgrade), and work with the data folder read-only", () => {
    const s = sandbox();
    const repo = s.repo('work/enabled');
    const other = otherBuild(join(s.dir, 'other'));
    const byOther = runSync(process.execPath, [other, 'enable'], { cwd: repo, env: s.env });
    assert.equal(byOther.status, 0, byOther.stderr);
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
    const theirs = readStamp(data).id;
    assert.ok(theirs !== null && theirs !== kitId(), "the kit is the other build's");
    const reads: string[][] = [
      ['status'],
      ['status', '--json'],
      ['scan', s.dir],
      ['scan', s.dir, '--json'],
      ['doctor'],
      ['doctor', '--json'],
      ['config'],
    ];
    const runAll = () => {
      for (const args of reads) {
        const r = s.cli(repo, ...args);
        assert.ok(r.status === 0 || (args[0] === 'doctor' && r.status === 1), `${args.join(' ')}: ${r.stderr}`);
        assert.doesNotMatch(r.stdout + r.stderr, /read-only|EROFS|EACCES|permission denied|could not/i, args.join(' '));
      }
      const kit = (
        JSON.parse(s.cli(repo, 'doctor', '--json').stdout) as { checks: { id: string; level: string; message: string }[] }
      ).checks.find((c) => c.id === 'kit');
      assert.equal(kit?.level, 'note', kit?.message);
      assert.match(
        kit!.message,
        new RegExp(`is another fleet-git's \\(${theirs}\\): the hooks run it until a command that changes things`),
      );
    };
    // Writable: nothing in the data folder changes (the code cache aside, which the command's loader keeps).
    const before = snapshot(data, (rel) => rel.endsWith('.cache'));
    runAll();
    assert.deepEqual(
      snapshot(data, (rel) => rel.endsWith('.cache')),
      before,
      'the data folder as it was',
    );
    // Read-only: the same answers.
    const undo = readOnly(data);
    try {
      runAll();
    } finally {
      undo();
    }
    assert.equal(readStamp(data).id, theirs, "the kit is still the other build's");
    // The first command that changes things puts this build's kit in place.
    assert.equal(s.cli(repo, 'enable').status, 0);
    assert.equal(readStamp(data).id, kitId());
  });
});

/** Makes `dir` read-only for this process's commands (root: a read-only bind mount, as permissions do not stop root); returns the undo. */
function readOnly(dir: string): () => void {
  if (process.getuid?.() === 0) {
    for (const args of [
      ['--bind', dir, dir],
      ['-o', 'remount,bind,ro', dir],
    ]) {
      const r = spawnSync('mount', args, { encoding: 'utf8' });
      assert.equal(r.status, 0, `mount ${args.join(' ')}: ${r.stderr}`);
    }
    return () => assert.equal(spawnSync('umount', [dir]).status, 0);
  }
  const r = spawnSync('chmod', ['-R', 'a-w', dir]);
  assert.equal(r.status, 0);
  return () => assert.equal(spawnSync('chmod', ['-R', 'u+w', dir]).status, 0);
}
