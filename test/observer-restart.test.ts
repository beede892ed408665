// One forwarder kept alive across an observer's end: the observer ends (SIGTERM, as `q` does; SIGKILL; SIGSTOP
// with a full socket, then SIGKILL; its server closed while the process runs on), a new one listens on the same
// socket 0.5 s later, and every event whose hook ran after that arrives at the new one once, in order, within
// 5 s of its hook. Each observer is the suite's stand-in (test/fixtures/observer-process.ts) as a process of
// its own, so that it can be signalled; events come through the real hook command and the forwarder it starts.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fleetGitProcesses, ROOT } from './helpers.js';
import { readLease } from '../src/copilot/forwarder.js';
import { isAlive } from '../src/fs/process.js';
import { type Received } from './observer-server.js';
import { enabledHooks, runHook, stepOf, tool, until } from './hook-run.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long after its hook an event fired once the new observer listens may take to reach it. */
const WITHIN_MS = 5000;

interface Observer {
  proc: ChildProcess;
  /** When it said it listens (ms of the clock). */
  listening: number;
  /** The events it took, each with when its line reached the test. */
  got: Array<{ e: Received; at: number }>;
}

/** An observer process on `socket`, once it listens. */
async function observer(socket: string): Promise<Observer> {
  const proc = spawn(
    process.execPath,
    ['--import', join(ROOT, 'scripts/ts-loader.mjs'), join(ROOT, 'test/fixtures/observer-process.ts'), socket],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const o: Observer = { proc, listening: 0, got: [] };
  let buf = '';
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (d: string) => {
    buf += d;
    for (let n; (n = buf.indexOf('\n')) >= 0; buf = buf.slice(n + 1)) {
      const line = buf.slice(0, n);
      if (line === 'listening') o.listening = Date.now();
      else o.got.push({ e: JSON.parse(line) as Received, at: Date.now() });
    }
  });
  await until('the observer to listen', () => o.listening > 0 || proc.exitCode !== null);
  assert.ok(o.listening > 0, 'the observer process listens');
  return o;
}

/** A spool file as the hook writes it (the format at the top of src/copilot/forwarder.ts). */
function spoolFile(home: string, text: string): string {
  const facts = ['postToolUse', '1', '1', home, '', '', '', '', '', '', '', '', 'fleet-git-event-1'];
  return [text, ...facts].map((f) => `${f}\0`).join('');
}

type End = 'SIGTERM' | 'SIGKILL' | 'SIGSTOP then SIGKILL' | 'its server closed';

describe('one forwarder across an observer’s end', () => {
  // The forwarder's own idle time: it stays while events come.
  const t = enabledHooks('fleet-git-restart-', 10_000);
  const observers: Observer[] = [];
  after(async () => {
    for (const o of observers) o.proc.kill('SIGKILL');
    for (const pid of fleetGitProcesses(t.sb.home)) process.kill(pid, 'SIGKILL');
  });

  const start = async () => {
    const o = await observer(t.paths.fleetSocket);
    observers.push(o);
    return o;
  };

  /** Hook starts (ms of the clock) by step. */
  const fired = new Map<number, number>();
  const fire = async (sid: string, step: number) => {
    fired.set(step, Date.now());
    const r = await runHook(t.cmd('postToolUse'), tool(sid, step), t.env);
    assert.equal(r.code, 0);
  };

  /** Ends an observer as `end` says; resolves once it has ended (or closed its server). */
  async function endObserver(o: Observer, end: End, sid: string, next: () => number): Promise<void> {
    const gone = () =>
      new Promise<void>((r) => (o.proc.exitCode !== null || o.proc.signalCode !== null ? r() : o.proc.once('exit', () => r())));
    if (end === 'SIGTERM' || end === 'SIGKILL') {
      o.proc.kill(end);
      await gone();
    } else if (end === 'its server closed') {
      o.proc.kill('SIGUSR2');
      await sleep(100);
    } else {
      // Stopped with more waiting than its socket takes (about 200 KiB): the forwarder's write waits on it.
      o.proc.kill('SIGSTOP');
      const base = Date.now() * 1000;
      const big = (i: number) => {
        const p = JSON.parse(tool(sid, i)) as { toolResult: { textResultForLlm: string } };
        p.toolResult.textResultForLlm = 'x'.repeat(1900);
        return JSON.stringify(p);
      };
      mkdirSync(t.spool, { recursive: true, mode: 0o700 });
      for (let k = 0; k < 300; k++) {
        const i = next();
        fired.set(i, Date.now());
        writeFileSync(join(t.spool, `${base + k}.${300_000 + k}.ev`), spoolFile(t.sb.home, big(i)));
      }
      await sleep(1500);
      assert.ok(t.waiting().length > 0, 'the forwarder waits on the stopped observer');
      o.proc.kill('SIGKILL');
      await gone();
    }
  }

  /**
   * One session: an event every 0.4 s from before the observer's end to 2.5 s after the new one listens, then a
   * burst of 100; checks what the new observer got. Returns nothing: asserts.
   */
  async function restart(sid: string, end: End): Promise<void> {
    fired.clear();
    const old = await start();
    await fire(sid, 0);
    await until('the first event', () => old.got.some((g) => g.e.session_id === sid));
    const forwarder = readLease(t.spool)?.pid ?? 0;
    assert.ok(forwarder > 0, 'a forwarder runs');
    let step = 1;
    let pacing = true;
    const pacer = (async () => {
      while (pacing) {
        await fire(sid, step++);
        await sleep(400);
      }
    })();
    await sleep(1200);
    await endObserver(old, end, sid, () => step++);
    await sleep(500);
    const fresh = await start();
    await sleep(2500);
    pacing = false;
    await pacer;
    for (let i = 0; i < 100; i++) await fire(sid, step++);
    const last = step - 1;
    await until(
      'the last event at the new observer',
      () => fresh.got.some((g) => g.e.session_id === sid && stepOf(g.e) === last),
      30_000,
    ).catch(() => {});
    const got = fresh.got.filter((g) => g.e.session_id === sid);
    const steps = got.map((g) => stepOf(g.e));
    // Hooks started after it listened: each once, in order; and no event twice.
    const after = [...fired].filter(([, at]) => at >= fresh.listening).map(([i]) => i);
    assert.ok(after.length > 100, `${after.length} events fired after the new observer listened`);
    const first = after[0]!;
    assert.deepEqual(
      steps.filter((s) => s >= first),
      Array.from({ length: last - first + 1 }, (_, k) => first + k),
      `the new observer got ${steps.length} events: ${JSON.stringify(steps.slice(0, 40))}…`,
    );
    assert.equal(new Set(steps).size, steps.length, `none twice: ${JSON.stringify(steps)}`);
    const late = got.filter((g) => stepOf(g.e) >= first && g.at - fired.get(stepOf(g.e))! > WITHIN_MS);
    assert.deepEqual(
      late.map((g) => [stepOf(g.e), g.at - fired.get(stepOf(g.e))!]),
      [],
      `events later than ${WITHIN_MS} ms after their hook`,
    );
    assert.equal(readLease(t.spool)?.pid, forwarder, 'the same forwarder throughout');
    assert.ok(isAlive(forwarder));
    fresh.proc.kill('SIGTERM');
    if (end === 'its server closed') old.proc.kill('SIGKILL');
  }

  test('events 8 s apart for a minute, the observer ended twice (SIGTERM, then SIGKILL) and started again 0.5 s later: each event arrives at the observer that listened when its hook ran, once, within 5 s, all through one forwarder', async () => {
    fired.clear();
    const sid = 'a-minute';
    const GAP = 8000;
    const at = new Map<number, Observer>(); // the observer each event is for
    let o = await start();
    let forwarder = 0;
    for (let i = 0; i < 8; i++) {
      const begun = Date.now();
      at.set(i, o);
      await fire(sid, i);
      if (i === 0) {
        await until('the first event', () => o.got.length > 0);
        forwarder = readLease(t.spool)?.pid ?? 0;
      }
      if (i === 1 || i === 4) {
        await sleep(GAP / 2);
        await endObserver(o, i === 1 ? 'SIGTERM' : 'SIGKILL', sid, () => 0);
        await sleep(500);
        o = await start();
      }
      await sleep(Math.max(0, begun + GAP - Date.now()));
    }
    await until('the last event', () => o.got.some((g) => stepOf(g.e) === 7), 10_000).catch(() => {});
    for (const [i, obs] of at) {
      const got = obs.got.filter((g) => g.e.session_id === sid && stepOf(g.e) === i);
      assert.equal(got.length, 1, `event ${i} at its observer once`);
      assert.ok(got[0]!.at - fired.get(i)! <= WITHIN_MS, `event ${i} ${got[0]!.at - fired.get(i)!} ms after its hook`);
    }
    assert.equal(readLease(t.spool)?.pid, forwarder, 'the same forwarder throughout');
    o.proc.kill('SIGTERM');
  });

  for (const end of ['SIGTERM', 'SIGKILL', 'SIGSTOP then SIGKILL', 'its server closed'] as const)
    test(`the observer ends (${end}), a new one listens 0.5 s later: every event fired after arrives, once, in order, within 5 s`, () =>
      restart(`restart-${end.replace(/\W+/g, '-')}`, end));
});
