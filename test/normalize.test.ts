// Unit tests of the pure parts of the hook client over every real payload
// captured from Copilot CLI 1.0.102, plus the Claude-compatible shape.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { canonicalEvent, EVENT_MAX_BYTES, lastMessage, mapToolName, normalizePayload, summarizeToolUse } from '../src/copilot/normalize.js';
import { isPlainId, type FleetEvent } from '../src/fleet/event.js';
import { LINE_MAX } from '../src/fleet/socket.js';
import { finalMessageFromLines, readFinalMessage, readSessionModel } from '../src/copilot/transcript.js';
import { FIXTURES } from './helpers.js';
import { observerSummary } from './observer-server.js';

const SID = '3111f3f3-d287-4b60-bd4b-f11fcf55db9e';
const ERR_SID = '30f49d63-30ba-459b-b3d2-2f9625aa6409';
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const ctx = { env: {}, pid: 100, ppid: 99, now: 1 };

// What each fixture must become. A fixture added without an entry here fails the test below.
const EXPECTED: Record<string, Partial<FleetEvent> | null> = {
  'sessionStart.json': {
    event: 'SessionStart',
    session_id: SID,
    cwd: '/home/dev/code/demo',
    timestamp: 1795974778576,
    pid: 100,
    ppid: 99,
    model: null,
  },
  'postToolUse.json': {
    event: 'PostToolUse',
    session_id: SID,
    tool_name: 'Bash',
    tool_output: 'hello-from-tool\n<shellId: 0 completed with exit code 0>',
  },
  'postToolUseFailure.json': { event: 'PostToolUse', session_id: SID, tool_name: 'Read', tool_output: 'Path does not exist' },
  'agentStop.json': { event: 'Stop', session_id: SID, last_assistant_message: null, message: 'end_turn' },
  'sessionEnd.json': { event: 'Stop', session_id: SID, message: 'complete', last_assistant_message: null },
  'sessionEnd-error.json': { event: 'Stop', session_id: ERR_SID, message: 'error' },
  'errorOccurred.json': {
    event: 'Notification',
    session_id: ERR_SID,
    message: 'Copilot error (model call): bad request test',
    notification_type: 'error',
  },
  'preToolUse.json': null,
  'preToolUse-view.json': null,
  'permissionRequest.json': null,
  'userPromptSubmitted.json': null,
};

describe('normalizePayload over the real 1.0.102 payloads', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));

  test('every fixture has an expectation', () => {
    assert.ok(files.length >= 11);
    assert.deepEqual(
      files.filter((f) => !(f in EXPECTED)),
      [],
    );
  });

  for (const file of files) {
    const event = file.replace(/\.json$/, '').replace(/-.*$/, '');
    test(`${file} (${event})`, () => {
      const out = normalizePayload(fixture(file), event, ctx);
      const want = EXPECTED[file];
      if (want === null || want === undefined) {
        assert.equal(out, null);
        return;
      }
      assert.ok(out);
      assert.deepEqual(pickKeys(out, Object.keys(want)), want);
      assert.equal(out._tool, 'copilot');
      assert.equal(out.tool, 'copilot');
      assert.equal('fleet_model_name' in out, false);
      assert.equal('probe_hook_dir' in out, false);
      // One line on the socket, whatever the payload.
      assert.equal(JSON.stringify(out).includes('\n'), false);
    });
  }

  test('the event name is also accepted in PascalCase, and Stop means agentStop', () => {
    assert.equal(canonicalEvent('PostToolUse'), 'postToolUse');
    assert.equal(canonicalEvent('Stop'), 'agentStop');
    assert.equal(canonicalEvent('SessionEnd'), 'sessionEnd');
    assert.equal(canonicalEvent('preToolUse'), null);
    assert.equal(canonicalEvent(undefined, { hook_event_name: 'SessionStart' }), 'sessionStart');
    assert.equal(canonicalEvent(undefined, {}), null);
  });

  test('the observer shows the mapped tool calls as Claude tool calls', () => {
    const bash = normalizePayload(fixture('postToolUse.json'), 'postToolUse', ctx)!;
    assert.equal(observerSummary(bash.tool_name, bash.tool_input), 'Bash: echo hello-from-tool');
    const view = normalizePayload(fixture('postToolUseFailure.json'), 'postToolUseFailure', ctx)!;
    assert.equal(observerSummary(view.tool_name, view.tool_input), 'Read xyz.txt');
    assert.deepEqual(view.tool_input, { path: '/nonexistent/file/xyz.txt', file_path: '/nonexistent/file/xyz.txt' });
  });

  test('toolArgs as a JSON string (older CLIs) gives the same event', () => {
    const raw = fixture('postToolUse.json');
    const asString = { ...raw, toolArgs: JSON.stringify(raw.toolArgs) };
    assert.deepEqual(normalizePayload(asString, 'postToolUse', ctx), normalizePayload(raw, 'postToolUse', ctx));
    const notJson = normalizePayload({ ...raw, toolArgs: 'ls -la' }, 'postToolUse', ctx)!;
    assert.equal(notJson.tool_input, 'ls -la');
  });

  test('model from COPILOT_MODEL, else the transcript; FLEET_MODEL_NAME and terminal from the environment', () => {
    const env = { COPILOT_MODEL: 'gpt-5', FLEET_MODEL_NAME: 'work', TERM_PROGRAM: 'iTerm.app', ITERM_SESSION_ID: 'w0t0p0' };
    const out = normalizePayload(fixture('sessionStart.json'), 'sessionStart', { ...ctx, env, transcriptModel: 'gpt-4.1' })!;
    assert.equal(out.model, 'gpt-5');
    assert.equal(out.fleet_model_name, 'work');
    assert.equal(out.term_program, 'iTerm.app');
    assert.equal(out.iterm_session_id, 'w0t0p0');
    const fromTranscript = normalizePayload(fixture('sessionStart.json'), 'sessionStart', { ...ctx, transcriptModel: 'gpt-4.1' })!;
    assert.equal(fromTranscript.model, 'gpt-4.1');
  });

  test('in a doctor --live probe (FLEET_GIT_PROBE set), each event names the folder of the hook file that sent it', () => {
    const env = { FLEET_GIT_PROBE: 'token', COPILOT_HOOK_DIR: '/home/dev/code/demo/.github/hooks' };
    for (const [file, event] of [
      ['sessionStart.json', 'sessionStart'],
      ['postToolUse.json', 'postToolUse'],
      ['sessionEnd.json', 'sessionEnd'],
    ]) {
      assert.equal(normalizePayload(fixture(file), event, { ...ctx, env })!.probe_hook_dir, env.COPILOT_HOOK_DIR);
    }
    assert.equal(
      normalizePayload(fixture('sessionEnd.json'), 'sessionEnd', { ...ctx, env: { FLEET_GIT_PROBE: 'token' } })!.probe_hook_dir,
      null,
    );
    assert.equal(
      'probe_hook_dir' in normalizePayload(fixture('sessionEnd.json'), 'sessionEnd', { ...ctx, env: { COPILOT_HOOK_DIR: '/x' } })!,
      false,
    );
  });

  test('agentStop carries the last assistant message, at most 500 characters', () => {
    const out = normalizePayload({ ...fixture('agentStop.json'), last_assistant_message: 'x'.repeat(800) }, 'agentStop', ctx)!;
    assert.equal(out.last_assistant_message, 'x'.repeat(500));
    assert.equal(lastMessage('y'.repeat(800)), 'y'.repeat(500), 'and the message the hook client reads from the transcript');
  });

  test('the Claude-compatible shape (snake_case, hook_event_name, ISO timestamp)', () => {
    const raw = {
      session_id: SID,
      hook_event_name: 'PostToolUse',
      cwd: '/w/app',
      timestamp: '2026-11-29T17:52:58.767Z',
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_response: { textResultForLlm: 'ok' },
    };
    const out = normalizePayload(raw, undefined, ctx)!;
    assert.equal(out.event, 'PostToolUse');
    assert.equal(out.timestamp, Date.parse('2026-11-29T17:52:58.767Z'));
    assert.equal(out.tool_name, 'Bash');
    assert.equal(out.tool_output, 'ok');
    assert.equal(observerSummary(out.tool_name, out.tool_input), 'Bash: npm test');
    const stop = normalizePayload({ session_id: SID, last_assistant_message: 'bye' }, 'Stop', ctx)!;
    assert.equal(stop.event, 'Stop');
    assert.equal(stop.last_assistant_message, 'bye');
    const start = normalizePayload({ session_id: SID, model: 'claude-x' }, 'SessionStart', ctx)!;
    assert.equal(start.model, 'claude-x');
  });

  test('notification', () => {
    const out = normalizePayload({ sessionId: SID, message: 'Waiting for you', notification_type: 'agent_idle' }, 'notification', ctx)!;
    assert.equal(out.event, 'Notification');
    assert.equal(out.message, 'Waiting for you');
    assert.equal(out.notification_type, 'agent_idle');
  });

  test('nothing to send: no object, no session id, a session id that is not a plain id', () => {
    for (const raw of [null, 'x', 42, [fixture('postToolUse.json')], {}, { sessionId: 7 }]) {
      assert.equal(normalizePayload(raw, 'postToolUse', ctx), null);
    }
    for (const id of ['../x', 'a/b', '..', '.hidden', 'a..b', '', 'a\nb', 'x'.repeat(200)]) {
      assert.equal(isPlainId(id), false, id);
      assert.equal(normalizePayload({ ...fixture('postToolUse.json'), sessionId: id }, 'postToolUse', ctx), null);
    }
    assert.equal(isPlainId(SID), true);
  });

  test('values the observer would call string methods on are strings or absent', () => {
    const out = normalizePayload({ sessionId: SID, toolName: 'bash', toolArgs: { command: 42 } }, 'postToolUse', ctx)!;
    assert.deepEqual(out.tool_input, {});
    assert.equal(observerSummary(out.tool_name, out.tool_input), 'Bash: ');
    const noName = normalizePayload({ sessionId: SID }, 'postToolUse', ctx)!;
    assert.equal(typeof noName.tool_name, 'string');
    const big = normalizePayload(
      {
        sessionId: SID,
        toolName: 'create',
        toolArgs: { path: '/a/b.txt', file_text: 'y'.repeat(5_000_000) },
        toolResult: { textResultForLlm: 'z'.repeat(5_000_000) },
      },
      'postToolUse',
      ctx,
    )!;
    assert.ok(JSON.stringify(big).length < 10_000);
    assert.equal(observerSummary(big.tool_name, big.tool_input), 'Write b.txt');
  });
});

describe('summarizeToolUse', () => {
  const same: Array<[string, unknown, string, unknown, string]> = [
    ['bash', { command: 'npm test' }, 'Bash', { command: 'npm test' }, 'Bash: npm test'],
    ['view', { path: '/src/index.ts' }, 'Read', { file_path: '/src/index.ts' }, 'Read index.ts'],
    ['edit', { path: '/src/app.ts', old_str: 'a', new_str: 'b' }, 'Edit', { file_path: '/src/app.ts' }, 'Edit app.ts'],
    ['create', { path: '/src/new.ts', file_text: '' }, 'Write', { file_path: '/src/new.ts' }, 'Write new.ts'],
    ['grep', { pattern: 'TODO' }, 'Grep', { pattern: 'TODO' }, 'Grep "TODO"'],
    ['glob', { pattern: 'src/**/*.ts' }, 'Glob', { pattern: 'src/**/*.ts' }, 'Glob src/**/*.ts'],
  ];
  for (const [cName, cInput, name, input, want] of same) {
    test(`${cName} and ${name} both read "${want}"`, () => {
      assert.equal(summarizeToolUse(cName, cInput), want);
      assert.equal(summarizeToolUse(name, input), want);
      assert.equal(summarizeToolUse(cName, JSON.stringify(cInput)), want);
      // and the observer, given what we send, shows the same
      assert.equal(
        observerSummary(
          mapToolName(cName),
          normalizePayload({ sessionId: SID, toolName: cName, toolArgs: cInput }, 'postToolUse', ctx)!.tool_input,
        ),
        want,
      );
    });
  }
  test('long commands are cut at 50 characters; unknown tools show bare', () => {
    assert.equal(summarizeToolUse('bash', { command: 'x'.repeat(80) }), `Bash: ${'x'.repeat(50)}`);
    assert.equal(summarizeToolUse('report_intent', { intent: 'x' }), 'report_intent');
    assert.equal(mapToolName('report_intent'), 'report_intent');
    assert.equal(summarizeToolUse('bash', null), 'Bash: ');
  });
});

describe('transcript', () => {
  const lines = readFileSync(join(FIXTURES, 'transcript-events.jsonl'), 'utf8').split('\n').filter(Boolean);
  const finalIndex = lines.findIndex((l) => l.includes('"Done. All finished."'));

  test('the final message is found once written, with or without its turn_end', () => {
    assert.ok(finalIndex > 0);
    assert.deepEqual(finalMessageFromLines(lines), { state: 'found', text: 'Done. All finished.' });
    assert.deepEqual(finalMessageFromLines(lines.slice(0, finalIndex + 1)), { state: 'found', text: 'Done. All finished.' });
  });

  test('every earlier point of the session reads as pending', () => {
    for (let i = 1; i <= finalIndex; i++) {
      const got = finalMessageFromLines(lines.slice(0, i));
      assert.ok(got === null || got.state === 'pending', `after ${i} lines: ${JSON.stringify(got)}`);
    }
  });

  test("a previous turn's answer is not taken for this turn's", () => {
    const nextPrompt = JSON.stringify({ type: 'user.message', data: { content: 'and now?' } });
    assert.deepEqual(finalMessageFromLines([...lines, nextPrompt]), { state: 'pending' });
  });

  test('files: model from the head, final message from the tail, a cut or missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-git-transcript-'));
    try {
      const file = join(dir, 'events.jsonl');
      // A long session: the tail must still be found past the first read size.
      const filler = JSON.stringify({ type: 'tool.execution_complete', data: { result: { content: 'q'.repeat(1000) } } });
      writeFileSync(file, [lines[0], ...Array(200).fill(filler), ...lines].join('\n') + '\n');
      assert.equal(readSessionModel(file), 'gpt-4.1');
      assert.deepEqual(readFinalMessage(file), { state: 'found', text: 'Done. All finished.' });
      writeFileSync(file, lines.slice(0, finalIndex).join('\n') + '\n' + lines[finalIndex]!.slice(0, 40));
      assert.deepEqual(readFinalMessage(file), { state: 'pending' });
      assert.deepEqual(readFinalMessage(join(dir, 'missing.jsonl')), { state: 'pending' });
      // Missing or without a whole line in a folder that is there: the session has not written it yet.
      assert.equal(readSessionModel(join(dir, 'missing.jsonl')), undefined);
      writeFileSync(file, lines[0]!.slice(0, 20));
      assert.equal(readSessionModel(file), undefined);
      // No folder for it: none will come; a transcript without a session.start names none.
      assert.equal(readSessionModel(join(dir, 'gone', 'events.jsonl')), null);
      const rest = lines.filter((l) => !l.includes('"session.start"'));
      assert.ok(rest.length > 0 && rest.length < lines.length);
      writeFileSync(file, rest.join('\n') + '\n');
      assert.equal(readSessionModel(file), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function pickKeys(o: object, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, (o as Record<string, unknown>)[k]]));
}

describe('payload strings that name members of Object.prototype (issue 12, item 10)', () => {
  const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'toLocaleString'];

  test('a tool, an event or an errorContext named so is a plain string: the event is sent, named as it came, or not at all', () => {
    for (const name of NAMES) {
      const ev = normalizePayload({ sessionId: 'proto', toolName: name, toolArgs: { command: 'ls' } }, 'postToolUse', ctx);
      assert.ok(ev, name);
      assert.equal(ev.tool_name, name);
      assert.deepEqual(ev.tool_input, { command: 'ls' });
      assert.equal(mapToolName(name), name);
      assert.equal(summarizeToolUse(name, { command: 'ls' }), name);
      assert.equal(canonicalEvent(name), null, name);
      assert.equal(canonicalEvent(undefined, { hook_event_name: name }), null, name);
      assert.equal(normalizePayload({ sessionId: 'proto' }, name, ctx), null, name);
      const err = normalizePayload({ sessionId: 'proto', errorContext: name, error: { message: 'boom' } }, 'errorOccurred', ctx)!;
      assert.equal(err.message, `Copilot error (${name}): boom`);
    }
  });

  test('a __proto__ key in the tool input stays data: no other prototype, nothing inherited', () => {
    const raw = JSON.parse('{"sessionId":"p","toolName":"view","toolArgs":{"__proto__":{"file_path":7,"command":"x"},"path":"/w/a.ts"}}');
    const ev = normalizePayload(raw, 'postToolUse', ctx)!;
    const input = ev.tool_input as Record<string, unknown>;
    assert.equal(observerSummary(ev.tool_name, ev.tool_input), 'Read a.ts');
    assert.equal(Object.getPrototypeOf(input), Object.prototype);
    assert.equal(input.command, undefined);
    assert.deepEqual(
      JSON.parse(JSON.stringify(ev)).tool_input,
      JSON.parse('{"__proto__":{"file_path":7,"command":"x"},"path":"/w/a.ts","file_path":"/w/a.ts"}'),
    );
  });
});

describe('every event fits in one line of at most 64 KiB (issue 12, item 11)', () => {
  test('whatever the sizes, the JSON of an event stays within EVENT_MAX_BYTES, with room left for a last message', () => {
    assert.ok(EVENT_MAX_BYTES + Buffer.byteLength(JSON.stringify(lastMessage('\u0001'.repeat(1000)))) + 1 <= LINE_MAX);
    const ctl = '\u0001'.repeat(5000);
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`${ctl}${i}`, [ctl, { [ctl]: [ctl, ctl] }]]));
    const env = {
      FLEET_MODEL_NAME: ctl.repeat(20),
      TERM_PROGRAM: ctl,
      ITERM_SESSION_ID: ctl,
      COPILOT_MODEL: ctl,
      FLEET_GIT_PROBE: '1',
      COPILOT_HOOK_DIR: ctl.repeat(9),
    };
    const big = {
      sessionId: 's',
      cwd: `/${ctl.repeat(100)}/app`,
      toolName: ctl,
      toolArgs: { ...wide, command: 'npm test' },
      toolResult: ctl,
      stopReason: ctl,
      reason: ctl,
      message: ctl,
      notification_type: ctl,
      errorContext: ctl,
      error: ctl,
      last_assistant_message: ctl,
    };
    for (const event of ['sessionStart', 'postToolUse', 'postToolUseFailure', 'agentStop', 'sessionEnd', 'notification', 'errorOccurred']) {
      for (const payload of [big, { ...big, toolName: 'bash' }, { ...big, toolArgs: JSON.stringify(big.toolArgs) }]) {
        const ev = normalizePayload(payload, event, { ...ctx, env })!;
        const bytes = Buffer.byteLength(JSON.stringify(ev));
        assert.ok(bytes <= EVENT_MAX_BYTES, `${event}: ${bytes} bytes`);
        assert.ok(String(ev.cwd).endsWith('/app'), 'the cwd keeps its end');
      }
    }
    const bash = normalizePayload({ ...big, toolName: 'bash' }, 'postToolUse', { ...ctx, env })!;
    assert.equal(observerSummary(bash.tool_name, bash.tool_input), 'Bash: npm test', 'the keys the observer reads come first');
  });

  test('a clipped string keeps whole characters: no half of a pair (an emoji) at its cut, whatever the length', () => {
    /** The strings of a value, each checked for a lone UTF-16 half. */
    const halves = (v: unknown, at: string): string[] =>
      typeof v === 'string'
        ? /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(v)
          ? [at]
          : []
        : v && typeof v === 'object'
          ? Object.entries(v).flatMap(([k, x]) => halves(x, `${at}.${k}`))
          : [];
    for (const odd of ['', 'a']) {
      const e = `${odd}${'\u{1F600}'.repeat(40_000)}`;
      const payload = {
        sessionId: 's',
        cwd: `/w/${e}`,
        toolName: `x${e.slice(0, 3001)}`,
        toolArgs: { command: e, path: `/w/${e}` },
        toolResult: e,
        last_assistant_message: e,
        message: e,
      };
      for (const event of ['postToolUse', 'agentStop', 'notification']) {
        const ev = normalizePayload(payload, event, ctx)!;
        assert.deepEqual(halves(ev, event), [], `${event}, ${odd ? 'odd' : 'even'}`);
      }
    }
  });
});
