// What fleet-git does only on a terminal, run on a real pseudo-terminal
// (pty.ts): scan's table and colours, the progress line of a long walk,
// remove's y/N question, run's profile picker, help's width and doctor --live's progress.
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { styleText } from 'node:util';
import { closeSync, constants, existsSync, mkdirSync, openSync, rmSync, watch, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { fakeCopilot } from './fake-copilot.js';
import { CLI, describeNeeding, needs, sandbox, snapshot } from './helpers.js';
import { ptyRun, ptySpawn, type PtyOptions } from './pty.js';
import { runCli } from './spawn.js';
import { acquireLock } from '../src/fs/lock.js';
import { LOCK_FILE } from '../src/paths.js';
import { buildWorkspace, type Workspace } from './workspace.js';
import { shQuote } from '../src/core/repo/templates.js';

const HOOK = '.github/hooks/fleet.json';
/** Every test here runs on a pseudo-terminal made by util-linux's script (test/pty.ts). */
const skip = needs('script');
const fleetGit = (args: string[], opts: PtyOptions & { answers?: Array<[string | RegExp, string]> }) =>
  ptyRun([process.execPath, CLI, ...args], opts);

/** The progress line and the sequence that clears it (see withProgress in src/commands/report.ts). */
const PROGRESS = /\rfleet-git: looking for repositories: \d+ folders read\x1b\[K/g;
const CLEAR = '\r\x1b[K';
const SGR = /\x1b\[[0-9;]*m/g;
/** What stays on the screen: line ends made \n, a progress line that was cleared taken out (a slow machine may show one). */
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const screen = (raw: string) => raw.replace(new RegExp(`(${PROGRESS.source})+${escape(CLEAR)}`, 'g'), '').replace(/\r\n/g, '\n');
const withoutNoColor = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'NO_COLOR'));

const TITLES = {
  healthy: 'Enabled and healthy',
  withProblems: 'With problems',
  notEnabled: 'Not enabled',
  notUsable: 'Not usable',
} as const;

/** The table's sections: title -> the lines under it, in order of appearance. */
function sections(plain: string): Array<{ title: string; count: number; lines: string[] }> {
  const out: Array<{ title: string; count: number; lines: string[] }> = [];
  const re = new RegExp(`^(${Object.values(TITLES).join('|')}) \\((\\d+)\\)$`);
  for (const line of plain.split('\n')) {
    const m = re.exec(line);
    if (m) out.push({ title: m[1]!, count: Number(m[2]), lines: [] });
    else if (out.length && line) out[out.length - 1]!.lines.push(line);
  }
  return out;
}

describeNeeding(skip, 'scan on a terminal', () => {
  let ws: Workspace;
  let json: { roots: string[]; repos: Array<{ path: string; kind: string }>; counts: Record<string, number> };
  after(() => ws?.unlock());
  const sb = sandbox('fleet-git-tty-scan-');
  before(() => {
    ws = buildWorkspace(sb, {
      enable: (p) => {
        const r = sb.cli(p, 'enable');
        assert.equal(r.status, 0, r.stderr);
      },
    });
    const r = sb.cli(sb.dir, 'scan', ws.root, '--json');
    assert.equal(r.status, 0, r.stderr);
    json = JSON.parse(r.stdout); // --json (scan.test.ts checks it in full)
  });

  it('prints a table grouped by state, each path under its group, and the counts line after it; no JSON', async () => {
    const r = await fleetGit(['scan', ws.root], { cwd: sb.dir, env: sb.env });
    assert.equal(r.code, 0, r.text);
    const plain = screen(r.raw);
    assert.doesNotMatch(plain, /^\s*[{[]/m, 'no JSON on a terminal');
    assert.ok(!plain.includes('"repos"'));
    const c = json.counts;
    const secs = sections(plain);
    // The groups in order, empty ones left out, each titled with its count.
    const expected = (
      [
        ['healthy', c.healthy],
        ['withProblems', c.withProblems],
        ['notEnabled', c.notEnabled],
        ['notUsable', c.notUsable],
      ] as const
    )
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${TITLES[k]} (${n})`);
    assert.deepEqual(
      secs.map((s) => `${s.title} (${s.count})`),
      expected,
    );
    assert.deepEqual(expected.slice(0, 2), ['Enabled and healthy (1)', 'With problems (3)'], 'the workspace has every group');
    // Every repository is a row (a line starting with two spaces and its path) in exactly one group, as many rows as the title says.
    const rowsOf = (s: { lines: string[] }) =>
      json.repos.filter((x) => s.lines.some((l) => new RegExp(`^  ${escape(x.path)}( |$)`).test(l))).map((x) => x.path);
    for (const s of secs) assert.equal(rowsOf(s).length, s.count, `${s.title}: ${rowsOf(s).join(', ')}`);
    assert.deepEqual(secs.flatMap(rowsOf).sort(), json.repos.map((x) => x.path).sort());
    const groupOf = (path: string) => secs.find((s) => rowsOf(s).includes(path))?.title;
    assert.equal(groupOf(ws.p.fleetGit), TITLES.healthy);
    for (const p of [ws.p.lefthook, ws.p.tracked, ws.p.upstream]) assert.equal(groupOf(p), TITLES.withProblems, p);
    for (const p of [ws.p.solo, ws.p.app, ws.p.archived]) assert.equal(groupOf(p), TITLES.notEnabled, p);
    for (const p of [ws.p.bare, ws.p.stale, ws.p.broken, ws.p.garbage]) assert.equal(groupOf(p), TITLES.notUsable, p);
    // The linked worktree is shown under its repository.
    const app = secs.find((s) => s.title === TITLES.notEnabled)!.lines;
    const appRow = app.findIndex((l) => new RegExp(`^  ${escape(ws.p.app)}( |$)`).test(l));
    const nextRow = app.findIndex((l, i) => i > appRow && /^  \S/.test(l));
    assert.ok(
      app.slice(appRow + 1, nextRow < 0 ? undefined : nextRow).some((l) => l.startsWith(`    worktree ${ws.p.appWorktree}: `)),
      app.join('\n'),
    );
    // The counts line follows the table (notes may follow it).
    const lines = plain.trimEnd().split('\n');
    assert.equal(c.worktrees, 1);
    const counts = `${c.repositories} repositories and 1 linked worktree under ${ws.root}: ${c.healthy} healthy, ${c.withProblems} with problems, ${c.notEnabled} not enabled, ${c.notUsable} not usable`;
    assert.equal(lines.filter((l) => l === counts).length, 1, `the counts line:\n${counts}\nin:\n${plain}`);
    const lastRow = lines.reduce((last, l, i) => (/^ {2}\//.test(l) ? i : last), -1);
    assert.ok(lines.indexOf(counts) > lastRow, 'the counts line comes after every row');
  });

  it('colours the table on a terminal, and NO_COLOR=1 gives the same text without a colour code', async () => {
    const coloured = await fleetGit(['scan', ws.root], { cwd: sb.dir, env: withoutNoColor(sb.env) });
    assert.equal(coloured.code, 0, coloured.text);
    const c = screen(coloured.raw);
    const style = (f: string[], t: string) => f.reduceRight((x, s) => styleText(s as 'bold', x, { validateStream: false }), t);
    assert.ok(c.includes(style(['bold', 'green'], `${TITLES.healthy} (1)`)), 'the healthy title is bold green');
    assert.ok(
      c.includes(style(['bold', 'red'], `${TITLES.notUsable} (`).replace(/\x1b\[39m\x1b\[22m$/, '')),
      'the not usable title is bold red',
    );
    assert.ok(c.includes(style(['green'], ws.p.fleetGit)), 'a healthy path is green');
    // The same text without a colour code: NO_COLOR, --color=never, FORCE_COLOR=0; --color=always beats NO_COLOR.
    for (const [args, env] of [
      [[], { NO_COLOR: '1' }],
      [['--color=never'], {}],
      [['--color', 'never'], {}],
      [[], { FORCE_COLOR: '0' }],
    ] as const) {
      const plain = await fleetGit(['scan', ws.root, ...args], { cwd: sb.dir, env: { ...withoutNoColor(sb.env), ...env } });
      assert.equal(plain.code, 0, plain.text);
      assert.doesNotMatch(plain.raw, SGR, `${args.join(' ')} ${JSON.stringify(env)}`);
      assert.equal(screen(plain.raw), c.replace(SGR, ''));
    }
    const always = await fleetGit(['scan', ws.root, '--color=always'], { cwd: sb.dir, env: { ...sb.env, NO_COLOR: '1' } });
    assert.equal(screen(always.raw), c);
  });

  it('off a terminal: no colour, unless FORCE_COLOR or --color=always asks for it (help, here); a bad --color is exit 2', () => {
    const plain = sb.cli(sb.dir, 'help');
    assert.doesNotMatch(plain.stdout, SGR);
    for (const [args, env] of [
      [['--color=always'], {}],
      [[], { FORCE_COLOR: '1' }],
    ] as const) {
      const r = spawnSync(process.execPath, [CLI, 'help', ...args], {
        cwd: sb.dir,
        env: { ...withoutNoColor(sb.env), ...env },
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, SGR, `${args.join(' ')} ${JSON.stringify(env)}`);
      assert.match(r.stdout.replace(SGR, ''), /fleet-git enable /);
    }
    const bad = sb.cli(sb.dir, 'status', '--color=sometimes');
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, 'fleet-git: --color takes auto, always or never, not "sometimes"\n');
  });

  it('--json on a terminal prints the JSON document only', async () => {
    const r = await fleetGit(['scan', ws.root, '--json'], { cwd: sb.dir, env: withoutNoColor(sb.env) });
    assert.equal(r.code, 0, r.text);
    assert.deepEqual(JSON.parse(screen(r.raw)), json);
  });
});

/** Makes `fifo` a FIFO; once fleet-git has opened it, waits `holdMs`, then writes `text` (a git config) and removes it. */
async function holdFifo(fifo: string, holdMs: number, text = '[core]\n\tbare = true\n'): Promise<void> {
  execFileSync('mkfifo', [fifo]);
  try {
    let fd: number | undefined;
    for (let i = 0; fd === undefined; i++) {
      try {
        fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK); // ENXIO until a reader has it open
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENXIO') throw e;
        if (i > 3000) throw new Error(`fleet-git never opened ${fifo}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    await new Promise((r) => setTimeout(r, holdMs));
    writeSync(fd, text);
    closeSync(fd);
  } finally {
    execFileSync('rm', ['-f', fifo]);
  }
}

describeNeeding(skip, 'scan progress line', () => {
  // A walk that takes as long as the test wants, whatever the machine's speed: a
  // bare-looking folder whose `config` is a FIFO. Discovery reads that file to
  // tell a bare repository, so it waits until the test writes to the FIFO.
  const sb = sandbox('fleet-git-tty-progress-');
  const root = join(sb.dir, 'ws');
  const slow = join(root, 'slow.git');
  const fifo = join(slow, 'config');
  before(() => {
    sb.repo('ws/a');
    sb.repo('ws/b');
    mkdirSync(join(slow, 'objects'), { recursive: true });
    mkdirSync(join(slow, 'refs'));
    writeFileSync(join(slow, 'HEAD'), 'ref: refs/heads/main\n');
  });

  it('shows on a terminal once the walk has taken more than 300 ms, and is cleared before the table', async () => {
    const run = ptySpawn([process.execPath, CLI, 'scan', root], { cwd: sb.dir, env: sb.env });
    await holdFifo(fifo, 600);
    const r = await run.done;
    assert.equal(r.code, 0, r.text);
    const shown = r.raw.lastIndexOf('\rfleet-git: looking for repositories: ');
    assert.ok(shown >= 0, `a progress line was shown: ${JSON.stringify(r.raw)}`);
    assert.match(
      r.raw.slice(shown),
      /^\rfleet-git: looking for repositories: \d+ folders read\x1b\[K\r\x1b\[K/,
      'the last progress line is cleared at once',
    );
    assert.ok(!r.raw.slice(0, shown).includes('\n'), 'nothing was printed before or between progress lines');
    const table = screen(r.raw);
    assert.match(table, new RegExp(`^Not enabled \\(2\\)\\n  ${escape(join(root, 'a'))}`), 'the table starts on a clean line');
    assert.match(table, new RegExp(`Not usable \\(1\\)\\n  ${escape(slow)}( |\\n)`));
    assert.ok(!table.includes('looking for repositories'));
  });

  it('never shows off a terminal, however long the walk', async () => {
    const child = spawn(process.execPath, [CLI, 'scan', root, '--json'], {
      cwd: sb.dir,
      env: sb.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = new Promise((r) => child.on('close', r));
    await holdFifo(fifo, 600);
    assert.equal(await code, 0, stderr);
    assert.equal(stderr, '');
    assert.deepEqual(
      JSON.parse(stdout).repos.map((x: { path: string; kind: string }) => `${x.kind} ${x.path}`),
      [`repo ${join(root, 'a')}`, `repo ${join(root, 'b')}`, `bare ${slow}`],
    );
  });
});

describeNeeding(skip, 'bulk progress line', () => {
  // enable --under and remove --yes: the count of repositories done, while they change them. The line shows for
  // b-slow when its lock comes free 300 ms or more after the changes began, so the test holds that lock (fleet-git
  // waits for a live holder) until 600 ms after they began, which it sees when fleet-git takes a-locked's lock,
  // the first repository's: the run takes that long on any machine, however slowly the CLI starts and walks.
  // a-locked then fails (a git process holds its index lock).
  const sb = sandbox('fleet-git-tty-bulk-');
  const root = join(sb.dir, 'ws');
  const indexLock = join(root, 'a-locked', '.git', 'index.lock');
  before(() => {
    for (const n of ['a-locked', 'b-slow', 'c']) sb.repo(`ws/${n}`);
    writeFileSync(indexLock, '');
  });
  /** Takes b-slow's lock as fleet-git does, and lets it go 600 ms after fleet-git has taken a-locked's (call it before the run). */
  const holdLock = () => {
    const release = acquireLock(join(root, 'b-slow', '.git', LOCK_FILE), { waitMs: 0 });
    return new Promise<void>((done, fail) => {
      let gone = false;
      const letGo = (error?: Error) => {
        if (gone) return;
        gone = true;
        watcher.close();
        clearTimeout(limit);
        setTimeout(() => (release(), error ? fail(error) : done()), error ? 0 : 600);
      };
      const watcher = watch(join(root, 'a-locked', '.git'), (_, name) => name === LOCK_FILE && letGo());
      const limit = setTimeout(() => letGo(new Error("fleet-git never took a-locked's lock in 30 s")), 30_000);
    });
  };
  const LINE = (verb: string) => new RegExp(`\\rfleet-git: ${verb}: (\\d) of 3 repositories done, (\\d) failed\\x1b\\[K`, 'g');

  for (const [verb, args, summary] of [
    ['enable', ['enable', '--under', root, '-q'], /^enable: 2 changed, 0 unchanged, 1 failed/m],
    ['remove', ['remove', root, '--yes', '-q'], /^remove: 2 changed, 0 unchanged, 1 failed/m],
  ] as const) {
    it(`${verb}: on a terminal, repositories done of the total and the failures so far, replaced in place and cleared before the summary`, async () => {
      if (verb === 'remove') {
        // a-locked enabled too, so that remove has all three to do
        rmSync(indexLock);
        assert.equal(sb.cli(join(root, 'a-locked'), 'enable').status, 0);
        writeFileSync(indexLock, '');
      }
      const held = holdLock();
      const r = await ptyRun([process.execPath, CLI, ...args], { cwd: sb.dir, env: sb.env });
      await held;
      assert.equal(r.code, 1, r.text);
      const lines = [...r.raw.matchAll(LINE(verb))];
      assert.ok(lines.length > 0, `a progress line was shown: ${JSON.stringify(r.raw)}`);
      // a-locked failed at once; the line shows once b-slow is done, after 1 s, and c may follow.
      const last = lines.at(-1)!;
      assert.match(last[1]!, /^[23]$/, 'repositories done');
      assert.equal(last[2], '1', 'failures so far');
      assert.ok(r.raw.slice(last.index! + last[0].length).startsWith('\r\x1b[K'), 'the last line is cleared at once');
      const shown = screen(r.raw.replace(LINE(verb), '').replace(/\r\x1b\[K/g, ''));
      assert.match(shown, summary);
      assert.match(shown, /a-locked: failed: a git process holds/);
      assert.ok(!r.raw.slice(last.index! + last[0].length).includes('repositories done'), 'nothing after it is a progress line');
    });
  }

  it('never off a terminal', async () => {
    const held = holdLock();
    const r = await runCli(['enable', '--under', root, '-q'], { cwd: sb.dir, env: sb.env });
    await held;
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^enable: 2 changed, 0 unchanged, 1 failed/m);
    assert.match(r.stderr, /^\S*a-locked: failed: a git process holds [^\n]*\n$/);
  });
});

describeNeeding(skip, 'remove on a terminal', () => {
  // A hostile folder name: every path goes through the `script -c` command line.
  const sb = sandbox(`fleet-git-tty it's "$(touch pwned)" \`x\` `);
  const root = join(sb.dir, 'ws');
  const repos = ['one', 'two', 'three'].map((n) => join(root, n));
  let enabled: Record<string, string>;
  const snap = () => snapshot(root, (rel) => /(^|\/)(index|logs|COMMIT_EDITMSG|ORIG_HEAD|FETCH_HEAD|packed-refs)$/.test(rel));
  before(() => {
    for (const p of repos) sb.repo(p.slice(sb.dir.length + 1));
    const r = sb.cli(sb.dir, 'enable', '--under', root);
    assert.equal(r.status, 0, r.stderr);
    for (const p of repos) assert.ok(existsSync(join(p, HOOK)), p);
    enabled = snap();
  });
  const QUESTION = /3 of 3 repositories under .* have fleet-git or upstream fleet files\. Remove it from all 3\? \[y\/N\] $/;

  // [what is typed, its echo on the question's line]
  for (const [what, answer, echo] of [
    ['"n"', 'n\n', 'n'],
    ['just Enter', '\n', ''],
    ['Ctrl-D', '\x04', ''],
  ] as const) {
    it(`asks y/N first; ${what} changes nothing`, async () => {
      const r = await fleetGit(['remove', root], { cwd: sb.dir, env: sb.env, answers: [[/\[y\/N\] /, answer]] });
      assert.equal(r.code, 0, r.text);
      const lines = r.text.trimEnd().split('\n');
      assert.match(lines[0]!, new RegExp(`^${QUESTION.source.slice(0, -1)}${echo}$`), r.text);
      assert.equal(lines.at(-1), 'fleet-git: nothing was changed');
      assert.ok(!r.text.includes('remove:'), 'no counts: nothing ran');
      assert.deepEqual(snap(), enabled);
    });
  }

  it('"y" removes fleet-git from every repository', async () => {
    const r = await fleetGit(['remove', root], { cwd: sb.dir, env: sb.env, answers: [[QUESTION, 'y\n']] });
    assert.equal(r.code, 0, r.text);
    assert.match(r.text, /^remove: 3 changed, 0 unchanged, 0 failed/m);
    for (const p of repos) {
      assert.ok(!existsSync(join(p, HOOK)), p);
      const st = sb.cli(p, 'status', '--json');
      assert.equal(JSON.parse(st.stdout).enabled, false, p);
    }
    assert.notDeepEqual(snap(), enabled);
    assert.ok(!existsSync(join(process.cwd(), 'pwned')) && !existsSync(join(sb.dir, 'pwned')), 'nothing in the path ran');
  });
});

describeNeeding(skip, 'run on a terminal: the profile picker', () => {
  const MODELS = {
    models: [
      { name: 'alpha', tool: 'copilot', model: 'gpt-4.1' },
      { name: 'other', tool: 'claude', model: 'opus' },
      { name: 'beta', tool: 'copilot', model: 'claude-sonnet-4.5', env: { BETA_VAR: '1' } },
    ],
  };
  const setup = () => {
    const sb = sandbox('fleet-git-tty-run-');
    const fake = fakeCopilot(sb, MODELS);
    return { ...fake, repo: sb.repo('proj') };
  };
  const LIST = 'Copilot model profiles:\n  1. alpha (gpt-4.1)\n  2. beta (claude-sonnet-4.5)\nPick one [1-2]: ';

  for (const [what, answer, name, model] of [
    ['"2"', '2', 'beta', 'claude-sonnet-4.5'],
    ['a name', 'alpha', 'alpha', 'gpt-4.1'],
  ] as const) {
    it(`lists the Copilot profiles; choosing ${what} starts copilot with that profile`, async () => {
      const t = setup();
      const r = await fleetGit(['run', '--', '--exit', '5'], { cwd: t.repo, env: t.env, answers: [['Pick one [1-2]: ', `${answer}\n`]] });
      assert.ok(r.text.startsWith(LIST), r.text);
      assert.equal(r.code, 5, `copilot's exit code: ${r.text}`);
      const rec = t.recorded();
      assert.equal(rec.env.FLEET_MODEL_NAME, name);
      assert.equal(rec.env.COPILOT_MODEL, model);
      assert.equal(rec.env.BETA_VAR, name === 'beta' ? '1' : undefined);
      assert.deepEqual(rec.argv, ['--allow-all', '--exit', '5']);
      assert.equal(rec.cwd, t.repo);
    });
  }

  // [what is typed, its echo]: a number out of range, a profile for another tool, no such name, Ctrl-D.
  for (const [bad, echo] of [
    ['9\n', '9'],
    ['other\n', 'other'],
    ['nope\n', 'nope'],
    ['\x04', ''],
  ] as const) {
    it(`an answer that is no Copilot profile (${JSON.stringify(bad)}) is one line, exit 2, and copilot does not start`, async () => {
      const t = setup();
      const r = await fleetGit(['run'], { cwd: t.repo, env: t.env, answers: [['Pick one [1-2]: ', bad]] });
      assert.equal(r.code, 2, r.text);
      assert.equal(r.text, `${LIST}${echo}\nfleet-git: no profile chosen (profiles: alpha, beta)\n`);
      assert.ok(!existsSync(t.log), 'copilot was not started');
    });
  }
});

describeNeeding(skip, 'reading order on a terminal', () => {
  // stdout and stderr are one stream on a terminal: what was left alone (stderr) comes before the note that explains it (stdout).
  const sb = sandbox('fleet-git-tty-order-');
  it("enable, and its --dry-run, in a repository with the user's own hook file: the line left alone, then the note that explains it", async () => {
    const repo = sb.repo('own');
    mkdirSync(join(repo, '.github', 'hooks'), { recursive: true });
    writeFileSync(join(repo, HOOK), '{"version": 1, "hooks": {}}\n');
    for (const args of [['enable'], ['enable', '--dry-run']]) {
      const r = await fleetGit(args, { cwd: repo, env: sb.env });
      assert.equal(r.code, args.length > 1 ? 0 : 1, r.text);
      const left = r.text.indexOf(`left ${join(repo, HOOK)} alone`);
      const note = r.text.indexOf('note: so nothing else was changed here');
      assert.ok(left >= 0 && note >= 0, r.text);
      assert.ok(left < note, `${args.join(' ')}: the explanation comes after the line it explains:\n${r.text}`);
    }
  });
});

describeNeeding(skip, 'help on a terminal', () => {
  const sb = sandbox('fleet-git-tty-help-');
  /** `fleet-git ARGS` on a terminal of `cols` columns; what it showed, colour codes taken out, and the raw text. */
  const onTerminal = async (cols: number, args: string[], env: Record<string, string>) => {
    const r = await ptyRun(['sh', '-c', `stty cols ${cols} rows 50 && exec "$0" "$@"`, process.execPath, CLI, ...args], {
      cwd: sb.dir,
      env,
    });
    assert.equal(r.code, 0, r.text);
    return { raw: r.text, plain: r.text.replace(SGR, '') };
  };
  /** The words of a help text but the rules' (a cut word would be two). */
  const words = (text: string) => text.split(/\s+/).filter((w) => w && !/^━+$/.test(w));

  for (const cols of [80, 60]) {
    it(`help enable and the list of commands fit ${cols} columns, in colour or not: no line wraps, no word is cut, the options' descriptions in one column`, async () => {
      for (const args of [['help', 'enable'], ['help']]) {
        const piped = sb.cli(sb.dir, ...args, '--color=never');
        assert.equal(piped.status, 0, piped.stderr);
        for (const env of [withoutNoColor(sb.env), sb.env]) {
          const { raw, plain } = await onTerminal(cols, args, env);
          const what = `${args.join(' ')}, ${cols} columns, ${env.NO_COLOR ? 'NO_COLOR' : 'colour'}`;
          if (!env.NO_COLOR) assert.match(raw, SGR, `${what}: coloured`);
          const long = plain.split('\n').filter((l) => [...l].length >= cols);
          assert.deepEqual(long, [], `${what}: every line shorter than the terminal`);
          assert.deepEqual(words(plain), words(piped.stdout), `${what}: the same words as off a terminal, none cut`);
          if (args.length === 1) continue;
          assert.ok(
            plain.split('\n').some((l) => /\bFORCE_COLOR\b/.test(l)),
            what,
          );
          // Each option's description starts in the same column, with or without a value.
          const starts = plain
            .split('\n')
            .filter((l) => /^ {2}-/.test(l))
            .map((l) => /^ {2}\S+(?: [A-Z]+)? +/.exec(l)![0].length);
          assert.ok(starts.length > 5 && new Set(starts).size === 1, `${what}: ${starts.join(' ')}\n${plain}`);
        }
      }
    });
  }
});

describeNeeding(skip, 'doctor --live on a terminal', () => {
  // A copilot that runs until the test lets it end (it sees the progress line first), whatever the machine's speed.
  const sb = sandbox('fleet-git-tty-live-');
  const go = join(sb.dir, 'go');
  const fake = join(sb.dir, 'copilot');
  before(() => {
    writeFileSync(fake, `#!/bin/sh\nwhile [ ! -e ${shQuote(go)} ]; do sleep 0.05; done\n`, { mode: 0o755 });
  });
  const LIVE = /\rfleet-git: doctor --live: ([^\r\n\x1b]*), (\d+) s\x1b\[K/g;

  it('shows what it is doing and for how long while the session runs, cleared before the report', async () => {
    rmSync(go, { force: true });
    const repo = sb.repo('live');
    const run = ptySpawn([process.execPath, CLI, 'doctor', '--live', '--copilot', fake], { cwd: repo, env: sb.env });
    try {
      await run.waitFor(`\rfleet-git: doctor --live: running one Copilot session in ${repo}, `);
    } finally {
      writeFileSync(go, ''); // the session ends, shown or not
    }
    const r = await run.done;
    assert.equal(r.code, 1, r.text); // no event came: this copilot runs no hook
    const lines = [...r.raw.matchAll(LIVE)];
    const last = lines.at(-1)!;
    assert.ok(r.raw.slice(last.index! + last[0].length).startsWith('\r\x1b[K'), 'the last progress line is cleared at once');
    const report = r.raw.slice(last.index! + last[0].length + 4);
    assert.match(report, /^one offline Copilot session in /, 'the report starts on a clean line');
    assert.doesNotMatch(report, /doctor --live: /);
  });

  it('off a terminal, nothing but the report', async () => {
    writeFileSync(go, '');
    const repo = sb.repo('live-piped');
    const r = await runCli(['doctor', '--live', '--copilot', fake], { cwd: repo, env: sb.env });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^one offline Copilot session in /);
  });
});
