// Property tests (fast-check) over the real Copilot 1.0.102 payloads, mutated,
// and over made-up ones: the normalizer never throws and gives events of the
// observer's schema (fleet-observer-protocol.md) within the line limit; the
// built hook client, run as a process, always exits 0, prints nothing, and
// forwards only whole lines of such events. Seeded: a failure prints the seed,
// and FLEET_GIT_FUZZ_SEED=<seed> runs the same cases again
// (FLEET_GIT_FUZZ_RUNS=<n> multiplies the number of cases).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { EVENT_MAX_BYTES, normalizePayload } from '../src/copilot/normalize.js';
import { isPlainId } from '../src/fleet/event.js';
import { LINE_MAX } from '../src/fleet/socket.js';
import { userPaths } from '../src/paths.js';
import { FIXTURES, repeats, sandbox } from './helpers.js';
import { CLIENT, runClient } from './hook-run.js';
import { observerSummary, RawObserver, wholeLines } from './observer-server.js';

/** The hook client's limit on its stdin (src/copilot/hook-client.ts, which runs as it is imported). */
const STDIN_MAX = 32 * 1024 * 1024;
// A fixed seed by default, so that a run of the suite (CI's included) is repeatable;
// FLEET_GIT_FUZZ_SEED=random explores new cases, any number repeats a run.
const seedVar = process.env.FLEET_GIT_FUZZ_SEED;
const SEED = seedVar === 'random' ? Math.floor(Math.random() * 2 ** 31) : seedVar ? Number(seedVar) : 411979593;
const RUNS = Math.max(1, Number(process.env.FLEET_GIT_FUZZ_RUNS) || 1);

/** fc.assert with this run's seed, saying how to run the same cases again when it fails. */
async function check(property: fc.IProperty<unknown> | fc.IAsyncProperty<unknown>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property as fc.IAsyncProperty<unknown>, { seed: SEED, numRuns: repeats(numRuns) * RUNS });
  } catch (e) {
    // fast-check's report names the seed, the case and the error; a case can hold strings of megabytes: each line is cut.
    const cause = (e as Error).cause;
    const report = `${(e as Error).message}${cause ? `\nGot: ${(cause as Error).message ?? String(cause)}` : ''}`
      .split('\n')
      .map((l) => (l.length > 600 ? `${l.slice(0, 600)}… (${l.length} characters)` : l))
      .join('\n');
    throw new Error(`fuzz failed with seed ${SEED}: run again with FLEET_GIT_FUZZ_SEED=${SEED}\n${report}`);
  }
}

// ---- what the payloads are made of ---------------------------------------

const FORWARDED = ['sessionStart', 'postToolUse', 'postToolUseFailure', 'agentStop', 'sessionEnd', 'notification', 'errorOccurred'];
const EVENTS = [...FORWARDED, 'SessionStart', 'PostToolUse', 'Stop', 'preToolUse', 'userPromptSubmitted', '', 'constructor', '__proto__'];
const PROTO_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];
const KEYS = [
  'sessionId',
  'session_id',
  'timestamp',
  'cwd',
  'toolName',
  'tool_name',
  'toolArgs',
  'tool_input',
  'toolResult',
  'tool_result',
  'error',
  'errorContext',
  'stopReason',
  'reason',
  'message',
  'title',
  'notification_type',
  'model',
  'hook_event_name',
  'type',
  'last_assistant_message',
  'path',
  'file_path',
  'command',
  'pattern',
  'textResultForLlm',
  'content',
  ...PROTO_NAMES,
];
const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Record<string, unknown>);

const shortString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    ...PROTO_NAMES,
    ...KEYS,
    '',
    '..',
    '../x',
    'a/b',
    'bash',
    'view',
    'edit',
    'create',
    'grep',
    'glob',
    '\u2028',
    '\n',
    '{"message":"inner"}',
    '2026-11-29T17:52:58.767Z',
  ),
);
/** Now and then a long one (up to 300,000 characters), of repeated or escaped characters. */
const longString = fc
  .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }), fc.integer({ min: 1000, max: 300_000 }))
  .map(([s, n]) => s.repeat(Math.ceil(n / s.length)));
const anyString = fc.oneof({ weight: 12, arbitrary: shortString }, { weight: 1, arbitrary: longString });
const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ unit: 'binary', maxLength: 12 }));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyString,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
}));
/** A wide tool input, which a per-level limit alone let grow into megabytes. */
// Its string is cut so that the whole stays within some 16 million characters: n * n copies of a
// 300,000-character string would be past what one JavaScript string holds, and JSON.stringify of it would throw.
const wide = fc.tuple(fc.integer({ min: 10, max: 80 }), anyString).map(([n, s]) => {
  const one = s.slice(0, Math.floor(16_000_000 / (n * n)));
  return { a: Array.from({ length: n }, () => ({ b: Array.from({ length: n }, () => [one]) })) };
});

/** A real payload with some of its fields replaced, removed, or added. */
const mutated = fc
  .tuple(
    fc.constantFrom(...fixtures),
    fc.array(
      fc.tuple(
        key,
        fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: wide }, { weight: 1, arbitrary: fc.constant(undefined) }),
      ),
      { maxLength: 4 },
    ),
  )
  .map(([base, edits]) => {
    const out: Record<string, unknown> = JSON.parse(JSON.stringify(base));
    for (const [k, v] of edits) {
      if (v === undefined) delete out[k];
      else Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  });
const madeUp = fc.dictionary(key, value, { maxKeys: 8 }).map((d) => ({ sessionId: 'made-up', ...d }));
const payload = fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: madeUp });

// ---- the observer's schema -------------------------------------------------

const KNOWN = new Set([
  'event',
  'session_id',
  'cwd',
  'timestamp',
  'model',
  'pid',
  'ppid',
  'term_program',
  'iterm_session_id',
  'tool_name',
  'tool_input',
  'tool_output',
  'last_assistant_message',
  'message',
  'notification_type',
  '_tool',
  'tool',
  'fleet_model_name',
  'probe_hook_dir',
]);
const STRING_OR_NULL = [
  'cwd',
  'model',
  'term_program',
  'iterm_session_id',
  'tool_name',
  'tool_output',
  'last_assistant_message',
  'message',
  'notification_type',
];

/** Throws unless `e` is an event as the observer's schema types it, one its handler and summarizer take without throwing. */
function assertObserverEvent(e: Record<string, unknown>): void {
  assert.ok(['SessionStart', 'PostToolUse', 'Stop', 'Notification'].includes(e.event as string), `event ${String(e.event)}`);
  assert.ok(isPlainId(e.session_id), 'session_id');
  assert.ok(typeof e.timestamp === 'number' && Number.isFinite(e.timestamp), 'timestamp');
  for (const k of STRING_OR_NULL) assert.ok(e[k] === null || typeof e[k] === 'string', `${k}: ${typeof e[k]}`);
  for (const k of ['pid', 'ppid']) assert.ok(e[k] === null || Number.isInteger(e[k]), k);
  if (e.event === 'PostToolUse') assert.ok(typeof e.tool_name === 'string' && e.tool_name !== '', 'tool_name');
  const input = e.tool_input;
  assert.ok(input === null || typeof input === 'string' || (typeof input === 'object' && !Array.isArray(input)), 'tool_input');
  if (input && typeof input === 'object') {
    for (const k of ['file_path', 'command', 'pattern'])
      assert.ok(!Object.hasOwn(input, k) || typeof (input as Record<string, unknown>)[k] === 'string', `tool_input.${k}`);
  }
  assert.ok(e.last_assistant_message === null || (e.last_assistant_message as string).length <= 500, 'last_assistant_message');
  assert.deepEqual([e._tool, e.tool], ['copilot', 'copilot']);
  assert.ok(e.fleet_model_name === undefined || typeof e.fleet_model_name === 'string', 'fleet_model_name');
  assert.ok(e.probe_hook_dir === undefined || e.probe_hook_dir === null || typeof e.probe_hook_dir === 'string', 'probe_hook_dir');
  for (const k of Object.keys(e)) assert.ok(KNOWN.has(k), `unknown field ${k}`);
  assert.equal(typeof observerSummary(e.tool_name, e.tool_input), 'string');
}

// ---- the properties ----------------------------------------------------------

describe(`fuzz (seed ${SEED})`, () => {
  test("normalizePayload: never throws; null or an event of the observer's schema whose JSON fits in the line", async () => {
    const env = fc.record(
      {
        FLEET_MODEL_NAME: fc.option(anyString, { nil: undefined }),
        TERM_PROGRAM: fc.option(anyString, { nil: undefined }),
        COPILOT_MODEL: fc.option(anyString, { nil: undefined }),
      },
      { requiredKeys: [] },
    );
    await check(
      fc.property(payload, fc.constantFrom(...EVENTS), env, (raw, event, envVars) => {
        const e = normalizePayload(raw, event, { env: envVars as Record<string, string | undefined>, pid: 1, ppid: 2 });
        if (e === null) return;
        const json = JSON.stringify(e);
        assert.ok(Buffer.byteLength(json) <= EVENT_MAX_BYTES, `${Buffer.byteLength(json)} bytes`);
        assertObserverEvent(JSON.parse(json));
      }),
      1000,
    );
  });

  describe('the hook client, as a process', () => {
    const sb = sandbox('fleet-git-fuzz-');
    const paths = userPaths(sb.env, sb.home);
    // agentStop reads this transcript, which has the turn's final message: no waiter process lingers.
    const transcript = join(FIXTURES, 'transcript-events.jsonl');
    let obs: RawObserver;
    before(async () => {
      assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`);
      obs = await RawObserver.start(paths.fleetSocket);
    });
    after(() => obs?.close());

    const text = fc.oneof(
      { weight: 6, arbitrary: payload.map((p) => JSON.stringify(p)) },
      {
        weight: 1,
        arbitrary: fc.tuple(payload, fc.nat()).map(([p, n]) => {
          const s = JSON.stringify(p);
          return s.slice(0, n % (s.length + 1));
        }),
      },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 50 }) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 50 }).map((b) => Buffer.from(b)) },
    );

    test('always exits 0 and prints nothing; sends one whole line of the schema when it sends', { timeout: 120_000 }, async () => {
      await check(
        fc.asyncProperty(text, fc.constantFrom(...FORWARDED, 'preToolUse', 'constructor'), async (input, event) => {
          let raw: unknown = null;
          try {
            raw = JSON.parse(input.toString());
          } catch {
            /* sent as it is */
          }
          if (event === 'agentStop' && raw && typeof raw === 'object' && !Array.isArray(raw)) {
            (raw as Record<string, unknown>).transcriptPath = transcript;
            input = JSON.stringify(raw);
          }
          // A payload over the client's stdin limit is read to its end and dropped (now and then a wide one is hundreds of MB).
          const sends = Buffer.byteLength(input) <= STDIN_MAX && normalizePayload(raw, event, { env: sb.env }) !== null;
          const seen = obs.ended.length;
          const r = await runClient(sb.env, [event], input);
          assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `the client's exit, stdout and stderr for ${event}`);
          await obs.drained(); // the client has exited: all it sent has been read, a late connection included
          const got = obs.ended.slice(seen);
          assert.equal(got.length, sends ? 1 : 0, `connections for ${event}`);
          for (const bytes of got) {
            assert.ok(bytes.length <= LINE_MAX, `a line of ${bytes.length} bytes`);
            const lines = wholeLines(bytes);
            assert.equal(lines.length, 1);
            assertObserverEvent(lines[0]!);
          }
        }),
        25,
      );
    });
  });
});
