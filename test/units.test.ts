// The pure pieces: the exclude block, the git config reader and the index
// reader checked against git itself, and telling whose a hook file is.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { writeInPlace } from '../src/fs/atomic.js';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXCLUDE_BLOCK, addExcludeBlock, hasExcludeBlock, removeExcludeBlock } from '../src/core/repo/exclude.js';
import { classifyHookFile, renderHookFile } from '../src/core/repo/hook-file.js';
import { hookFileOf010 } from './hook-run.js';
import { ConfigReader, parseConfigValues } from '../src/git/config.js';
import { isTracked, isTrackedInIndex, locateRepo, objectNameSize } from '../src/git/repo.js';
import { gitTracks } from '../src/git/process.js';
import { ROOT, run, sandbox } from './helpers.js';
import { errorLine } from '../src/errors.js';
import { forgetGone, forgetRepo, readRecord, recordDir, recordRepo } from '../src/core/repo/record.js';
import { userPaths } from '../src/paths.js';
import { buildSync } from 'esbuild';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { NO_NODE_FIX, OLDEST_NODE } from '../src/core/session/hook-trial.js';

describe('the exclude block', () => {
  for (const text of [null, '', 'a\n', 'no-newline', '# c\n\n/x\n', `${EXCLUDE_BLOCK}`, `x\n${EXCLUDE_BLOCK}y`]) {
    it(`round-trips ${JSON.stringify(text)}`, () => {
      const added = addExcludeBlock(text);
      assert.ok(hasExcludeBlock(added));
      assert.equal(addExcludeBlock(added), added, 'adding twice changes nothing');
      const base = text === null ? '' : removeExcludeBlock(text);
      assert.equal(removeExcludeBlock(added), base);
    });
  }
  it('finds a complete block only, wherever it stands and whatever follows it (the quick look at the last block agrees with the line-by-line one)', () => {
    const [begin, pattern, end] = EXCLUDE_BLOCK.trimEnd().split('\n');
    const cases: [string, boolean][] = [
      [EXCLUDE_BLOCK, true],
      [EXCLUDE_BLOCK.trimEnd(), true], // no newline after the END line
      [`# user\n${begin}\n${pattern}\n# fleet-git made this folder: .github\n${end}\n`, true],
      [`${EXCLUDE_BLOCK}${begin}\n`, true], // a BEGIN line alone after a complete block
      [`${EXCLUDE_BLOCK}# user\n`, true],
      [`x${begin}\n${pattern}\n${end}\n`, false], // BEGIN not at the start of its line
      [`${begin}\n${pattern}\n${end}x\n`, false], // no END line
      [`${begin}\n${pattern}\n`, false],
      [`${begin}\n/other\n${end}\n`, false],
      [`${begin}\n${pattern}x\n${end}\n`, false],
      [`${begin}\r\n${pattern}\r\n${end}\r\n`, false], // CRLF lines are not the block's lines
      [`${begin}\n${begin}\n${pattern}\n${end}\n`, true], // the BEGIN nearest the END counts
      [`${begin}\n${pattern}\n${end}\n${begin}\n/other\n${end}\n`, true], // the first block, found line by line
    ];
    for (const [text, want] of cases) assert.equal(hasExcludeBlock(text), want, JSON.stringify(text));
  });
  it('keeps every byte of the user text: after it when it ends with a newline, else before it', () => {
    assert.equal(addExcludeBlock('keep\r\nthis'), `${EXCLUDE_BLOCK}keep\r\nthis`);
    assert.equal(addExcludeBlock('keep\nthis\n'), `keep\nthis\n${EXCLUDE_BLOCK}`);
    assert.equal(addExcludeBlock(''), EXCLUDE_BLOCK);
    assert.equal(addExcludeBlock(null), EXCLUDE_BLOCK);
  });
  it('writeInPlace appends or cuts off in place, only in the file as it was read', () => {
    const s = sandbox();
    const file = join(s.dir, 'f');
    // [what the file holds (null: none), what the caller read, what it writes, whether the same file is kept]
    const cases: [string | null, string, string, boolean, string][] = [
      ['a\n', 'a\n', 'a\nb\n', true, 'appended to, not replaced'],
      ['a\nb\nc\n', 'a\nb\n', 'a\nb\nX\n', false, 'changed since it was read: written whole, not appended to what is there now'],
      [null, 'a\n', 'a\nY\n', false, 'gone since it was read: written whole'],
      ['a\nY\n', 'a\nY\n', 'Z\n', false, 'not an addition or a cut at the end: written whole, as writeAtomic does'],
      ['keep\ncut\n', 'keep\ncut\n', 'keep\n', true, 'its end cut off: truncated, not replaced'],
      ['keep\ncut\nmore\n', 'keep\ncut\n', 'keep\n', false, 'changed since it was read: written whole, not truncated'],
    ];
    for (const [held, read, data, same, what] of cases) {
      rmSync(file, { force: true });
      if (held !== null) writeFileSync(file, held);
      const ino = held === null ? null : statSync(file).ino;
      assert.equal(writeInPlace(file, data, read), true, what);
      assert.equal(readFileSync(file, 'utf8'), data, what);
      if (same) assert.equal(statSync(file).ino, ino, what);
    }
  });
});

describe('hook file ownership', () => {
  const ours = renderHookFile({ dataDir: '/d' });
  it('tells ours, current or not, from upstream and foreign files', () => {
    assert.deepEqual(classifyHookFile(ours, ours), { kind: 'ours', current: true, clients: ['/d/hook.sh'], format: 2 });
    assert.equal(classifyHookFile(ours.replace('timeoutSec": 10', 'timeoutSec": 9'), ours).current, false);
    const upstream = JSON.stringify({
      version: 1,
      hooks: {
        sessionStart: [{ type: 'command', bash: 'node "/usr/lib/node_modules/@dking/claude-code-fleet/src/hooks/hook-client.js"' }],
      },
    });
    assert.equal(classifyHookFile(upstream, ours).kind, 'upstream');
    assert.equal(classifyHookFile('{"version":1,"hooks":{}}', ours).kind, 'foreign');
    assert.equal(classifyHookFile('not json', ours).kind, 'foreign');
    assert.equal(classifyHookFile(null, ours).kind, 'absent');
  });
  it('each command is the shim: one short line that names the data folder and the event and sources hook.sh, hook format 2', () => {
    const data = '/home/someone/.local/share/fleet-git';
    const doc = JSON.parse(renderHookFile({ dataDir: data })) as { hooks: Record<string, { bash: string }[]> };
    for (const [event, entries] of Object.entries(doc.hooks)) {
      const cmd = entries[0]!.bash;
      assert.equal(cmd, `d='${data}'; e=${event}; [ -f "$d/hook.sh" ] && . "$d/hook.sh"; exit 0 # claude-code-fleet fleet-git hook 2`);
      assert.ok(cmd.length < 200, `${cmd.length} characters`);
    }
  });
  it("0.1.0's hook file (format 1) is fleet-git's, not current, and runs the data folder's hook client", () => {
    const old = hookFileOf010('/d');
    assert.ok(JSON.parse(old).hooks.postToolUse[0].bash.length > 1000, 'the whole hook in each command');
    assert.deepEqual(classifyHookFile(old, ours), { kind: 'ours', current: false, clients: ['/d/hook-client.cjs'], format: 1 });
  });
  it('quotes the data folder so that the shell reads it back exactly', () => {
    const weird = "/a b/'q'/$(x)/`y`";
    const text = renderHookFile({ dataDir: weird });
    assert.deepEqual(classifyHookFile(text, text).clients, [`${weird}/hook.sh`]);
  });
});

describe('git config reader', () => {
  it('agrees with git config on core.hooksPath in every scope and syntax', () => {
    const s = sandbox();
    const repo = s.repo('cfg');
    const cases = [
      '[core]\n\thooksPath = plain\n',
      '[core]\n\thooksPath = "quoted # not a comment"\n',
      '[CORE]\n\tHooksPath = upper ; comment\n',
      '[core]\n\thooksPath = first\n[core]\n\thooksPath = last\n',
      '[core] hooksPath = inline\n',
      '[core]\n\thooksPath = esc\\\\aped\\tx\n',
      '[core "sub"]\n\thooksPath = not-core\n',
    ];
    for (const text of cases) {
      writeFileSync(join(repo, '.git/config'), `[core]\n\trepositoryformatversion = 0\n${text}`);
      const r = s.run(repo, ['config', '--get', 'core.hooksPath']);
      const mine = new ConfigReader(s.env).get('core', 'hooksPath', join(repo, '.git'));
      assert.equal(mine?.value ?? null, r.status === 0 ? r.stdout.replace(/\n$/, '') : null, text);
    }
  });
  it('follows include and includeIf (gitdir, gitdir/i, onbranch) as git does', () => {
    const s = sandbox();
    const work = s.repo('work/app');
    const other = s.repo('other/app');
    const wt = join(s.dir, 'work-wt');
    s.git(work, 'commit', '-q', '--allow-empty', '-m', 'one');
    s.git(work, 'worktree', 'add', '-q', '-b', 'feature/x', wt);
    const inc = (name: string, value: string) => {
      const f = join(s.home, name);
      writeFileSync(f, `[core]\n\thooksPath = ${value}\n`);
      return f;
    };
    const global = join(s.home, '.gitconfig');
    const base = readFileSync(global, 'utf8');
    const cases = [
      `[include]\n\tpath = ${inc('a.inc', '/from/include')}\n`,
      `[include]\n\tpath = b.inc\n`, // relative to the including file
      `[include]\n\tpath = ~/c.inc\n[core]\n\thooksPath = /after/include\n`,
      `[core]\n\thooksPath = /before\n[include]\n\tpath = ~/c.inc\n`,
      `[includeIf "gitdir:~/../work/"]\n\tpath = ~/a.inc\n`,
      `[includeIf "gitdir:${s.dir}/work/"]\n\tpath = ~/a.inc\n`,
      `[includeIf "gitdir:work/app/.git"]\n\tpath = ~/a.inc\n`,
      `[includeIf "gitdir/i:${s.dir.toUpperCase()}/WORK/**"]\n\tpath = ~/a.inc\n`,
      `[includeIf "gitdir:${s.dir.toUpperCase()}/WORK/**"]\n\tpath = ~/a.inc\n`,
      `[includeIf "onbranch:feature/"]\n\tpath = ~/a.inc\n`,
      `[includeIf "onbranch:main"]\n\tpath = ~/a.inc\n`,
      `[includeIf "hasconfig:remote.*.url:https://example.invalid/**"]\n\tpath = ~/a.inc\n`,
    ];
    inc('b.inc', '/relative/include');
    inc('c.inc', '/home/include');
    for (const text of cases) {
      writeFileSync(global, base + text);
      for (const [where, gitDir, commonDir] of [
        [work, join(work, '.git'), join(work, '.git')],
        [other, join(other, '.git'), join(other, '.git')],
        [wt, join(work, '.git/worktrees/work-wt'), join(work, '.git')],
      ]) {
        const r = s.run(where, ['config', '--get', 'core.hooksPath']);
        const mine = new ConfigReader(s.env).get('core', 'hooksPath', commonDir, gitDir);
        assert.equal(mine?.value ?? null, r.status === 0 ? r.stdout.replace(/\n$/, '') : null, `${text} in ${where}`);
      }
    }
  });

  it("reads a repository's own file as git does whether or not its text names the key: through an include, and config.worktree with worktreeConfig", () => {
    const s = sandbox();
    const repo = s.repo('cfg-local');
    const wt = join(s.dir, 'cfg-local-wt');
    s.git(repo, 'commit', '-q', '--allow-empty', '-m', 'one');
    s.git(repo, 'worktree', 'add', '-q', '-b', 'other', wt);
    const common = join(repo, '.git');
    const wtGitDir = join(common, 'worktrees', 'cfg-local-wt');
    writeFileSync(join(s.home, 'local.inc'), '[core]\n\thooksPath = /from/local/include\n');
    const base = readFileSync(join(common, 'config'), 'utf8'); // format 1 below: git reads worktreeConfig only then
    const cases: [string, Record<string, string>][] = [
      ['', {}],
      ['[remote "origin"]\n\turl = https://example.invalid/r.git\n', {}],
      ['[include]\n\tpath = ~/local.inc\n', {}],
      ['[Include]\n\tPATH = ~/local.inc\n', {}],
      ['[extensions]\n\tworktreeConfig = true\n', { [join(wtGitDir, 'config.worktree')]: '[core]\n\thooksPath = /worktree/own\n' }],
      ['[extensions]\n\tworktreeConfig = true\n', { [join(common, 'config.worktree')]: '[core]\n\thooksPath = /main/own\n' }],
      ['[extensions]\n\tWORKTREECONFIG = true\n', { [join(wtGitDir, 'config.worktree')]: '[include]\n\tpath = ~/local.inc\n' }],
    ];
    for (const [text, more] of cases) {
      writeFileSync(join(common, 'config'), base.replace('repositoryformatversion = 0', 'repositoryformatversion = 1') + text);
      for (const f of [join(wtGitDir, 'config.worktree'), join(common, 'config.worktree')]) rmSync(f, { force: true });
      for (const [f, t] of Object.entries(more)) writeFileSync(f, t);
      for (const [where, gitDir] of [
        [repo, common],
        [wt, wtGitDir],
      ]) {
        const r = s.run(where, ['config', '--get', 'core.hooksPath']);
        const mine = new ConfigReader(s.env).get('core', 'hooksPath', common, gitDir);
        assert.equal(
          mine?.value ?? null,
          r.status === 0 ? r.stdout.replace(/\n$/, '') : null,
          `${text} ${JSON.stringify(more)} in ${where}`,
        );
      }
    }
  });

  it('reads global config and lets local win', () => {
    const s = sandbox();
    const repo = s.repo('cfg2');
    s.git(repo, 'config', '--global', 'core.hooksPath', '/global/hooks');
    assert.deepEqual(new ConfigReader(s.env).get('core', 'hooksPath', join(repo, '.git'))?.scope, 'global');
    s.git(repo, 'config', 'core.hooksPath', 'local');
    assert.deepEqual(new ConfigReader(s.env).get('core', 'hooksPath', join(repo, '.git'))?.value, 'local');
    assert.deepEqual(parseConfigValues('[core]\nbare\n', 'core', 'bare'), ['true']);
  });

  it("reads the object format from the repository's own file only, and hands that reading to the next get on it, once", () => {
    const s = sandbox();
    const repo = s.repo('cfg3');
    const common = join(repo, '.git');
    s.git(repo, 'config', '--global', 'extensions.objectFormat', 'sha256');
    s.git(repo, 'config', 'core.hooksPath', 'first');
    const config = new ConfigReader(s.env);
    assert.equal(objectNameSize(common, config), 20, 'git reads extensions.* from the repository alone');
    assert.equal(objectNameSize(common), 20);
    s.git(repo, 'config', 'core.hooksPath', 'second');
    assert.equal(config.get('core', 'hooksPath', common)?.value, 'first', 'the reading objectNameSize made');
    assert.equal(config.get('core', 'hooksPath', common)?.value, 'second', 'read again after that one get');
    s.git(repo, 'config', 'extensions.objectFormat', 'sha256');
    assert.equal(objectNameSize(common, config), 32);
  });
});

describe('index reader', () => {
  for (const version of ['2', '3', '4']) {
    it(`agrees with git ls-files on index version ${version}`, () => {
      const s = sandbox();
      const repo = s.repo(`idx${version}`);
      for (const p of ['.github/hooks/a.json', '.github/hooks/fleet.jso', '.github/hooks/fleet.json.bak', 'x/.github/hooks/fleet.json']) {
        mkdirSync(join(repo, p, '..'), { recursive: true });
        writeFileSync(join(repo, p), '{}\n');
      }
      s.git(repo, 'add', '-A');
      if (version === '3') {
        writeFileSync(join(repo, 'later.txt'), 'x\n');
        s.git(repo, 'add', '--intent-to-add', 'later.txt');
      }
      s.git(repo, 'update-index', '--index-version', version);
      const gitDir = join(repo, '.git');
      assert.equal(isTrackedInIndex(gitDir, '.github/hooks/fleet.json'), false);
      writeFileSync(join(repo, '.github/hooks/fleet.json'), '{}\n');
      s.git(repo, 'add', '.github/hooks/fleet.json');
      s.git(repo, 'update-index', '--index-version', version);
      assert.equal(isTrackedInIndex(gitDir, '.github/hooks/fleet.json'), true);
      s.git(repo, 'rm', '-q', '--cached', '.github/hooks/fleet.json');
      assert.equal(isTrackedInIndex(gitDir, '.github/hooks/fleet.json'), false);
    });
  }
  it('reads a SHA-256 repository with 32-byte object names, and refuses to guess with the wrong size', () => {
    const s = sandbox();
    const repo = join(s.dir, 'sha256');
    s.git(s.dir, 'init', '-q', '--object-format=sha256', repo);
    mkdirSync(join(repo, '.github/hooks'), { recursive: true });
    for (const p of ['a.txt', '.github/hooks/fleet.json', 'z.txt']) writeFileSync(join(repo, p), '{}\n');
    s.git(repo, 'add', '-A');
    const gitDir = join(repo, '.git');
    assert.equal(objectNameSize(gitDir), 32);
    assert.equal(isTrackedInIndex(gitDir, '.github/hooks/fleet.json', 32), true);
    assert.equal(isTrackedInIndex(gitDir, 'nope', 32), false);
    assert.equal(isTrackedInIndex(gitDir, '.github/hooks/fleet.json', 20), null, 'read as SHA-1: does not add up, so no answer');
    const wt = { root: repo, gitDir, main: true };
    assert.equal(isTracked(wt, gitDir, '.github/hooks/fleet.json', s.env, s.home), true);
    s.git(repo, 'config', 'extensions.objectFormat', 'sha512');
    assert.equal(objectNameSize(gitDir), null, 'a format it does not know');
    assert.equal(isTracked(wt, gitDir, '.github/hooks/fleet.json', s.env, s.home), true, 'asked git instead (which still reads the index)');
  });
  it('gives no answer for a split or sparse index, and isTracked then asks git', () => {
    const s = sandbox();
    const repo = s.repo('split');
    mkdirSync(join(repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(repo, '.github/hooks/fleet.json'), '{}\n');
    s.git(repo, 'add', '-A');
    s.git(repo, 'commit', '-qm', 'tracked');
    const gitDir = join(repo, '.git');
    const wt = { root: repo, gitDir, main: true };
    s.git(repo, 'update-index', '--split-index');
    assert.equal(isTrackedInIndex(gitDir, '.github/hooks/fleet.json'), null);
    assert.equal(isTracked(wt, gitDir, '.github/hooks/fleet.json', s.env, s.home), true);
    s.git(repo, 'update-index', '--no-split-index');
    s.git(repo, 'sparse-checkout', 'set', '--cone', 'nothing');
    s.git(repo, 'config', 'index.sparse', 'true');
    s.git(repo, 'sparse-checkout', 'reapply');
    assert.equal(isTrackedInIndex(gitDir, '.github/hooks/fleet.json'), null, 'a sparse index holds .github/ as one entry');
    assert.equal(isTracked(wt, gitDir, '.github/hooks/fleet.json', s.env, s.home), true);
  });
  it('reads past the untracked cache and the fsmonitor-free extensions git writes', () => {
    const s = sandbox();
    const repo = s.repo('untr');
    s.git(repo, 'config', 'core.untrackedCache', 'true');
    s.git(repo, 'config', 'index.threads', '2');
    s.git(repo, 'status', '--porcelain');
    s.git(repo, 'update-index', '--untracked-cache');
    assert.equal(isTrackedInIndex(join(repo, '.git'), 'README.md'), true);
    assert.equal(isTrackedInIndex(join(repo, '.git'), '.github/hooks/fleet.json'), false);
  });
  // Indexes larger than one read (64 KiB), made in one git call from a list: the reader stops at the path, so where it stops matters.
  const HOOK = '.github/hooks/fleet.json';
  /** Puts `paths` in the repository's index (one blob for all, no files written); `remove` takes paths out. */
  function setIndex(s: ReturnType<typeof sandbox>, repo: string, paths: string[], remove: string[] = []) {
    const oid = run('git', ['hash-object', '-w', '--stdin'], { cwd: repo, env: s.env, input: 'x\n' }).stdout.trim();
    const zero = '0'.repeat(oid.length);
    const input = [...remove.map((p) => `0 ${zero}\t${p}\n`), ...paths.map((p) => `100644 ${oid}\t${p}\n`)].join('');
    const r = run('git', ['update-index', '--index-info'], { cwd: repo, env: s.env, input });
    assert.equal(r.status, 0, r.stderr);
  }
  /** Paths that sort before and around the hook file's: dot folders, .github's other files, names one byte off. */
  const dotted = (n: number) => [
    ...Array.from({ length: n }, (_, i) => `.config/tool-${i}/settings.json`),
    ...Array.from({ length: n }, (_, i) => `.github/hooks/a-${i}.json`),
    '.github-x/a',
    '.github/hooks/fleet.jso',
    '.github/hooks/fleet.json.bak',
    '.github/hooks/fleet.jsoo',
    '.github/hookz',
    '!first',
    '-dash',
  ];
  const after = (n: number) => Array.from({ length: n }, (_, i) => `src/module-${i}/index.ts`);
  const probes = [HOOK, '.github/hooks/fleet.jso', '.github/hooks/a-7.json', '.github', '!first', 'src/module-0/index.ts', 'zzz', '.'];
  const agree = (s: ReturnType<typeof sandbox>, repo: string, what: string) => {
    for (const p of probes) assert.equal(isTrackedInIndex(join(repo, '.git'), p), gitTracks(repo, p, s.env, s.home), `${p}, ${what}`);
  };
  for (const version of ['2', '3', '4']) {
    it(`agrees with git on an index of many entries (version ${version}), the path after thousands of '.'-prefixed ones`, () => {
      const s = sandbox();
      const repo = s.repo(`big${version}`);
      setIndex(s, repo, [...dotted(1500), ...after(3000)]);
      s.git(repo, 'update-index', '--index-version', version);
      assert.ok(statSync(join(repo, '.git/index')).size > 4 * 64 * 1024, 'larger than a few reads');
      agree(s, repo, 'untracked');
      setIndex(s, repo, [HOOK]);
      s.git(repo, 'update-index', '--index-version', version);
      assert.equal(isTrackedInIndex(join(repo, '.git'), HOOK), true);
      agree(s, repo, 'tracked');
      // Rewritten within the same second, the same size: the hook file's entry renamed to a path of the same length.
      const st = statSync(join(repo, '.git/index'));
      setIndex(s, repo, ['.github/hooks/fleet.jsoX'], [HOOK]);
      const st2 = statSync(join(repo, '.git/index'));
      if (version !== '4') assert.equal(st2.size, st.size); // (version 4's prefix compression makes it a byte shorter)
      assert.equal(isTrackedInIndex(join(repo, '.git'), HOOK), false, 'the new index read, not an answer kept from the old one');
      agree(s, repo, 'rewritten');
    });
  }
  it('a split index: the path in the shared index is found by git, also when the main index has entries after it', () => {
    const s = sandbox();
    const repo = s.repo('bigsplit');
    setIndex(s, repo, [...dotted(200), HOOK, ...after(2000)]);
    s.git(repo, 'update-index', '--split-index');
    setIndex(s, repo, ['zz-added-after-the-split']); // in the main index, sorting after the path
    const gitDir = join(repo, '.git');
    assert.equal(isTrackedInIndex(gitDir, HOOK), null, 'the main index does not hold it: no answer');
    assert.equal(isTracked({ root: repo, gitDir, main: true }, gitDir, HOOK, s.env, s.home), true);
    assert.equal(isTrackedInIndex(gitDir, 'zz-added-after-the-split'), true, 'found in the main index');
    // Unsplit, the shared index stays beside it for a while: read to the end, the answer stands.
    s.git(repo, 'update-index', '--no-split-index');
    setIndex(s, repo, [], [HOOK]);
    assert.ok(readdirSync(gitDir).some((n) => n.startsWith('sharedindex.')));
    agree(s, repo, 'unsplit, a shared index left');
    assert.equal(isTrackedInIndex(gitDir, HOOK), false);
  });
  it('sparse checkout: skip-worktree entries are tracked; a sparse index answers outside its folder entries', () => {
    const s = sandbox();
    const repo = s.repo('bigsparse');
    mkdirSync(join(repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(repo, HOOK), '{}\n');
    mkdirSync(join(repo, 'keep'));
    writeFileSync(join(repo, 'keep/a.txt'), 'a\n');
    s.git(repo, 'add', '-A');
    s.git(repo, 'commit', '-qm', 'files');
    s.git(repo, 'sparse-checkout', 'set', '--cone', 'keep');
    const gitDir = join(repo, '.git');
    assert.equal(isTrackedInIndex(gitDir, HOOK), true, 'outside the cone, still in the index');
    s.git(repo, 'config', 'index.sparse', 'true');
    s.git(repo, 'sparse-checkout', 'reapply');
    assert.equal(isTrackedInIndex(gitDir, HOOK), null, '.github/ is one folder entry');
    assert.equal(isTracked({ root: repo, gitDir, main: true }, gitDir, HOOK, s.env, s.home), true);
    assert.equal(isTrackedInIndex(gitDir, 'README.md'), true);
    assert.equal(isTrackedInIndex(gitDir, 'keep/b.txt'), false);
    assert.equal(gitTracks(repo, 'keep/b.txt', s.env, s.home), false);
  });
  it('has no index: not tracked', () => {
    const s = sandbox();
    const dir = join(s.dir, 'fresh');
    s.git(s.dir, 'init', '-q', dir);
    assert.equal(isTrackedInIndex(join(dir, '.git'), '.github/hooks/fleet.json'), false);
  });
});

describe('locating a repository', () => {
  it('from a subfolder, from a linked worktree, and from inside .git', () => {
    const s = sandbox();
    const repo = s.repo('loc');
    mkdirSync(join(repo, 'a/b'), { recursive: true });
    assert.equal(locateRepo(join(repo, 'a/b')).root, repo);
    assert.equal(locateRepo(join(repo, '.git/hooks')).root, repo);
    s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'loc-wt'));
    const wt = locateRepo(join(s.dir, 'loc-wt'));
    assert.equal(wt.linked, true);
    assert.equal(wt.commonDir, join(repo, '.git'));
    rmSync(join(repo, 'a'), { recursive: true });
    assert.ok(existsSync(join(repo, '.git/worktrees')));
    void readFileSync;
  });
});

describe('the oldest Node', () => {
  it("is package.json's engines' first major, and doctor's fix names it", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { engines: { node: string } };
    assert.equal(Number(/^\^?(\d+)\./.exec(pkg.engines.node)?.[1]), OLDEST_NODE);
    assert.match(NO_NODE_FIX, new RegExp(`install Node ${OLDEST_NODE} or later`));
  });
});

describe('error lines', () => {
  it('a system error is said in words with what could not be done and where, never with its code or Node English', () => {
    const sb = sandbox('fleet-git-error-lines-');
    const missing = join(sb.dir, 'missing');
    const file = join(sb.dir, 'a-file');
    writeFileSync(file, '');
    const line = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return errorLine(e);
      }
      throw new Error('did not throw');
    };
    assert.equal(
      line(() => readFileSync(missing)),
      `cannot open ${missing}: does not exist`,
    );
    assert.equal(
      line(() => readdirSync(file)),
      `cannot list the folder ${file}: not a folder`,
    );
    assert.equal(
      line(() => JSON.parse('{')),
      line(() => JSON.parse('{')),
    );
    assert.doesNotMatch(
      line(() => readFileSync(missing)),
      /ENOENT|no such file/,
    );
  });
});

describe('the record of repositories', () => {
  it("the run's first write takes a killed fleet-git's temporary files; later writes leave one being written (a helper thread's: they share the PID)", () => {
    const s = sandbox();
    const u = userPaths(s.env, s.home);
    const repo = s.repo('recorded');
    const entry = { path: repo, commonDir: join(repo, '.git') };
    const temp = (name: string) => join(recordDir(u), `.${name}.fleet-git-${process.pid}-${Date.now().toString(36)}.tmp`);
    mkdirSync(recordDir(u), { recursive: true });
    const left = temp('0123456789abcdef0123456789abcdef');
    writeFileSync(left, '{}\n');
    recordRepo(u, entry);
    assert.ok(!existsSync(left), "the run's first write takes what a killed run left");
    const inFlight = temp('fedcba9876543210fedcba9876543210');
    writeFileSync(inFlight, '{}\n');
    recordRepo(u, { path: `${repo}-other`, commonDir: join(repo, 'other.git') });
    forgetRepo(u, join(repo, 'other.git'));
    forgetGone(u);
    assert.ok(existsSync(inFlight), 'no later write or removal of the run takes a temporary file');
    assert.deepEqual(readRecord(u).entries, [entry]);
  });

  it("a helper thread's write takes no temporary file: it shares the process's PID, so one being written by another thread looks like this process's leftover", async () => {
    const s = sandbox();
    const u = userPaths(s.env, s.home);
    const repo = s.repo('recorded');
    mkdirSync(recordDir(u), { recursive: true });
    const inFlight = join(recordDir(u), `.0123456789abcdef0123456789abcdef.fleet-git-${process.pid}-${Date.now().toString(36)}.tmp`);
    writeFileSync(inFlight, '{}\n');
    // record.ts as the bulk run's helper threads load it (bundled), run in a thread of this process.
    const bundle = join(s.dir, 'record.mjs');
    buildSync({
      entryPoints: [join(ROOT, 'src/core/repo/record.ts')],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
    });
    const helper = join(s.dir, 'helper.mjs');
    writeFileSync(
      helper,
      `import { workerData } from 'node:worker_threads';\nimport { recordRepo } from './record.mjs';\nrecordRepo(workerData.u, workerData.entry);\n`,
    );
    const worker = new Worker(helper, { workerData: { u, entry: { path: repo, commonDir: join(repo, '.git') } } });
    const [exit] = await once(worker, 'exit');
    assert.equal(exit, 0);
    assert.deepEqual(
      readRecord(u).entries.map((e) => e.path),
      [repo],
      'the helper wrote its entry',
    );
    assert.ok(existsSync(inFlight), 'and left the temporary file alone');
  });
});
