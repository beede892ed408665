// Subagents over the payloads captured from the real Copilot CLI 1.0.102 (test/fixtures/copilot-1.0.102/subagents):
// each session's hooked events, prepared as the forwarder prepares them and routed in their order, make one card;
// and what a single event alone (the direct hook client, the library's adapter) can tell.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { prepare, routeAlone, type Prepared } from '../src/copilot/hook-event.js';
import { delegation, summarizeToolUse } from '../src/copilot/normalize.js';
import { SubagentRoutes, subagentOf } from '../src/copilot/subagents.js';
import { finalMessageFromLines } from '../src/copilot/transcript.js';
import { noticeFor } from '../src/fleet/notify.js';
import type { FleetEvent } from '../src/fleet/event.js';
import { FIXTURES, ROOT } from './helpers.js';
import { cardsOf, type Received } from './observer-server.js';

interface Captured {
  key: string;
  ppid: number;
  payload: Record<string, unknown> & { sessionId: string };
}
const session = (name: string): Captured[] =>
  (JSON.parse(readFileSync(join(FIXTURES, 'subagents', `${name}.json`), 'utf8')) as { events: Captured[] }).events;
/** The events fleet-git's hook file runs its hook for (templates/fleet.json). */
const HOOKED = new Set(Object.keys((JSON.parse(readFileSync(join(ROOT, 'templates', 'fleet.json'), 'utf8')) as { hooks: object }).hooks));

const home = mkdtempSync(join(tmpdir(), 'fleet-git-subagents-'));
after(() => rmSync(home, { recursive: true, force: true }));
const env = {
  HOME: home,
  COPILOT_HOME: join(home, '.copilot'),
  COPILOT_MODEL: 'gpt-4.1',
  COPILOT_HOOK_DIR: '/home/dev/code/demo/.github/hooks',
};

/** Copilot's session folder for each session (not for subagents), as Copilot makes it. */
function sessionFolders(events: Captured[]): void {
  for (const e of events)
    if (e.key === 'sessionStart') mkdirSync(join(env.COPILOT_HOME, 'session-state', e.payload.sessionId), { recursive: true });
}

/** What the forwarder sends for these hooked events, in their order (its routing, without the socket). */
async function forwarded(events: Captured[], routes = new SubagentRoutes()): Promise<FleetEvent[]> {
  const out: FleetEvent[] = [];
  for (const e of events) {
    if (!HOOKED.has(e.key)) continue;
    // An agentStop's final message is in a transcript this fixture does not have: given in the payload instead.
    const payload = e.key === 'agentStop' ? { ...e.payload, last_assistant_message: `answer of ${e.payload.sessionId}` } : e.payload;
    const run: Prepared | null = prepare({ event: e.key, text: JSON.stringify(payload), env, pid: 1, ppid: () => e.ppid });
    if (!run) continue;
    const to = await routes.route(run.ev.session_id, run.sub, e.ppid, run.paths.copilotHome);
    if (to === null) continue;
    run.ev.session_id = to;
    out.push(run.ev);
  }
  return out;
}
/** two-at-once's calls as they came: the subagents' interleaved, then each task as its subagent ended. */
const TWO = [
  'Bash: echo b-1',
  'Bash: sleep 1; echo a-1',
  'Bash: sleep 1; echo b-2',
  'Bash: echo a-2',
  'Task Second helper',
  'Task First helper',
];
const cards = (evs: FleetEvent[]) => cardsOf(evs as unknown as Received[]);

describe('subagents', () => {
  test("every event a subagent fires names its parent; the session's own never do", () => {
    for (const name of ['task', 'nested', 'two-at-once', 'background'])
      for (const e of session(name)) {
        const sub = subagentOf(e.payload);
        if (e.payload.agentId === e.payload.sessionId)
          assert.deepEqual(sub, { id: e.payload.sessionId, parent: e.payload.parentAgentId }, name);
        else if (e.key === 'postToolUse' || e.key === 'agentStop') assert.equal(sub, null, `${name} ${e.key}`);
      }
  });

  for (const [name, actions] of [
    ['task', ['Bash: echo from-sub', 'Task Run the echo']],
    ['nested', ['Bash: echo parent-1', 'Bash: echo lvl1', 'Bash: echo from-sub', 'Task Level two', 'Task Level one']],
    ['two-at-once', TWO],
  ] as const)
    test(`${name}: one card, the subagents' calls on it in order, idle with the session's own answer`, async () => {
      const events = session(name);
      sessionFolders(events);
      const sent = await forwarded(events);
      const all = cards(sent);
      assert.equal(all.size, 1);
      const [sid, card] = [...all][0]!;
      assert.equal(sid, events.find((e) => e.key === 'sessionStart')!.payload.sessionId);
      assert.deepEqual(card.actions, actions);
      assert.deepEqual([card.status, card.awaitsInput, card.lastMessage], ['idle', true, `answer of ${sid}`]);
      // Its Stops: the turn's end and the session's end, no subagent's.
      assert.deepEqual(
        sent.filter((e) => e.event === 'Stop').map((e) => e.message),
        ['end_turn', 'complete'],
      );
    });

  test('a nested subagent whose parent fired nothing yet: placed by the Copilot process, else by the session log that names it, else dropped', async () => {
    const events = session('nested');
    sessionFolders(events);
    const lvl1 = '218f3459-3b1e-43af-abec-88f908c33b32';
    // Level one's own command gone: level two's parent is a subagent the forwarder has not seen.
    const silent = events.filter((e) => !(e.payload.sessionId === lvl1 && e.key === 'postToolUse' && e.payload.toolName === 'bash'));
    const sent = await forwarded(silent);
    assert.equal(cards(sent).size, 1);
    assert.ok(sent.some((e) => e.tool_name === 'Bash' && (e.tool_input as { command?: string }).command === 'echo from-sub'));
    // The same events in a forwarder that starts at level two's command (it saw no session from that process): nothing sent for it.
    const from = silent.findIndex(
      (e) => e.key === 'postToolUse' && (e.payload.toolArgs as { command?: string }).command === 'echo from-sub',
    );
    const late = () => forwarded(silent.slice(from, from + 1));
    assert.deepEqual(await late(), []);
    // Unless the session's log names that subagent (as a real one does, on each of its lines).
    const root = silent.find((e) => e.key === 'sessionStart')!.payload.sessionId;
    const log = join(env.COPILOT_HOME, 'session-state', root, 'events.jsonl');
    writeFileSync(log, `${JSON.stringify({ type: 'subagent.started', data: { toolCallId: 'call_2' }, agentId: lvl1 })}\n`);
    try {
      assert.deepEqual(
        (await late()).map((e) => [e.session_id, e.tool_name]),
        [[root, 'Bash']],
      );
    } finally {
      rmSync(log);
    }
  });

  test('a background subagent that runs on after the turn: its calls on the card, which a later answer makes idle again', async () => {
    const events = session('background');
    sessionFolders(events);
    const sent = await forwarded(events);
    const all = cards(sent);
    assert.equal(all.size, 1);
    const card = [...all.values()][0]!;
    assert.deepEqual(card.actions, ['Task Background work', 'Bash: sleep 1; echo a-1', 'Bash: echo a-2']);
    assert.equal(card.status, 'idle');
  });

  test("a subagent's errors and notifications that ask the user nothing send nothing; its permission prompt goes on the card", async () => {
    const events = session('task');
    sessionFolders(events);
    const root = events.find((e) => e.key === 'sessionStart')!.payload.sessionId;
    const subCall = events.find((e) => e.key === 'postToolUse' && e.payload.parentAgentId !== undefined)!;
    const ids = { sessionId: subCall.payload.sessionId, agentId: subCall.payload.agentId, agentType: 'task', parentAgentId: root };
    const at = events.indexOf(subCall);
    const fired = (key: string, payload: Record<string, unknown>): Captured => ({
      key,
      ppid: subCall.ppid,
      payload: { cwd: '/home/dev/code/demo', timestamp: subCall.payload.timestamp as number, ...payload } as unknown as Captured['payload'],
    });
    const extra = [
      fired('errorOccurred', { ...ids, error: { message: 'rate limited', name: 'E' }, errorContext: 'model_call', recoverable: false }),
      fired('notification', { ...ids, message: 'Shell command completed', notification_type: 'shell_completed' }),
      fired('notification', { ...ids, message: 'Path permission needed: /etc', notification_type: 'permission_prompt' }),
    ];
    const sent = await forwarded([...events.slice(0, at + 1), ...extra, ...events.slice(at + 1)]);
    assert.deepEqual(
      sent.filter((e) => e.event === 'Notification').map((e) => [e.session_id, e.message]),
      [[root, 'Path permission needed: /etc']],
    );
    assert.equal(cards(sent).size, 1);
  });

  test('a subagent whose root no log names waits for the logs once: its later events send nothing at once', async () => {
    const routes = new SubagentRoutes();
    const orphan = { id: 'orphan-sub', parent: 'no-such-parent' };
    const copilotHome = join(home, 'no-logs');
    let t = Date.now();
    assert.equal(await routes.route('orphan-sub', orphan, null, copilotHome), null);
    assert.ok(Date.now() - t >= 1500, 'the first waits for the logs');
    t = Date.now();
    for (let i = 0; i < 5; i++) assert.equal(await routes.route('orphan-sub', orphan, null, copilotHome), null);
    assert.ok(Date.now() - t < 1000, `the later ones took ${Date.now() - t} ms`);
  });

  test('alone (the direct hook client, the adapter): sent as the parent when that is a session, else not at all', () => {
    const events = session('nested');
    sessionFolders(events);
    const prep = (e: Captured) => prepare({ event: e.key, text: JSON.stringify(e.payload), env, pid: 1, ppid: () => e.ppid })!;
    const direct = events.find(
      (e) => e.key === 'postToolUse' && e.payload.parentAgentId === '5481c3ea-8a30-4f53-89f6-0696ba5c0dd8' && e.payload.toolName === 'bash',
    )!;
    const run = prep(direct);
    assert.equal(routeAlone(run, run.paths.copilotHome), true);
    assert.equal(run.ev.session_id, '5481c3ea-8a30-4f53-89f6-0696ba5c0dd8');
    const nested = events.find((e) => e.key === 'postToolUse' && e.payload.parentAgentId === '218f3459-3b1e-43af-abec-88f908c33b32')!;
    const deep = prep(nested);
    assert.equal(routeAlone(deep, deep.paths.copilotHome), false);
    // A subagent's agentStop is nothing to anyone.
    assert.equal(prep(events.find((e) => e.key === 'agentStop' && e.payload.parentAgentId !== undefined)!), null);
  });

  test('the task tool reads as Task and its description, as the observer splits it', () => {
    assert.equal(delegation('task', { description: 'Run the echo', prompt: 'x' }), 'Task Run the echo');
    assert.equal(delegation('task', JSON.stringify({ description: '  Fix\nthe   build ' })), 'Task Fix the build');
    assert.equal(delegation('runSubagent', { description: 'Find the port' }), 'Task Find the port');
    assert.equal(delegation('task', {}), 'Task');
    assert.equal(delegation('task', 'not json'), 'Task');
    assert.equal(delegation('bash', { description: 'x' }), null);
    assert.equal(delegation('task', { description: 'x'.repeat(300) })!.length, 'Task '.length + 60);
    assert.equal(summarizeToolUse('task', { description: 'Run the echo' }), 'Task Run the echo');
  });

  test("a session's final answer is its own: a subagent's lines after it (a background one) are passed over", () => {
    const line = (type: string, data: Record<string, unknown>, agentId?: string) =>
      JSON.stringify({ type, data, ...(agentId ? { agentId } : {}) });
    const lines = [
      line('assistant.message', { content: 'bg done', toolRequests: [] }),
      line('assistant.turn_end', {}),
      line('assistant.turn_start', {}, 'sub-1'),
      line('tool.execution_start', { toolName: 'bash' }, 'sub-1'),
    ];
    assert.deepEqual(finalMessageFromLines(lines), { state: 'found', text: 'bg done' });
  });

  test("notices: a turn's end and a notification, as fleet's hook client titles them; not a session's end", () => {
    const base = {
      session_id: 's',
      cwd: '/w/demo',
      timestamp: Date.now(),
      last_assistant_message: 'All done.',
      message: null,
    } as unknown as FleetEvent;
    assert.deepEqual(noticeFor({ ...base, event: 'Stop' }, true), {
      kind: 'stop',
      title: 'GitHub Copilot',
      body: 'All done.',
      cwd: '/w/demo',
      sessionId: 's',
    });
    assert.equal(noticeFor({ ...base, event: 'Stop', message: 'complete' }, false), null);
    assert.deepEqual(noticeFor({ ...base, event: 'Notification', message: 'Path permission needed: /x' }, false), {
      kind: 'notification',
      title: 'GitHub Copilot 通知',
      body: 'Path permission needed: /x',
      cwd: '/w/demo',
      sessionId: 's',
    });
    assert.equal(noticeFor({ ...base, event: 'PostToolUse' }, false), null);
    // An event that waited in the spool for over 5 minutes (a reboot, a forwarder that could not run) is not announced.
    assert.equal(noticeFor({ ...base, event: 'Stop', timestamp: Date.now() - 301_000 }, true), null);
  });
});
