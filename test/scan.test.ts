// fleet-git scan on a generated workspace with every kind of repository and
// fleet state, run in-process (off a terminal: JSON only on stdout).
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Cli } from 'clipanion';
import type { Context } from '../src/commands/base.js';
import { ScanCommand } from '../src/commands/scan.js';
import { sandbox } from './helpers.js';
import { buildWorkspace, type Workspace } from './workspace.js';

interface Json {
  roots: string[];
  repos: any[];
  counts: Record<string, number>;
}

describe('scan', () => {
  let ws: Workspace;
  after(() => ws?.unlock());
  const sb = sandbox('fleet-git-scan-');
  before(() => {
    ws = buildWorkspace(sb, {
      enable: (p) => {
        const r = sb.cli(p, 'enable');
        assert.equal(r.status, 0, r.stderr);
      },
    });
  });
  const scan = async (...args: string[]): Promise<Json> => {
    const r = await sb.fleet(sb.dir, 'scan', '--json', ...args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', 'nothing on stderr off a terminal');
    return JSON.parse(r.stdout);
  };
  /** `kind rel-path [problem codes] {worktrees}` per row. */
  const summary = (doc: Json) =>
    doc.repos.map((r) => {
      const rel = r.path.startsWith(`${ws.root}/`) ? r.path.slice(ws.root.length + 1) : r.path;
      const codes = [
        ...r.problems.map((p: any) => p.code),
        ...r.worktrees.flatMap((w: any) => w.problems.map((p: any) => `${w.path.slice(ws.root.length + 1)}:${p.code}`)),
      ];
      const wts = r.worktrees.map((w: any) => w.path.slice(ws.root.length + 1));
      return `${r.kind} ${rel}${r.enabled ? ' enabled' : ''}${codes.length ? ` [${codes.join(' ')}]` : ''}${wts.length ? ` {${wts.join(' ')}}` : ''}`;
    });

  it('--json prints exactly one JSON document with every row, kind and problem', async () => {
    const r = await sb.fleet(sb.dir, 'scan', ws.root, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const doc = JSON.parse(r.stdout) as Json; // throws on anything but one JSON document
    assert.deepEqual(Object.keys(doc), ['roots', 'repos', 'counts']);
    assert.deepEqual(doc.roots, [ws.root]);
    const expected = [
      'repo archive/old',
      'bare mirrors/tool.git',
      'broken odd/broken',
      'broken odd/garbage',
      'stale odd/stale',
      'repo solo',
      'repo states/fleet-git enabled',
      'repo states/lefthook enabled [git-hook-displaced]',
      'repo states/tracked [hook-file-tracked]',
      'repo states/upstream [hook-file-upstream]',
      'repo work/app {work/app-wt}',
      'repo work/outer',
      'separate work/separate',
      'repo work/super',
      ws.lockedUnreadable ? 'unreadable locked' : 'repo locked/hidden',
    ].sort((a, b) => (a.split(' ')[1] < b.split(' ')[1] ? -1 : 1));
    assert.deepEqual(summary(doc), expected);
    for (const row of doc.repos) {
      assert.deepEqual(Object.keys(row).slice(0, 5), ['path', 'kind', 'enabled', 'problems', 'worktrees']);
      for (const p of row.problems) assert.deepEqual(Object.keys(p), ['code', 'message']);
      if (['bare', 'stale', 'broken', 'unreadable'].includes(row.kind))
        assert.equal(typeof row.reason, 'string', `${row.path} has a reason`);
    }
    const usable = ws.lockedUnreadable ? 10 : 11;
    assert.deepEqual(doc.counts, {
      repositories: usable,
      worktrees: 1,
      healthy: 1,
      withProblems: 3,
      notEnabled: usable - 4,
      notUsable: ws.lockedUnreadable ? 5 : 4,
    });
  });

  it('off a terminal prints one tab-separated line per repository and worktree: path, state, problem codes; the same rows as --json', async () => {
    const r = await sb.fleet(sb.dir, 'scan', ws.root);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const doc = await scan(ws.root);
    const expected = doc.repos.flatMap((row) => [
      [
        row.path,
        row.reason !== undefined
          ? 'not-usable'
          : row.problems.length || row.worktrees.some((w: any) => w.problems.length)
            ? 'problems'
            : row.enabled
              ? 'healthy'
              : 'not-enabled',
        row.problems.map((p: any) => p.code).join(',') || '-',
      ].join('\t'),
      ...row.worktrees.map((w: any) =>
        [
          w.path,
          w.problems.length ? 'problems' : w.enabled ? 'healthy' : 'not-enabled',
          w.problems.map((p: any) => p.code).join(',') || '-',
        ].join('\t'),
      ),
    ]);
    assert.equal(r.stdout, `${expected.join('\n')}\n`);
    const lines = r.stdout.trimEnd().split('\n');
    assert.ok(
      lines.every((l) => l.split('\t').length === 3),
      'three fields a line',
    );
    assert.ok(lines.includes(`${ws.p.lefthook}\tproblems\tgit-hook-displaced`), r.stdout);
    assert.ok(lines.includes(`${ws.p.fleetGit}\thealthy\t-`), r.stdout);
    assert.ok(lines.includes(`${ws.p.appWorktree}\tnot-enabled\t-`), r.stdout);
  });

  it('off a terminal, a path with a tab or a newline in it is one JSON string, so each line stays one row', async () => {
    const s2 = sandbox();
    const odd = s2.repo('a\tb\nc');
    const r = await s2.fleet(s2.dir, 'scan', s2.dir);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${JSON.stringify(odd)}\tnot-enabled\t-\n`);
  });

  it('reports the same state as status for each repository', async () => {
    const doc = await scan(ws.root, '--json');
    for (const p of [ws.p.fleetGit, ws.p.lefthook, ws.p.tracked, ws.p.upstream, ws.p.app]) {
      const st = await sb.fleet(p, 'status', '--json');
      assert.equal(st.status, 0, st.stderr);
      assert.deepEqual(
        doc.repos.find((r) => r.path === p),
        JSON.parse(st.stdout),
      );
    }
  });

  it('shows a linked worktree with its repository, also when the repository is outside the roots', async () => {
    const inside = await scan(join(ws.root, 'work'));
    assert.deepEqual(
      inside.repos.filter((r) => r.path.includes('app')).map((r) => [r.path, r.worktrees.map((w: any) => w.path)]),
      [[ws.p.app, [ws.p.appWorktree]]],
    );
    const onlyWt = await scan(ws.p.appWorktree);
    assert.equal(onlyWt.repos.length, 1);
    assert.equal(onlyWt.repos[0].path, ws.p.app);
    assert.equal(onlyWt.repos[0].outside, true);
    assert.deepEqual(
      onlyWt.repos[0].worktrees.map((w: any) => [w.path, w.kind]),
      [[ws.p.appWorktree, 'worktree']],
    );
  });

  it('--nested finds submodules and nested repositories; --depth and --ignore bound the walk', async () => {
    const nested = await scan(ws.root, '--nested');
    const sub = nested.repos.find((r) => r.path === ws.p.submodule);
    assert.equal(sub?.kind, 'submodule');
    assert.equal(sub?.enclosing, ws.p.superproject);
    assert.equal(nested.repos.find((r) => r.path === ws.p.inner)?.enclosing, ws.p.outer);
    assert.deepEqual(
      (await scan(ws.root, '--depth', '1')).repos.map((r) => r.path),
      [ws.p.solo],
    );
    const ignored = await scan(ws.root, '--ignore', 'states', '--ignore', 'odd');
    assert.ok(!ignored.repos.some((r) => r.path.includes('/states/') || r.path.includes('/odd/')));
    assert.ok(ignored.repos.some((r) => r.path === ws.p.solo));
  });

  it('an --ignore that matches nothing is said once on stderr; the output and exit code are as without it', async () => {
    const plain = await sb.fleet(sb.dir, 'scan', ws.root, '--json');
    const r = await sb.fleet(sb.dir, 'scan', ws.root, '--json', '--ignore', 'odd', '--ignore', 'nothing-like-this', '--ignore', 'stat/*');
    assert.equal(r.status, 0);
    assert.equal(
      r.stderr,
      `fleet-git: --ignore "nothing-like-this" matched nothing under ${ws.root}\nfleet-git: --ignore "stat/*" matched nothing under ${ws.root}\n`,
    );
    assert.deepEqual(
      JSON.parse(r.stdout).repos.map((x: any) => x.path),
      JSON.parse(plain.stdout)
        .repos.map((x: any) => x.path)
        .filter((p: string) => !p.startsWith(`${ws.root}/odd/`)),
    );
    // Off a terminal, in plain lines, the same.
    const lines = await sb.fleet(sb.dir, 'scan', ws.root, '--ignore', 'nothing-like-this');
    assert.equal(lines.status, 0);
    assert.equal(lines.stderr, `fleet-git: --ignore "nothing-like-this" matched nothing under ${ws.root}\n`);
    assert.equal(lines.stdout, (await sb.fleet(sb.dir, 'scan', ws.root)).stdout);
  });

  it('--check exits 1 when a repository or worktree has problems or is not usable, counting them on stderr; 0 when none has', async () => {
    const a = sb.repo('check/a');
    sb.repo('check/b'); // not enabled: no problem
    const root = join(sb.dir, 'check');
    assert.equal((await sb.fleet(a, 'enable')).status, 0);
    for (const args of [['--check'], ['--check', '--json']]) {
      const r = await sb.fleet(sb.dir, 'scan', root, ...args);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, '');
    }
    rmSync(join(a, '.github/hooks/fleet.json'));
    assert.equal((await sb.fleet(sb.dir, 'scan', root)).status, 0, 'without --check: 0, whatever it finds');
    for (const args of [['--check'], ['--check', '--json']]) {
      const r = await sb.fleet(sb.dir, 'scan', root, ...args);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.equal(r.stderr, 'fleet-git: scan --check: 1 with problems, 0 not usable (see above; fleet-git status REPO says what to do)\n');
    }
    const whole = await sb.fleet(sb.dir, 'scan', ws.root, '--check');
    assert.equal(whole.status, 1);
    assert.match(whole.stderr, /^fleet-git: scan --check: \d+ with problems, [1-9]\d* not usable/);
  });

  it('--check: a bare repository is listed as not usable and fails no check (it has no worktree for fleet-git)', async () => {
    const root = join(sb.dir, 'only-bare');
    mkdirSync(join(root, 'mirror.git'), { recursive: true });
    sb.git(join(root, 'mirror.git'), 'init', '-q', '--bare');
    const r = await sb.fleet(sb.dir, 'scan', root, '--check');
    assert.equal(r.stdout, `${join(root, 'mirror.git')}\tnot-usable\t-\n`, 'reported');
    assert.equal(r.stderr, '');
    assert.equal(r.status, 0);
    const j = await sb.fleet(sb.dir, 'scan', root, '--check', '--json');
    assert.equal(j.status, 0);
    assert.deepEqual(
      JSON.parse(j.stdout).repos.map((x: { kind: string; reason: string }) => [x.kind, x.reason]),
      [['bare', 'bare repository (no worktree)']],
    );
  });

  it("walks the current folder when given '.'", async () => {
    const r = await sb.fleet(join(ws.root, 'states'), 'scan', '.', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).repos.map((x: any) => x.path),
      [ws.p.fleetGit, ws.p.lefthook, ws.p.tracked, ws.p.upstream],
    );
  });

  it('exits 2 with one line for a root that does not exist, or a bad --depth', async () => {
    const missing = join(ws.root, 'no-such-folder');
    const r = await sb.fleet(sb.dir, 'scan', ws.root, missing);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `fleet-git: ${missing}: no such folder\n`);
    const d = await sb.fleet(sb.dir, 'scan', ws.root, '--depth', 'deep');
    assert.equal(d.status, 2);
    assert.equal(d.stderr.trim().split('\n').length, 1);
  });

  it('takes a negative number after --depth (and doctor --timeout) as its value, and refuses it in one line saying what is allowed; exit 2', async () => {
    for (const argv of [['--depth', '-1'], ['--depth=-1']]) {
      const r = await sb.fleet(sb.dir, 'scan', ws.root, ...argv);
      assert.equal(r.status, 2, argv.join(' '));
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, 'fleet-git: --depth takes a whole number of folder levels (0 or more), not "-1"\n');
    }
    const t = await sb.fleet(sb.dir, 'doctor', '--live', '--timeout', '-3');
    assert.equal(t.status, 2);
    assert.equal(t.stderr, 'fleet-git: --timeout -3: give a whole number of seconds from 1 to 50\n');
  });
});

describe('scan: what Copilot makes of each repository', () => {
  const sb = sandbox('fleet-git-scan-copilot-');
  const root = join(sb.dir, 'code');
  const p = { trusted: sb.repo('code/trusted'), untrusted: sb.repo('code/untrusted'), plain: sb.repo('code/plain') };
  mkdirSync(join(root, 'bare.git'));
  sb.git(join(root, 'bare.git'), 'init', '-q', '--bare');
  const byPath = (doc: Json) => Object.fromEntries(doc.repos.map((r) => [r.path.slice(root.length + 1), r.copilot]));

  before(async () => {
    assert.equal((await sb.fleet(p.trusted, 'enable', '--trust')).status, 0);
    assert.equal((await sb.fleet(p.untrusted, 'enable')).status, 0);
  });

  it('JSON: "copilot" {trusted, hooks} on each usable row, as status --json has it; each level and both', async () => {
    const scan = async () => JSON.parse((await sb.fleet(sb.dir, 'scan', root, '--json')).stdout) as Json;
    let doc = await scan();
    assert.deepEqual(byPath(doc), {
      'bare.git': undefined,
      plain: { trusted: false, hooks: 'none' },
      trusted: { trusted: true, hooks: 'repo' },
      untrusted: { trusted: false, hooks: 'repo' },
    });
    for (const r of doc.repos.filter((x) => x.copilot))
      assert.deepEqual(JSON.parse((await sb.fleet(r.path, 'status', '--json')).stdout).copilot, r.copilot);
    assert.equal((await sb.fleet(sb.dir, 'enable', '--user')).status, 0);
    doc = await scan();
    assert.deepEqual(byPath(doc), {
      'bare.git': undefined,
      plain: { trusted: false, hooks: 'user' },
      trusted: { trusted: true, hooks: 'both' },
      untrusted: { trusted: false, hooks: 'both' },
    });
    // A user-level file that is not fleet-git's is no user level.
    writeFileSync(join(sb.env.COPILOT_HOME, 'hooks', 'fleet.json'), '{"hooks":{}}');
    assert.deepEqual(byPath(await scan()).untrusted, { trusted: false, hooks: 'repo' });
    if (process.getuid?.() !== 0) {
      // Nor is one that cannot be read; nor does it stop the scan.
      chmodSync(join(sb.env.COPILOT_HOME, 'hooks', 'fleet.json'), 0o000);
      assert.deepEqual(byPath(await scan()).untrusted, { trusted: false, hooks: 'repo' });
    }
    rmSync(join(sb.env.COPILOT_HOME, 'hooks', 'fleet.json'));
  });

  it('the table: a Copilot note only on an enabled repository copilot -p would skip, the others counted once; and how many would be skipped', async () => {
    let out = '';
    const stdout = Object.assign(
      new Writable({
        write(c, _e, cb) {
          out += c;
          cb();
        },
      }),
      { isTTY: true },
    );
    const cli = new Cli<Context>();
    cli.register(ScanCommand);
    const code = await cli.run(['scan', root], {
      ...Cli.defaultContext,
      stdout,
      stderr: new Writable({
        write(_c, _e, cb) {
          cb();
        },
      }),
      cwd: sb.dir,
      env: sb.env,
      home: sb.home,
    });
    assert.equal(code, 0, out);
    const line = (name: string) => out.split('\n').find((l) => l.trimStart().startsWith(join(root, name))) ?? '';
    assert.match(line('untrusted'), /copilot: untrusted, so copilot -p skips its hooks$/);
    // The others are counted once, not repeated on each line.
    for (const name of ['trusted', 'plain', 'bare.git']) assert.doesNotMatch(line(name), /copilot:/, name);
    assert.match(
      out,
      /^Copilot, by repository: 1 trusted with repository hooks, 1 untrusted with no hooks, 1 untrusted with repository hooks \(marked above\)$/m,
    );
    assert.match(out, /^1 enabled repository is not trusted by Copilot: copilot -p sessions skip their hooks silently/m);
  });
});

describe('scan without a folder', () => {
  it('lists exactly the repositories fleet-git recorded, wherever they are; one gone since is said until a command that writes forgets it; what the git hooks provision is recorded; scan.roots in the config file still rule', async () => {
    const s = sandbox('fleet-git-scan-record-');
    const a = s.repo('work/a');
    const b = s.repo('other/deep/b');
    s.git(b, 'worktree', 'add', '-q', join(s.dir, 'b-wt'), '-b', 'wt');
    s.repo('work/not-enabled');
    const c = s.repo('gone/c');
    for (const r of [a, c]) assert.equal((await s.fleet(r, 'enable')).status, 0);
    assert.equal((await s.fleet(s.dir, 'enable', '--under', join(s.dir, 'other'))).status, 0);
    rmSync(join(s.dir, 'gone'), { recursive: true });
    // Run from a folder holding none of them.
    const r = await s.fleet(s.home, 'scan', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(
      doc.repos.map((x: any) => [x.path, x.enabled, x.worktrees.map((w: any) => w.path)]),
      [
        [b, true, [join(s.dir, 'b-wt')]],
        [a, true, []],
      ],
    );
    assert.deepEqual(
      doc.record.gone.map((g: any) => g.path),
      [c],
    );
    assert.match(doc.record.gone[0].reason, /^gone: /);
    assert.equal(doc.record.partial, false);
    // scan writes nothing: the gone entry is said again, off a terminal one line, until a command that writes the
    // data folder (here an enable with nothing to change) forgets it.
    assert.equal(
      (await s.fleet(s.home, 'scan')).stdout,
      `${b}\thealthy\t-\n${join(s.dir, 'b-wt')}\thealthy\t-\n${a}\thealthy\t-\n${c}\tgone\t-\n`,
    );
    assert.equal((await s.fleet(a, 'enable')).status, 0);
    // Then the next scan lists the others only, with the worktree git's hook has provisioned since, and a clone
    // that setup's hook provisioned: the git side records what it provisions.
    s.git(b, 'worktree', 'add', '-q', join(s.dir, 'b-wt2'), '-b', 'wt2');
    assert.equal((await s.fleet(s.home, 'setup')).status, 0);
    const cloned = join(s.dir, 'clones', 'b2');
    s.git(s.dir, 'clone', '-q', b, cloned);
    const bLines = `${b}\thealthy\t-\n${join(s.dir, 'b-wt')}\thealthy\t-\n${join(s.dir, 'b-wt2')}\thealthy\t-\n`;
    const lines = await s.fleet(s.home, 'scan');
    assert.equal(lines.stdout, `${cloned}\thealthy\t-\n${bLines}${a}\thealthy\t-\n`);
    assert.equal((await s.fleet(cloned, 'disable')).status, 0);
    // disable takes a repository out of the record.
    assert.equal((await s.fleet(a, 'disable')).status, 0);
    assert.equal((await s.fleet(s.home, 'scan')).stdout, bLines);
    // Folders named in the config file are what no folder means, as before.
    mkdirSync(join(s.env.XDG_CONFIG_HOME, 'fleet-git'), { recursive: true });
    writeFileSync(
      join(s.env.XDG_CONFIG_HOME, 'fleet-git', 'config.json5'),
      `{ scan: { roots: [${JSON.stringify(join(s.dir, 'work'))}] } }`,
    );
    const cfg = JSON.parse((await s.fleet(s.home, 'scan', '--json')).stdout);
    assert.deepEqual(
      cfg.repos.map((x: any) => x.path),
      [a, join(s.dir, 'work/not-enabled')],
    );
    assert.equal(cfg.record, undefined);
  });
});
