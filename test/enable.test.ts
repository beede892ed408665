// enable / disable / status on real repositories, run in-process (the built CLI where the process itself is checked).
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, sandbox, snapshot } from './helpers.js';
import { suspectConfigLine } from '../src/git/config.js';

const HOOK = '.github/hooks/fleet.json';
const status = async (s: ReturnType<typeof sandbox>, cwd: string, ...args: string[]) => {
  const r = await s.fleet(cwd, 'status', '--json', ...args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
/** The .git/index and logs change with any git command; the rest must not. */
const ignoreGitChurn = (rel: string) =>
  /(^|\/)\.git\/(index|logs|COMMIT_EDITMSG|ORIG_HEAD|packed-refs)$/.test(rel) || /\.git\/worktrees\/[^/]+\/(index|logs)$/.test(rel);

describe('enable', () => {
  it('appends the exclude block to a file that ends with a newline, in place; puts it first otherwise; disable gives back every byte (in place, too, for the appended one)', async () => {
    const s = sandbox();
    for (const [name, text] of [
      ['ends-with-newline', '# mine\n*.log\n'],
      ['no-final-newline', '# mine\n*.log'],
    ] as const) {
      const repo = s.repo(name);
      const file = join(repo, '.git/info/exclude');
      writeFileSync(file, text);
      const ino = statSync(file).ino;
      assert.equal((await s.fleet(repo, 'enable')).status, 0);
      const after = readFileSync(file, 'utf8');
      if (text.endsWith('\n')) {
        assert.ok(after.startsWith(text) && after.length > text.length, 'the block follows the user text');
        assert.equal(statSync(file).ino, ino, 'the same file, appended to');
      } else {
        assert.ok(after.endsWith(text) && after.length > text.length, 'the block comes before the user text');
      }
      assert.equal(s.git(repo, 'check-ignore', HOOK), HOOK);
      assert.equal(s.git(repo, 'status', '--porcelain'), '');
      assert.equal((await s.fleet(repo, 'disable')).status, 0);
      assert.equal(readFileSync(file, 'utf8'), text);
      if (text.endsWith('\n')) assert.equal(statSync(file).ino, ino, 'and cut back off in place');
    }
  });

  it('writes the hook file, the exclude block and the git hook, and reports healthy', async () => {
    const s = sandbox();
    const repo = s.repo('plain');
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(readFileSync(join(repo, HOOK), 'utf8'));
    assert.equal(doc.version, 1);
    assert.deepEqual(Object.keys(doc.hooks).sort(), [
      'agentStop',
      'errorOccurred',
      'notification',
      'postToolUse',
      'postToolUseFailure',
      'sessionEnd',
      'sessionStart',
    ]);
    for (const [event, entries] of Object.entries<any[]>(doc.hooks)) {
      assert.equal(entries.length, 1);
      assert.equal(entries[0].type, 'command');
      assert.equal(typeof entries[0].timeoutSec, 'number');
      assert.match(entries[0].bash, /claude-code-fleet/);
      assert.ok(entries[0].bash.includes(` e=${event};`), `the command names ${event}`);
    }
    assert.match(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), /^\/\.github\/hooks\/fleet\.json$/m);
    assert.equal(s.git(repo, 'status', '--porcelain'), '', 'nothing shows up for commit');
    assert.equal(s.git(repo, 'check-ignore', HOOK), HOOK);
    const hook = join(repo, '.git/hooks/post-checkout');
    assert.ok(statSync(hook).mode & 0o100, 'the git hook is executable');
    const st = await status(s, repo);
    assert.deepEqual(st, {
      path: repo,
      kind: 'repo',
      enabled: true,
      problems: [],
      worktrees: [],
      copilot: { trusted: false, hooks: 'repo' },
    });
  });

  it('the git hook is 0755 whatever the umask; the hook file, like any file in the worktree, follows it', () => {
    const s = sandbox();
    for (const mask of ['077', '022', '000']) {
      const repo = s.repo(`umask-${mask}`);
      const r = spawnSync('sh', ['-c', `umask ${mask} && exec "$0" "$@"`, process.execPath, CLI, 'enable'], {
        cwd: repo,
        env: s.env,
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(statSync(join(repo, '.git/hooks/post-checkout')).mode & 0o777, 0o755, `umask ${mask}: the git hook`);
      assert.equal(statSync(join(repo, HOOK)).mode & 0o777, 0o644 & ~parseInt(mask, 8), `umask ${mask}: the hook file`);
    }
  });

  it('is idempotent: a second run changes no byte and no modification time', async () => {
    const s = sandbox();
    const repo = s.repo('twice');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    const files = [HOOK, '.git/info/exclude', '.git/hooks/post-checkout'].map((f) => join(repo, f));
    const before = files.map((f) => [readFileSync(f, 'utf8'), statSync(f).mtimeMs]);
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0);
    assert.match(r.stdout, /already enabled, nothing changed/);
    assert.deepEqual(
      files.map((f) => [readFileSync(f, 'utf8'), statSync(f).mtimeMs]),
      before,
    );
  });

  it('repairs what is missing or stale', async () => {
    const s = sandbox();
    const repo = s.repo('repair');
    await s.fleet(repo, 'enable');
    rmSync(join(repo, HOOK));
    writeFileSync(join(repo, '.git/info/exclude'), '# emptied by hand\n');
    const codes = (await status(s, repo)).problems.map((p: any) => p.code).sort();
    assert.deepEqual(codes, ['exclude-missing', 'hook-file-missing']);
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.deepEqual((await status(s, repo)).problems, []);
    assert.match(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), /^# emptied by hand\n# >>> fleet-git/);
    rmSync(join(repo, '.git/hooks/post-checkout'));
    assert.deepEqual(
      (await status(s, repo)).problems.map((p: any) => p.code),
      ['git-hook-missing'],
    );
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.deepEqual((await status(s, repo)).problems, []);
  });

  it('reports a hook file whose hook client is gone as stale', async () => {
    const s = sandbox();
    const repo = s.repo('stale');
    await s.fleet(repo, 'enable');
    rmSync(join(s.env.XDG_DATA_HOME, 'fleet-git'), { recursive: true });
    assert.deepEqual(
      (await status(s, repo)).problems.map((p: any) => p.code),
      ['hook-file-stale'],
    );
    await s.fleet(repo, 'enable');
    assert.deepEqual((await status(s, repo)).problems, []);
  });

  it('provisions worktrees added later, also from a subfolder, and checkouts that lost the file', async () => {
    const s = sandbox();
    const repo = s.repo('wt');
    mkdirSync(join(repo, 'sub'));
    await s.fleet(repo, 'enable');
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'wt-a'), '-b', 'a');
    s.git(join(repo, 'sub'), 'worktree', 'add', '-q', join(s.dir, 'wt-b'), '-b', 'b');
    for (const wt of ['wt-a', 'wt-b']) {
      const p = join(s.dir, wt);
      assert.equal(readFileSync(join(p, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
      assert.equal(s.git(p, 'status', '--porcelain'), '');
    }
    const st = await status(s, repo);
    assert.deepEqual(
      st.worktrees.map((w: any) => [w.path, w.enabled, w.problems]),
      [
        [join(s.dir, 'wt-a'), true, []],
        [join(s.dir, 'wt-b'), true, []],
      ],
    );
    rmSync(join(repo, HOOK));
    s.git(repo, 'checkout', '-q', '-b', 'c');
    assert.ok(existsSync(join(repo, HOOK)), 'a branch checkout puts the file back');
  });

  it('keeps a foreign post-checkout hook running first, with its arguments and exit status, and restores it byte for byte', async () => {
    const s = sandbox();
    const repo = s.repo('chain');
    const hook = join(repo, '.git/hooks/post-checkout');
    const mine = `#!/bin/sh\necho "mine $*" >> "${s.dir}/mine.log"\nexit 3\n`;
    writeFileSync(hook, mine);
    chmodSync(hook, 0o750);
    const before = snapshot(repo, ignoreGitChurn);
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    const r = s.run(repo, ['worktree', 'add', '-q', join(s.dir, 'wt'), '-b', 'x']);
    assert.equal(r.status, 3, "the user's hook's exit status stays the command's");
    assert.match(readFileSync(join(s.dir, 'mine.log'), 'utf8'), /^mine 0{40} [0-9a-f]{40} 1$/m);
    assert.ok(existsSync(join(s.dir, 'wt', HOOK)), 'fleet-git provisioned the worktree too');
    s.git(repo, 'worktree', 'remove', '--force', join(s.dir, 'wt'));
    s.git(repo, 'branch', '-q', '-D', 'x');
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(snapshot(repo, ignoreGitChurn), before);
  });

  it('a foreign hook and a different one already kept aside: stops, overwriting neither; the same one kept aside: goes ahead', async () => {
    const s = sandbox();
    const repo = s.repo('two-prev');
    const hook = join(repo, '.git/hooks/post-checkout');
    writeFileSync(hook, '#!/bin/sh\necho now\n');
    writeFileSync(`${hook}.fleet-git-prev`, '#!/bin/sh\necho before\n');
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 1);
    assert.match(
      r.stderr + r.stdout,
      /post-checkout is not fleet-git's and .*post-checkout\.fleet-git-prev already holds an earlier hook; move one of them away, then run fleet-git enable again/,
    );
    assert.equal(readFileSync(hook, 'utf8'), '#!/bin/sh\necho now\n');
    assert.equal(readFileSync(`${hook}.fleet-git-prev`, 'utf8'), '#!/bin/sh\necho before\n');
    writeFileSync(`${hook}.fleet-git-prev`, '#!/bin/sh\necho now\n');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.equal(readFileSync(`${hook}.fleet-git-prev`, 'utf8'), '#!/bin/sh\necho now\n');
    assert.match(readFileSync(hook, 'utf8'), /fleet-git post-checkout hook/);
  });

  it('leaves a tracked hook file alone and says so', async () => {
    const s = sandbox();
    const repo = s.repo('tracked');
    mkdirSync(join(repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(repo, HOOK), '{"version":1,"hooks":{}}\n');
    s.git(repo, 'add', HOOK);
    s.git(repo, 'commit', '-q', '-m', 'track it');
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /tracked by git/);
    assert.equal(readFileSync(join(repo, HOOK), 'utf8'), '{"version":1,"hooks":{}}\n');
    assert.ok((await status(s, repo)).problems.some((p: any) => p.code === 'hook-file-tracked'));
    assert.equal(s.git(repo, 'status', '--porcelain'), '');
  });

  it('leaves a tracked hook file alone in a SHA-256 repository, even with --force', async () => {
    const s = sandbox();
    const repo = join(s.dir, 'sha256');
    s.git(s.dir, 'init', '-q', '-b', 'main', '--object-format=sha256', repo);
    mkdirSync(join(repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(repo, '.github/hooks/fleet.json'), '{"hooks":{}}\n');
    s.git(repo, 'add', '-A');
    s.git(repo, 'commit', '-qm', 'tracked hook file');
    const r = await s.fleet(repo, 'enable', '--force');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /tracked by git/);
    assert.equal(readFileSync(join(repo, '.github/hooks/fleet.json'), 'utf8'), '{"hooks":{}}\n');
    assert.equal(s.git(repo, 'status', '--porcelain'), '');
    assert.ok((await s.fleet(repo, 'status', '--json')).stdout.includes('hook-file-tracked'));
  });
  it("a hook file left alone (the user's untracked one, a tracked one) leaves the whole repository as it was: no exclude line, no git hook", async () => {
    const s = sandbox();
    for (const tracked of [false, true]) {
      const repo = s.repo(tracked ? 'left-tracked' : 'left-untracked');
      mkdirSync(join(repo, '.github/hooks'), { recursive: true });
      writeFileSync(join(repo, HOOK), '{"version":1,"hooks":{}}\n');
      if (tracked) {
        s.git(repo, 'add', HOOK);
        s.git(repo, 'commit', '-q', '-m', 'track it');
        writeFileSync(join(repo, HOOK), '{"version":1,"hooks":{"sessionStart":[]}}\n'); // changed, not yet committed
      }
      const gitSees = () => ({ status: s.git(repo, 'status', '--porcelain'), add: s.git(repo, 'add', '-A', '-n') });
      const seen = gitSees();
      assert.match(seen.add, /fleet\.json/, 'git add -A would stage the file');
      const before = snapshot(repo, ignoreGitChurn);
      const r = await s.fleet(repo, 'enable');
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stderr, tracked ? /tracked by git/ : /written by someone else/);
      assert.match(r.stdout, /nothing else was changed here: no exclude line, no git hook/);
      assert.deepEqual(gitSees(), seen, 'git status and git add -A -n see the file as before');
      assert.deepEqual(snapshot(repo, ignoreGitChurn), before, 'no exclude line, no git hook, nothing else');
    }
  });

  it('leaves a foreign hook file alone unless --force, and disable puts it back', async () => {
    const s = sandbox();
    const repo = s.repo('foreign');
    mkdirSync(join(repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(repo, HOOK), '{"version":1,"hooks":{"sessionStart":[]}}\n');
    chmodSync(join(repo, HOOK), 0o600);
    const before = snapshot(repo, ignoreGitChurn);
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /not fleet-git.*--force/);
    assert.equal(readFileSync(join(repo, HOOK), 'utf8'), '{"version":1,"hooks":{"sessionStart":[]}}\n');
    assert.equal((await s.fleet(repo, 'enable', '--force')).status, 0);
    assert.match(readFileSync(join(repo, HOOK), 'utf8'), /claude-code-fleet/);
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(snapshot(repo, ignoreGitChurn), before);
  });
});

describe('disable', () => {
  it('returns the repository and its worktrees to exactly what they were', async () => {
    const s = sandbox();
    const repo = s.repo('exact');
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'exact-wt'), '-b', 'w');
    writeFileSync(join(repo, '.git/info/exclude'), 'no-final-newline');
    const snap = () => ({ main: snapshot(repo, ignoreGitChurn), wt: snapshot(join(s.dir, 'exact-wt'), ignoreGitChurn) });
    const before = snap();
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.ok(existsSync(join(s.dir, 'exact-wt', HOOK)), 'existing worktrees are enabled too');
    assert.notDeepEqual(snap(), before);
    const r = await s.fleet(join(s.dir, 'exact-wt'), 'disable');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(snap(), before);
  });

  it('keeps a folder and a file the user had', async () => {
    const s = sandbox();
    const repo = s.repo('keep');
    mkdirSync(join(repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(repo, '.github/hooks/other.json'), '{}\n');
    await s.fleet(repo, 'enable');
    await s.fleet(repo, 'disable');
    assert.ok(existsSync(join(repo, '.github/hooks/other.json')));
    assert.ok(!existsSync(join(repo, HOOK)));
  });

  it('records the folders it makes in the exclude block, and keeps the record of one the user filled until it is empty', async () => {
    const s = sandbox();
    const repo = s.repo('record');
    const snap = () => snapshot(repo, ignoreGitChurn);
    const before = snap();
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    assert.ok(!existsSync(join(repo, '.git/fleet-git-created')), 'no record file: the block holds the record');
    assert.match(
      readFileSync(join(repo, '.git/info/exclude'), 'utf8'),
      /^# fleet-git made this folder: \.github\n# fleet-git made this folder: \.github\/hooks\n# <<< fleet-git\n$/m,
    );
    writeFileSync(join(repo, '.github/mine.yml'), 'x: 1\n');
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.ok(!existsSync(join(repo, '.github/hooks')), 'the empty folder it made is gone');
    assert.equal(readFileSync(join(repo, '.github/mine.yml'), 'utf8'), 'x: 1\n', 'the folder the user filled stays');
    assert.equal(readFileSync(join(repo, '.git/fleet-git-created'), 'utf8'), '.github\n', 'and stays recorded, now in the record file');
    rmSync(join(repo, '.github/mine.yml'));
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(snap(), before, 'once empty, a second disable leaves the repository as it was');
  });
});

describe('bad input', () => {
  it('outside a repository: one line, exit 2, nothing written', async () => {
    const s = sandbox();
    const dir = join(s.dir, 'nothing');
    mkdirSync(dir);
    for (const cmd of ['enable', 'disable', 'status']) {
      const r = await s.fleet(dir, cmd);
      assert.equal(r.status, 2);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.match(r.stderr, /not inside a git repository/);
    }
    assert.deepEqual(snapshot(dir), {});
    assert.ok(!existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git')));
  });

  it('a path to a file: every command refuses it alike, one line, exit 2, nothing written', async () => {
    const s = sandbox();
    const repo = s.repo('a-file-in-it');
    const file = join(repo, 'README.md');
    const before = snapshot(repo, ignoreGitChurn);
    for (const args of [
      ['enable', file],
      ['enable', '--dry-run', file],
      ['disable', file],
      ['status', file],
      ['scan', file],
      ['remove', file, '--yes'],
      ['enable', '--under', file],
      ['disable', '--under', file, '--yes'],
    ]) {
      const r = await s.fleet(s.dir, ...args);
      assert.equal(r.stderr, `fleet-git: ${file}: not a folder\n`, args.join(' '));
      assert.equal(r.status, 2, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
    }
    assert.deepEqual(snapshot(repo, ignoreGitChurn), before);
    assert.ok(!existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git')));
  });

  it("a repository git refuses (a config line it cannot parse): not usable, in git's own words, for every command; nothing written", async () => {
    const s = sandbox();
    const plain = s.repo('refused');
    const enabled = s.repo('refused-later');
    assert.equal((await s.fleet(enabled, 'enable')).status, 0);
    for (const repo of [plain, enabled]) appendFileSync(join(repo, '.git/config'), '[core]\n\tgarbage line\n');
    const gitSays = s.run(plain, ['rev-parse', '--git-dir']);
    assert.match(gitSays.stderr, /^fatal: bad config line \d+ in file \.git\/config\n$/);
    const before = snapshot(plain, ignoreGitChurn);
    for (const repo of [plain, enabled])
      for (const args of [['enable'], ['status'], ['status', '--json'], ['disable'], ['enable', '--dry-run']]) {
        const r = await s.fleet(repo, ...args);
        const want = `fleet-git: ${repo}: not usable: git refuses to work in it (${s.run(repo, ['rev-parse', '--git-dir']).stderr.trim()})\n`;
        assert.equal(r.stderr, want, args.join(' '));
        assert.equal(r.status, 2, args.join(' '));
      }
    const refusal = (repo: string) => `not usable: git refuses to work in it (${s.run(repo, ['rev-parse', '--git-dir']).stderr.trim()})`;
    const dry = await s.fleet(s.dir, 'enable', '--under', s.dir, '--dry-run');
    assert.ok(dry.stderr.includes(`${plain}: ${refusal(plain)}\n`), dry.stderr);
    const under = await s.fleet(s.dir, 'enable', '--under', s.dir);
    assert.equal(under.status, 1);
    assert.ok(under.stderr.includes(`${plain}: failed: ${refusal(plain)}\n`), under.stderr);
    assert.deepEqual(snapshot(plain, ignoreGitChurn), before, 'nothing written');
    const scan = await s.fleet(s.dir, 'scan', s.dir, '--json', '--check');
    assert.equal(scan.status, 1);
    const row = JSON.parse(scan.stdout).repos.find((r: { path: string }) => r.path === enabled);
    assert.equal(row.reason, `not usable: git refuses to work in it (${gitSays.stderr.trim()})`);
    // A config file git reads is no such case: a value continued on the next line, quotes holding # and ;, comments.
    for (const text of ['[core]\n\ta = 1 \\\n  more\n', '[x "a b"]\n\tk = "q # ; \\" r" # c\n; c\n', '[core] a = 1\n'])
      assert.equal(suspectConfigLine(text), null, text);
    assert.equal(suspectConfigLine('[core]\n\tk = "open\n'), 2);
    assert.equal(suspectConfigLine('[core\n'), 1);
  });

  it('a data folder under a file: one line naming the file and what to do, exit 1, the repository as it was', async () => {
    const s = sandbox();
    const repo = s.repo('under-a-file');
    const file = join(s.dir, 'a-file');
    writeFileSync(file, 'x\n');
    s.env.XDG_DATA_HOME = join(file, 'share');
    const before = snapshot(repo, ignoreGitChurn);
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.equal(
      r.stderr,
      `fleet-git: cannot create the folder ${file}/share: ${file} is a file, not a folder; move it aside, or set the variable that points there (XDG_DATA_HOME, XDG_CONFIG_HOME, COPILOT_HOME) to a folder\n`,
    );
    assert.deepEqual(snapshot(repo, ignoreGitChurn), before);
  });

  it('a bare repository and a .git file pointing nowhere: exit 2 with the reason', async () => {
    const s = sandbox();
    const bare = join(s.dir, 'bare.git');
    s.git(s.dir, 'init', '-q', '--bare', bare);
    let r = await s.fleet(bare, 'enable');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /bare repository/);
    const stale = join(s.dir, 'stale');
    mkdirSync(stale);
    writeFileSync(join(stale, '.git'), 'gitdir: /nonexistent/wt\n');
    r = await s.fleet(stale, 'enable');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /does not exist/);
    assert.deepEqual(snapshot(stale), { '.git': snapshot(stale)['.git'] });
  });

  it('an unknown command or option: one line, exit 2, no stack', () => {
    const s = sandbox();
    const repo = s.repo('usage');
    for (const args of [['bogus'], ['enable', '--bogus'], ['model']]) {
      const r = s.cli(repo, ...args);
      assert.equal(r.status, 2, args.join(' '));
      assert.doesNotMatch(r.stderr + r.stdout, /\n\s+at /);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
    }
    // One command clipanion thinks was meant is named.
    assert.equal(
      s.cli(repo, 'model').stderr,
      'fleet-git: "model" is not a command on its own: model (did you mean fleet-git model list?)\n',
    );
  });
});

describe('quiet, and no internals', () => {
  it('the first enable names the data folder, not the kit or node (FLEET_GIT_DEBUG shows them); -q prints only what was left alone, on every command that changes things', async () => {
    const s = sandbox();
    const [a, b, c] = [s.repo('q/a'), s.repo('q/b'), s.repo('q/c')];
    let r = await s.fleet(a, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /kit [0-9a-f]{16}|recorded node/);
    assert.match(r.stdout, /^put the hook client and the scripts Copilot's hooks run in fleet-git's data folder /m);
    rmSync(join(s.env.XDG_DATA_HOME, 'fleet-git'), { recursive: true });
    s.env.FLEET_GIT_DEBUG = '1';
    r = await s.fleet(a, 'enable');
    assert.match(r.stdout, /\(kit [0-9a-f]{16}\)/);
    assert.match(r.stdout, /^recorded node at /m);
    delete s.env.FLEET_GIT_DEBUG;

    const quiet = async (cwd: string, ...args: string[]) => {
      const q = await s.fleet(cwd, ...args, '-q');
      assert.equal(q.status, 0, `${args.join(' ')}: ${q.stderr}`);
      assert.equal(q.stdout + q.stderr, '', `${args.join(' ')} -q prints nothing when all went well`);
    };
    rmSync(join(s.env.XDG_DATA_HOME, 'fleet-git'), { recursive: true });
    await quiet(b, 'enable');
    assert.ok(existsSync(join(b, HOOK)));
    await quiet(b, 'enable', '--user');
    await quiet(b, 'disable', '--user');
    await quiet(b, 'disable');
    assert.ok(!existsSync(join(b, HOOK)));
    mkdirSync(join(c, '.github/hooks'), { recursive: true });
    writeFileSync(join(c, HOOK), '{"version":1,"hooks":{}}\n');
    r = await s.fleet(c, 'enable', '-q');
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `${c}: left ${join(c, HOOK)} alone: it was written by someone else, not fleet-git (--force replaces it and keeps a copy that disable puts back)\n`,
    );

    // scan -q: only the repositories with problems (off a terminal: one line each).
    rmSync(join(a, HOOK));
    r = await s.fleet(s.dir, 'scan', join(s.dir, 'q'), '-q');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${a}\tproblems\thook-file-missing\n${c}\tproblems\thook-file-foreign\n`);

    // setup: says what it did with no config file; quiet, nothing.
    r = await s.fleet(s.dir, 'setup');
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /compiled the include\/exclude rules|recorded the fleet-git command/);
    assert.match(r.stdout, /with no config file \(.*config\.json5\), every new clone gets fleet-git/);
    await quiet(s.dir, 'setup', '--undo');
    await quiet(s.dir, 'setup');
    r = await s.fleet(s.dir, 'uninstall', join(s.dir, 'q'), '--yes', '-q');
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /removed fleet-git's data folder|^\//m);
  });
});
