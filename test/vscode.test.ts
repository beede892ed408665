// VS Code's agent runs the hook file fleet-git writes (it reads .github/hooks/*.json, maps the camelCase
// keys to its own events and runs each `bash`), with snake_case payloads, its own tool names and a
// transcript of its own. The payloads and transcripts are test/fixtures/vscode-copilot-chat-31acd00a/,
// written from VS Code's source (its README). First the normalizer alone, then the real hook command,
// forwarder and a real socket, beside a Copilot CLI session, and with the config's `vscode: false`.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { canonicalEvent, isVsCodePayload, normalizePayload } from '../src/copilot/normalize.js';
import { vscodeSessionsShown } from '../src/copilot/vscode.js';
import { readTemplate } from '../src/core/repo/templates.js';
import { parseUserConfig } from '../src/core/setup/user-config.js';
import { describeNeeding, FIXTURES, hooksSettled, ROOT, sandbox } from './helpers.js';
import { CLIENT, enabledHooks, runHook } from './hook-run.js';
import { observerSummary, TestObserver, type Received } from './observer-server.js';
import { run } from './spawn.js';
import { fireAsVsCode, shellsUnderTest, vscodeCommands, type HookEntry } from './vscode-executor.js';

const VSCODE = join(ROOT, 'test', 'fixtures', 'vscode-copilot-chat-31acd00a');
/** The folder the fixtures' transcript paths are under, up to VS Code's GitHub.copilot-chat. */
const STORAGE = '/home/dev/.config/Code/User/workspaceStorage/6f1c2a9e';

interface FixtureEvent {
  key: string;
  transcript_lines: number;
  payload: Record<string, unknown>;
}
interface Session {
  name: string;
  sid: string;
  events: FixtureEvent[];
  transcript: string[];
}

function session(name: string): Session {
  const doc = JSON.parse(readFileSync(join(VSCODE, `${name}.json`), 'utf8')) as { session_id: string; events: FixtureEvent[] };
  const transcript = readFileSync(join(VSCODE, `${name}.transcript.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean);
  return { name, sid: doc.session_id, events: doc.events, transcript };
}
const SESSIONS = ['tools', 'stop-blocked', 'subagent', 'cancelled'].map(session);
const byName = (name: string) => SESSIONS.find((s) => s.name === name)!;
/** The last answer of a transcript's first `lines` lines. */
const answerAt = (s: Session, lines: number) =>
  s.transcript
    .slice(0, lines)
    .map((l) => JSON.parse(l) as { type: string; data: { content?: string } })
    .filter((e) => e.type === 'assistant.message' && e.data.content)
    .at(-1)?.data.content;

/** What the observer shows for each tool call of the `tools` session, in order. */
const TOOL_SUMMARIES = [
  'Bash: npm test',
  'Read index.ts',
  'Edit index.ts',
  'Edit util.ts',
  'Edit log.ts',
  'Edit server.ts',
  'Write sum.test.ts',
  'Grep "TODO"',
  'Glob **/*.test.ts',
  'WebFetch',
  'Read src',
  'semantic_search',
  'mcp_github_get_issue',
];

/** A terminal VS Code was started from: none of it may reach a VS Code card. */
const TERMINAL = { TERM_PROGRAM: 'iTerm.app', ITERM_SESSION_ID: 'w0t0p0:6B1C5E7A', COPILOT_MODEL: 'gpt-4.1', FLEET_MODEL_NAME: 'work' };

/** Runs one fixture event as VS Code would: the transcript as far as it is written, then each file's commands for its event. */
async function fireFixture(
  dir: string,
  home: string,
  s: Session,
  e: FixtureEvent,
  opts: { sh: string; prefix?: string; env: Record<string, string>; obs?: TestObserver },
  files: Array<Map<string, HookEntry[]>>,
): Promise<void> {
  const transcript = String(e.payload.transcript_path).replace(STORAGE, join(dir, 'workspaceStorage'));
  mkdirSync(dirname(transcript), { recursive: true });
  writeFileSync(transcript, s.transcript.slice(0, e.transcript_lines).join('\n') + '\n');
  const payload = { ...e.payload, transcript_path: transcript };
  for (const file of files)
    for (const r of await fireAsVsCode(file, payload, { ...opts, home }))
      assert.deepEqual([r.outcome, r.code, r.stdout, r.stderr], ['success', 0, '', ''], `${s.name}: ${e.key} with ${opts.sh}`);
  // The next turn's lines come after the user's next prompt, long after this turn's Stop hook: by then its answer
  // has been read from the transcript. So, given the observer, the session's next event waits for this Stop.
  const { obs } = opts;
  if (obs && e.key === 'agentStop') {
    const n = s.events.slice(0, s.events.indexOf(e) + 1).filter((x) => x.key === 'agentStop').length;
    await obs.waitFor(() => obs.events.filter((x) => x.session_id === s.sid && x.event === 'Stop').length >= n);
  }
}

/** Each fixture session is one card in `events`: every event once and in order, marked VS Code, each Stop with its turn's answer. */
function checkCards(events: Received[], sidOf = (s: Session) => s.sid): void {
  const ofSession = (sid: string) => events.filter((e) => e.session_id === sid);
  for (const s of SESSIONS) {
    const got = ofSession(sidOf(s));
    const sent = s.events.filter((e) => ['sessionStart', 'postToolUse', 'agentStop'].includes(e.key));
    assert.deepEqual(
      got.map((e) => e.event),
      sent.map((e) => ({ sessionStart: 'SessionStart', postToolUse: 'PostToolUse', agentStop: 'Stop' })[e.key]),
      `${s.name}: every event once, in order (no Stop for the subagent or the cancelled turn)`,
    );
    const start = got[0]!;
    assert.deepEqual(
      [start.term_program, start.iterm_session_id, start.model, start.fleet_model_name, start.cwd, start._tool],
      ['vscode', null, null, undefined, '/home/dev/code/demo', 'copilot'],
      s.name,
    );
    // The hook's parent is VS Code's extension host, every chat's and extension's: fleet's kill must not name it.
    assert.deepEqual([start.pid, start.ppid], [null, null], `${s.name}: a VS Code card names no process`);
    const stops = got.filter((e) => e.event === 'Stop');
    assert.deepEqual(
      stops.map((e) => e.last_assistant_message),
      sent.filter((e) => e.key === 'agentStop').map((e) => answerAt(s, e.transcript_lines)),
      `${s.name}: each Stop with the answer of its own turn`,
    );
    assert.ok(
      stops.every((e) => e.last_assistant_message),
      s.name,
    );
  }
}

describe("VS Code's payloads through the normalizer", () => {
  const ctx = { env: TERMINAL, pid: 100, ppid: 99, now: 1 };

  test('the tools session: a card marked VS Code, each action read as a Copilot CLI one', () => {
    const s = byName('tools');
    const out = s.events.map((e) => normalizePayload(e.payload, e.key, ctx));
    assert.equal(out[1], null, 'UserPromptSubmit is not forwarded');
    const start = out[0]!;
    assert.deepEqual(
      [start.event, start.session_id, start.cwd, start.term_program, start.iterm_session_id, start.model, start.fleet_model_name],
      ['SessionStart', s.sid, '/home/dev/code/demo', 'vscode', null, null, undefined],
    );
    assert.equal(start.timestamp, Date.parse(s.events[0]!.payload.timestamp as string));
    const tools = out.filter((e) => e?.event === 'PostToolUse');
    assert.deepEqual(
      tools.map((e) => observerSummary(e!.tool_name, e!.tool_input)),
      TOOL_SUMMARIES,
    );
    assert.equal(tools[0]!.tool_output, '> demo@1.0.0 test\n1 failing');
    const stop = out.at(-1)!;
    assert.deepEqual(
      [stop.event, stop.last_assistant_message],
      ['Stop', null],
      'the last answer comes from the transcript (hook-event.ts)',
    );
  });

  test("a subagent's Stop is not the turn's end, under any key; a blocked Stop's repeat is one", () => {
    const sub = byName('subagent').events.find((e) => e.key === 'subagentStop')!;
    assert.equal(canonicalEvent('subagentStop', sub.payload), null);
    assert.equal(normalizePayload(sub.payload, 'agentStop', ctx), null);
    const again = byName('stop-blocked').events.at(-1)!;
    assert.equal(again.payload.stop_hook_active, true);
    assert.equal(normalizePayload(again.payload, again.key, ctx)?.event, 'Stop');
  });

  test("the shape decides: the Copilot CLI's own snake_case payloads (COPILOT_HOOK_DIR set) keep their terminal", () => {
    const start = { ...byName('tools').events[0]!.payload, transcript_path: '/home/dev/.copilot/session-state/x/events.jsonl' };
    const cli = { ...TERMINAL, COPILOT_HOOK_DIR: '/home/dev/code/demo/.github/hooks' };
    assert.equal(isVsCodePayload(start, cli), false);
    const ev = normalizePayload(start, 'sessionStart', { ...ctx, env: cli })!;
    assert.deepEqual([ev.term_program, ev.iterm_session_id, ev.model], ['iTerm.app', 'w0t0p0:6B1C5E7A', 'gpt-4.1']);
    // VS Code's transcript folder names VS Code whatever the environment.
    assert.equal(isVsCodePayload(byName('tools').events[0]!.payload, cli), true);
    assert.equal(isVsCodePayload({ sessionId: 'x', hook_event_name: 'Stop' }, {}), false, 'camelCase: the CLI');
    // The CLI's snake_case tool result, as copilot 1.0.102 sends it to a PascalCase key (vscode-shape-e2e).
    const tool = {
      hook_event_name: 'PostToolUse',
      session_id: 'cli-snake',
      tool_name: 'Bash',
      tool_input: { command: 'echo hi' },
      tool_result: { result_type: 'success', text_result_for_llm: 'hi' },
    };
    assert.equal(normalizePayload(tool, 'postToolUse', { ...ctx, env: cli })?.tool_output, 'hi');
  });
});

test('the hook file has camelCase keys only: the Copilot CLI would run a PascalCase key too, with another payload', () => {
  const keys = Object.keys((JSON.parse(readTemplate('fleet.json')) as { hooks: Record<string, unknown> }).hooks);
  assert.ok(keys.length >= 7, keys.join());
  for (const k of keys) assert.match(k, /^[a-z][A-Za-z]*$/, k);
});

test("the config's vscode key: true or false, default true; the hook client reads it itself", () => {
  const file = 'config.json5';
  assert.equal(parseUserConfig('{}', file).config.vscode, true);
  assert.deepEqual(parseUserConfig('{ vscode: false }', file).config.vscode, false);
  assert.equal(parseUserConfig('{ vscode: false }', file).from.vscode, 'file');
  assert.throws(
    () => parseUserConfig("{\n  vscode: 'no',\n}", file),
    /config\.json5:2: vscode must be true or false, not a string \("no"\)/,
  );
});

describe("VS Code's sessions through the real hook command, forwarder and a socket", () => {
  const world = enabledHooks('fleet-git-vscode-', 300);
  const { sb, paths, cmd, spool } = world;
  let obs: TestObserver;

  before(async () => {
    assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`);
    obs = await TestObserver.start(paths.fleetSocket);
  });
  after(() => obs?.close());

  /** The environment VS Code was started with (here a terminal's); its executor takes VSCODE_*, GITHUB_*, COPILOT_* out. */
  const vscodeEnv = { ...world.env, ...TERMINAL };
  const repoFile = vscodeCommands(readFileSync(join(world.repo, '.github', 'hooks', 'fleet.json'), 'utf8'));
  /** Runs one fixture event as VS Code would: the transcript as far as it is written, then the commands of each file for its event. */
  const fire = (s: Session, e: FixtureEvent, env: Record<string, string>, files = [repoFile], wait?: TestObserver) =>
    fireFixture(sb.dir, sb.home, s, e, { sh: '/bin/sh', env, obs: wait }, files);
  const ofSession = (sid: string) => obs.events.filter((e) => e.session_id === sid);

  test(
    'four VS Code sessions and a Copilot CLI session at once: five cards, each in order, right actions and answers',
    { timeout: 60_000 },
    async () => {
      const cli = JSON.parse(readFileSync(join(FIXTURES, 'sessionStart.json'), 'utf8')) as { sessionId: string };
      const cliEnv = { ...world.env, COPILOT_HOOK_DIR: join(world.repo, '.github', 'hooks'), TERM_PROGRAM: 'tmux' };
      const cliEvents = ['sessionStart', 'postToolUse', 'postToolUseFailure', 'sessionEnd'].map((k) => ({
        key: k,
        text: readFileSync(join(FIXTURES, `${k}.json`), 'utf8'),
      }));
      // Round robin, one event of each session in turn.
      const queues = SESSIONS.map((s) => s.events.map((e) => () => fire(s, e, vscodeEnv, [repoFile], obs)));
      queues.push(cliEvents.map((e) => async () => void (await runHook(cmd(e.key), e.text, cliEnv))));
      while (queues.some((q) => q.length)) for (const q of queues) await q.shift()?.();
      await hooksSettled(sb.home, spool);
      await obs.drained();
      assert.deepEqual(obs.badLines, []);

      checkCards(obs.events);
      const tools = ofSession(byName('tools').sid).filter((e) => e.event === 'PostToolUse');
      assert.deepEqual(
        tools.map((e) => observerSummary(e.tool_name, e.tool_input)),
        TOOL_SUMMARIES,
      );
      const cliGot = ofSession(cli.sessionId);
      assert.deepEqual(
        cliGot.map((e) => e.event),
        ['SessionStart', 'PostToolUse', 'PostToolUse', 'Stop'],
      );
      assert.equal(cliGot[0]!.term_program, 'tmux', "the CLI's card keeps its terminal");
      assert.equal(observerSummary(cliGot[1]!.tool_name, cliGot[1]!.tool_input).startsWith('Bash: '), true);
    },
  );

  test(
    '`vscode: false` in the config file keeps VS Code sessions out, at once; the CLI session still shows',
    { timeout: 60_000 },
    async () => {
      mkdirSync(dirname(paths.configFile), { recursive: true });
      writeFileSync(paths.configFile, '// no VS Code cards\n{ vscode: false }\n');
      assert.equal(vscodeSessionsShown(paths.configFile), false);
      const before = obs.events.length;
      const s = byName('tools');
      for (const e of s.events) await fire(s, { ...e, payload: { ...e.payload, session_id: 'off-' + s.sid } }, vscodeEnv);
      const cliEnv = { ...world.env, COPILOT_HOOK_DIR: join(world.repo, '.github', 'hooks') };
      const text = readFileSync(join(FIXTURES, 'postToolUse.json'), 'utf8').replace(
        /"sessionId": *"[^"]+"/,
        '"sessionId": "cli-while-off"',
      );
      assert.match(text, /cli-while-off/);
      await runHook(cmd('postToolUse'), text, cliEnv);
      await hooksSettled(sb.home, spool);
      await obs.drained();
      assert.deepEqual(
        obs.events.slice(before).map((e) => e.session_id),
        ['cli-while-off'],
      );
    },
  );

  test(
    "VS Code runs the user-level hook file and the repository's, with one payload: each event is sent once",
    { timeout: 60_000 },
    async () => {
      writeFileSync(paths.configFile, '{}\n');
      assert.equal(sb.cli(world.repo, 'enable', '--user').status, 0);
      const user = vscodeCommands(readFileSync(join(sb.env.COPILOT_HOME!, 'hooks', 'fleet.json'), 'utf8'));
      const s = byName('stop-blocked');
      const sid = 'both-' + s.sid;
      for (const e of s.events) await fire(s, { ...e, payload: { ...e.payload, session_id: sid } }, vscodeEnv, [repoFile, user]);
      await hooksSettled(sb.home, spool);
      await obs.drained();
      assert.deepEqual(
        ofSession(sid).map((e) => e.event),
        ['SessionStart', 'PostToolUse', 'Stop', 'PostToolUse', 'Stop'],
      );
    },
  );
});

/**
 * Each /bin/sh a user may have (dash: Debian's and Ubuntu's): VS Code runs every command of both hook files, the
 * repository's (enable) and the user-level one (enable --user), with it. Each exits 0 with nothing on stdout, and
 * each session is one right card.
 */
const shellsDir = sandbox('fleet-git-vscode-sh-').dir;
for (const shell of shellsUnderTest(shellsDir))
  describeNeeding(shell.skip, `both hook files run as VS Code runs them with ${shell.name} as /bin/sh`, () => {
    const world = enabledHooks(`fleet-git-vs-${shell.name.split(' ')[0]}-`, 300);
    const { sb, paths, spool } = world;
    let obs: TestObserver;
    before(async () => {
      assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`);
      assert.equal(sb.cli(world.repo, 'enable', '--user').status, 0);
      obs = await TestObserver.start(paths.fleetSocket);
    });
    after(() => obs?.close());

    test(
      'every command exits 0 with nothing on stdout or stderr; four sessions at once, four right cards',
      { timeout: 60_000 },
      async () => {
        const files = [
          vscodeCommands(readFileSync(join(world.repo, '.github', 'hooks', 'fleet.json'), 'utf8')),
          vscodeCommands(readFileSync(join(sb.env.COPILOT_HOME!, 'hooks', 'fleet.json'), 'utf8')),
        ];
        assert.deepEqual([...files[0]!.keys()].sort(), ['PostToolUse', 'SessionStart', 'Stop']);
        assert.deepEqual([...files[1]!.keys()].sort(), ['PostToolUse', 'SessionStart', 'Stop']);
        const opts = {
          sh: shell.sh,
          prefix: shell.prefix,
          env: { ...world.env, ...TERMINAL, ...(shell.path ? { PATH: shell.path } : {}) },
          obs,
        };
        const queues = SESSIONS.map((s) => s.events.map((e) => () => fireFixture(sb.dir, sb.home, s, e, opts, files)));
        while (queues.some((q) => q.length)) for (const q of queues) await q.shift()?.();
        await hooksSettled(sb.home, spool);
        await obs.drained();
        assert.deepEqual(obs.badLines, []);
        checkCards(obs.events);
        assert.equal(
          obs.events.length,
          SESSIONS.map((s) => s.events.filter((e) => ['sessionStart', 'postToolUse', 'agentStop'].includes(e.key)).length).reduce(
            (a, b) => a + b,
          ),
        );
      },
    );
  });

test('a caller that closed stdin, or set -u with no HOME: every hook still exits 0 at once, in bash and in dash', async () => {
  const world = enabledHooks('fleet-git-vscode-odd-', 300);
  const env = Object.fromEntries(Object.entries(world.env).filter(([k]) => k !== 'HOME'));
  for (const sh of ['/bin/bash', '/bin/dash']) {
    // bash gives a closed stdin to $(cat) as the read end of cat's own output: it would wait for the hook's timeout.
    const closed = await run(sh, ['-c', `exec <&-; ${world.cmd('postToolUse')}`], { env: world.env, limitMs: 5000 });
    assert.deepEqual([closed.code, closed.stdout], [0, ''], `${sh}, stdin closed: ${closed.stderr}`);
    const unset = await run(sh, ['-c', `set -u; ${world.cmd('postToolUse')}`], { env, input: '{}', limitMs: 5000 });
    assert.deepEqual([unset.code, unset.stdout], [0, ''], `${sh}, set -u and no HOME: ${unset.stderr}`);
  }
  await hooksSettled(world.sb.home, world.spool);
});

test("status says whether VS Code's agent sessions show, as the hook client decides it", async () => {
  const world = enabledHooks('fleet-git-vscode-status-', 300);
  const { sb, repo, paths } = world;
  let r = await sb.fleet(repo, 'status');
  assert.match(
    r.stdout,
    /^ {2}VS Code's agent runs the same hook files: its sessions show as cards marked VSCode \(vscode: false in .* keeps them out;/m,
  );
  mkdirSync(dirname(paths.configFile), { recursive: true });
  writeFileSync(paths.configFile, '{ vscode: false }\n');
  r = await sb.fleet(repo, 'status');
  assert.match(r.stdout, /^ {2}VS Code's agent sessions are kept out \(vscode: false in .*config\.json5\)/m);
});
