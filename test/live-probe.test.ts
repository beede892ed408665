// The live probe's judgement (core/session/live-probe.ts judge), from what a session
// could have shown: each cause and its order (a trusted repository's hooks not
// loaded, one event's hook never run, a hook timing out, fleet-git's own file
// broken, a missing hook client, an agentStop without its message). Each of
// these but the last is also brought about for real in doctor-live.test.ts
// (the real CLI, or fake-copilot.ts's session where the real CLI 1.0.102 on
// Linux cannot be made to do it).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { judge, type Facts, type SeenFile } from '../src/core/session/live-probe.js';
import type { HookRun } from '../src/copilot/live-session.js';
import { renderHookFile } from '../src/core/repo/hook-file.js';

const ROOT = '/home/dev/code/demo';
const DATA = '/home/dev/.local/share/fleet-git';
const REPO_DIR = `${ROOT}/.github/hooks`;
const OURS = renderHookFile({ dataDir: DATA });
const FINAL = 'fleet-git doctor --live: done.';

const ourRepoFile: SeenFile = { path: `${REPO_DIR}/fleet.json`, text: OURS, fleetGit: true, allFleetGit: true, parseError: null };

function ev(event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { event, session_id: 's1', probe_hook_dir: REPO_DIR, ...extra };
}
const ALL_EVENTS = [
  ev('SessionStart', { ppid: 100 }),
  ev('PostToolUse', { tool_name: 'Bash' }),
  ev('PostToolUse', { tool_name: 'Read' }),
  ev('Stop', { message: 'end_turn', last_assistant_message: FINAL }),
  ev('Stop', { message: 'complete' }),
];
function runOf(hookType: string, toolName: string | null = null, ms = 40, error: HookRun['error'] = null): HookRun {
  return { hookType, toolName, startedAt: 1000, endedAt: 1000 + ms, success: error === null, error };
}
const ALL_RUNS = [
  runOf('sessionStart'),
  runOf('postToolUse', 'bash'),
  runOf('postToolUse', 'view'),
  runOf('agentStop'),
  runOf('sessionEnd'),
];

function facts(over: Partial<Facts> = {}): Facts {
  return {
    root: ROOT,
    bin: '/usr/bin/copilot',
    version: '1.0.102',
    run: { pid: 100, code: 0, signal: null, timedOut: false, limitMs: 50_000, interrupted: false, spawnError: null, output: '', ms: 1500 },
    received: ALL_EVENTS,
    transcript: ALL_RUNS,
    log: { repoHooksLoaded: true, invalid: [], copilotVersion: '1.0.102' },
    node: { onPath: true, recorded: '/usr/bin/node', usable: true },
    trusted: true,
    repoFiles: [ourRepoFile],
    userFiles: [],
    carried: [],
    probeHome: '/tmp/fleet-git-live-x/copilot',
    realHome: '/home/dev/.copilot',
    finalText: FINAL,
    userFleetJson: '/home/dev/.copilot/hooks/fleet.json',
    ppidParent: 1,
    missingClients: [],
    settingsHooks: false,
    ...over,
  };
}
const codes = (f: Facts) => Object.fromEntries(judge(f).events.map((e) => [e.id, e.cause?.code ?? e.status]));

describe('live probe: judging what the session showed', () => {
  test('every event once, ppid the Copilot process: ok, with each wait', () => {
    const r = judge(facts());
    assert.equal(r.ok, true);
    assert.deepEqual(
      r.events.map((e) => [e.status, e.levels, e.waitedMs]),
      Array(5).fill(['once', ['repo'], 40]),
    );
    assert.deepEqual(r.ppid, { ppid: 100, copilotPid: 100, isCopilot: true });
  });

  test('ppid: the native binary the loader started counts; any other process fails the probe', () => {
    const viaLoader = facts({ received: [ev('SessionStart', { ppid: 101 }), ...ALL_EVENTS.slice(1)], ppidParent: 100 });
    assert.equal(judge(viaLoader).ppid.isCopilot, true);
    const other = judge(facts({ received: [ev('SessionStart', { ppid: 555 }), ...ALL_EVENTS.slice(1)], ppidParent: 1 }));
    assert.equal(other.ppid.isCopilot, false);
    assert.equal(other.ok, false);
  });

  test("trusted, but Copilot did not load the repository's hook files: repo-not-loaded, fixed by enable --user", () => {
    const f = facts({ received: [], transcript: [], log: { repoHooksLoaded: false, invalid: [], copilotVersion: null } });
    const r = judge(f);
    assert.deepEqual(Object.values(codes(f)), Array(5).fill('repo-not-loaded'));
    assert.deepEqual(
      r.causes.map((c) => c.fix),
      ['fleet-git enable --user'],
    );
  });

  test("one event's repository hook never run (copilot-cli #1730): only that event, repo-not-loaded", () => {
    const f = facts({ received: ALL_EVENTS.slice(1), transcript: ALL_RUNS.slice(1) });
    assert.deepEqual(codes(f), {
      sessionStart: 'repo-not-loaded',
      'postToolUse:bash': 'once',
      'postToolUse:view': 'once',
      agentStop: 'once',
      sessionEnd: 'once',
    });
  });

  test('not trusted comes before not loaded', () => {
    const f = facts({ trusted: false, received: [], transcript: [], log: { repoHooksLoaded: false, invalid: [], copilotVersion: null } });
    assert.deepEqual(Object.values(codes(f)), Array(5).fill('not-trusted'));
  });

  test("the hook timed out: Copilot's message and the file it names", () => {
    const timeout = { message: 'HookTimeoutError: Hook command timed out after 10 seconds: d=...', source: '.github/hooks/fleet.json' };
    const f = facts({
      received: ALL_EVENTS.filter((e) => e.tool_name !== 'Bash'),
      transcript: [ALL_RUNS[0]!, runOf('postToolUse', 'bash', 10_000, timeout), ...ALL_RUNS.slice(2)],
    });
    const bash = judge(f).events.find((e) => e.id === 'postToolUse:bash')!;
    assert.equal(bash.cause?.code, 'timeout');
    assert.equal(bash.waitedMs, 10_000);
    assert.match(bash.cause!.message, /timed out after 10 seconds.*in \.github\/hooks\/fleet\.json/);
    // Another file's timeout is not fleet-git's.
    const foreign = { ...timeout, source: '.github/hooks/slow.json' };
    const g = facts({
      received: f.received,
      transcript: [ALL_RUNS[0]!, runOf('postToolUse', 'bash', 10_000, foreign), ...ALL_RUNS.slice(2)],
    });
    assert.notEqual(judge(g).events.find((e) => e.id === 'postToolUse:bash')!.cause?.code, 'timeout');
  });

  test("fleet-git's own hook file broken (not valid JSON): invalid-json, naming it", () => {
    const broken: SeenFile = { ...ourRepoFile, text: OURS.replace(/}\s*$/, ',}'), parseError: 'not valid JSON (x)' };
    const f = facts({
      repoFiles: [broken],
      received: [],
      transcript: [],
      log: { repoHooksLoaded: true, invalid: [{ file: broken.path, error: 'Invalid JSON: trailing comma' }], copilotVersion: null },
    });
    const r = judge(f);
    assert.deepEqual(Object.values(codes(f)), Array(5).fill('invalid-json'));
    assert.match(r.causes[0]!.message, /^\.github\/hooks\/fleet\.json runs fleet-git's hook client but is not valid JSON/);
    assert.equal(r.hookFiles[0]!.invalid, 'Invalid JSON: trailing comma');
  });

  test('no hook file runs the client: not-enabled; a missing client: client-missing; no node: no-node', () => {
    assert.deepEqual(Object.values(codes(facts({ repoFiles: [], received: [], transcript: [] }))), Array(5).fill('not-enabled'));
    const gone = facts({ received: [], missingClients: [`${DATA}/hook-client.cjs`] });
    assert.deepEqual(Object.values(codes(gone)), Array(5).fill('client-missing'));
    assert.deepEqual(
      judge(gone).causes.map((c) => c.fix),
      ['fleet-git enable'],
    );
    const noNode = facts({ received: [], node: { onPath: false, recorded: null, usable: false } });
    assert.deepEqual(Object.values(codes(noNode)), Array(5).fill('no-node'));
  });

  test('the agentStop without its final message fails; no node on PATH but a recorded one is a note', () => {
    const f = facts({ received: ALL_EVENTS.map((e) => (e.message === 'end_turn' ? { ...e, last_assistant_message: null } : e)) });
    assert.equal(codes(f).agentStop, 'no-message');
    assert.equal(judge(f).ok, false);
    const r = judge(facts({ node: { onPath: false, recorded: '/opt/node/bin/node', usable: true } }));
    assert.equal(r.ok, true);
    assert.ok(r.notes.some((n) => n.includes('/opt/node/bin/node')));
  });

  test('a session stopped at its deadline names the time it was given, not how long stopping it took', () => {
    const run = {
      pid: 100,
      code: null,
      signal: 'SIGTERM',
      timedOut: true,
      limitMs: 2000,
      interrupted: false,
      spawnError: null,
      output: '',
      ms: 3400,
    };
    const r = judge(facts({ run, received: [], transcript: [] }));
    assert.match(r.causes[0]!.message, /^Copilot did not finish within 2 s and was stopped before this event$/);
  });

  test('a session that failed: the events it never reached say so', () => {
    const f = facts({
      run: {
        pid: 100,
        code: 1,
        signal: null,
        timedOut: false,
        limitMs: 50_000,
        interrupted: false,
        spawnError: null,
        output: '\nError: no model\n',
        ms: 300,
      },
      received: [],
      transcript: [],
    });
    const r = judge(f);
    assert.deepEqual(Object.values(codes(f)), Array(5).fill('session-failed'));
    assert.match(r.causes[0]!.message, /^Copilot exited with 1 before this event \(it said: Error: no model\)/);
  });
});
