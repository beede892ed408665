// The forwarder's lease under faults, each through the real hook command, the
// forwarder it starts and a real socket: whatever ends a forwarder, and
// whatever process its PID becomes, the events of the hooks after it arrive
// once and in order, with no later hook needed (src/copilot/forwarder.ts has
// the protocol). A PID handed to a bash is made certain by writing
// ns_last_pid (root). Without /proc: test/macos.test.ts.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fleetGitProcesses, needsRoot, repeats } from './helpers.js';
import { leaseHeld, readLease } from '../src/copilot/forwarder.js';
import { isAlive } from '../src/fs/process.js';
import { TestObserver, type Received } from './observer-server.js';
import { enabledHooks, runHook, stepOf, tool, until } from './hook-run.js';

const NS_LAST_PID = '/proc/sys/kernel/ns_last_pid';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The fields of /proc/PID/stat after the command's name: [state, ppid, pgrp, session, ...]. */
function statOf(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
const parentOf = (pid: number) => Number(statOf(pid)[1]);
const groupOf = (pid: number) => Number(statOf(pid)[2]);
const sessionOf = (pid: number) => Number(statOf(pid)[3]);

/** A bash that lives 60 s, started with PID `pid` when that PID is free (root: ns_last_pid), else the next one. */
function bashWithPid(pid: number): ChildProcess {
  writeFileSync(NS_LAST_PID, String(pid - 1));
  return spawn('/bin/bash', ['--norc', '--noprofile', '-c', 'sleep 60; exit 0'], { stdio: 'ignore' });
}

/** A spool file as the hook writes it (the format at the top of src/copilot/forwarder.ts). */
function spoolFile(home: string, text: string, event = 'postToolUse'): string {
  const facts = [event, '1', '1', home, '', '', '', '', '', '', '', '', 'fleet-git-event-1'];
  return [text, ...facts].map((f) => `${f}\0`).join('');
}

describe('the forwarder under faults', () => {
  const t = enabledHooks('fleet-git-faults-', 400);
  const stay = { ...t.env, FLEET_GIT_FORWARDER_IDLE_MS: '600000' };
  let obs: TestObserver;
  const bashes: ChildProcess[] = [];
  before(async () => {
    obs = await TestObserver.start(t.paths.fleetSocket);
  });
  after(async () => {
    for (const b of bashes) b.kill('SIGKILL');
    await endAll();
    await obs.close();
  });

  /** Every fleet-git process of the sandbox ended, and the lease and lock with them. */
  async function endAll(): Promise<void> {
    await until('no fleet-git process left', () => {
      for (const pid of fleetGitProcesses(t.sb.home))
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      return fleetGitProcesses(t.sb.home).length === 0;
    });
    for (const f of ['forwarder.lease', 'forwarder.sock']) rmSync(join(t.spool, f), { force: true });
  }

  /** Waits until no forwarder runs and nothing waits in the spool. */
  const settled = () =>
    until('the forwarder to leave', () => fleetGitProcesses(t.sb.home).length === 0 && !leaseHeld(t.spool) && t.waiting().length === 0);

  const steps = (sid: string) => obs.events.filter((e) => e.session_id === sid).map(stepOf);

  /** A forwarder that stays, with its first event delivered; its pid. */
  async function running(sid: string): Promise<number> {
    await runHook(t.cmd('postToolUse'), tool(sid, 0), stay);
    await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 0);
    await until('its lease', () => readLease(t.spool)?.pid !== 0 && leaseHeld(t.spool));
    return readLease(t.spool)!.pid;
  }

  test(
    'the forwarder SIGKILLed (as the OOM killer does) and its PID given to a bash: the events of the next hooks arrive, in order, with no later hook',
    { skip: needsRoot(`hand a PID to a bash (it writes ${NS_LAST_PID})`) },
    async () => {
      const sid = 'oom';
      const pid = await running(sid);
      process.kill(pid, 'SIGKILL');
      await until('it to be gone', () => !isAlive(pid));
      bashes.push(bashWithPid(pid));
      for (let i = 1; i <= 5; i++) {
        await runHook(t.cmd('postToolUse'), tool(sid, i), stay);
        await sleep(200);
      }
      await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 5, 30_000);
      assert.deepEqual(steps(sid), [0, 1, 2, 3, 4, 5]);
      await endAll();
    },
  );

  test(
    'the whole job SIGKILLed (the forwarder and the shell that restarts it), their PIDs given to bashes: the hooks after it start one once its lease ran out, and every event arrives in order',
    { skip: needsRoot(`hand a PID to a bash (it writes ${NS_LAST_PID})`) },
    async () => {
      const sid = 'job-killed';
      const pid = await running(sid);
      // The forwarder runs in a session of its own; the shell that restarts it is its parent's job.
      const group = groupOf(parentOf(pid));
      assert.notEqual(group, groupOf(pid));
      process.kill(-group, 'SIGKILL');
      process.kill(pid, 'SIGKILL');
      await until('it to be gone', () => !isAlive(pid) && !isAlive(group));
      bashes.push(bashWithPid(pid), bashWithPid(group));
      // Hooks one a second, past the dead lease's 3 s: none fired later waits for the bashes to end.
      for (let i = 1; i <= 5; i++) {
        await runHook(t.cmd('postToolUse'), tool(sid, i), stay);
        await sleep(1000);
      }
      await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 5, 30_000);
      assert.ok(
        bashes.every((b) => b.exitCode === null),
        'the bashes with the PIDs still run',
      );
      assert.deepEqual(steps(sid), [0, 1, 2, 3, 4, 5]);
      await endAll();
    },
  );

  test('SIGTERM: the forwarder stops, leaves no lease and is not started again; the next hook starts one, which sends what waited, in order', async () => {
    await endAll();
    const sid = 'term';
    const pid = await running(sid);
    process.kill(pid, 'SIGSTOP');
    for (let i = 1; i <= 3; i++) await runHook(t.cmd('postToolUse'), tool(sid, i), stay);
    process.kill(pid, 'SIGTERM');
    process.kill(pid, 'SIGCONT');
    await until('it to be gone', () => !isAlive(pid));
    await until('its job to be gone', () => fleetGitProcesses(t.sb.home).length === 0);
    assert.equal(existsSync(join(t.spool, 'forwarder.lease')), false, 'no lease');
    // What it had taken before it saw the signal is sent; the rest waits in the spool.
    assert.equal(steps(sid).length + t.waiting().length, 4, 'each event sent or waiting');
    await runHook(t.cmd('postToolUse'), tool(sid, 4), stay);
    await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 4);
    assert.deepEqual(steps(sid), [0, 1, 2, 3, 4]);
    await endAll();
  });

  test('SIGSTOP past its lease, then SIGCONT: the hooks meanwhile start no second sender, and every event arrives once, in order', async () => {
    await endAll();
    const sid = 'stopped';
    const pid = await running(sid);
    process.kill(pid, 'SIGSTOP');
    try {
      for (let i = 1; i <= 4; i++) {
        await runHook(t.cmd('postToolUse'), tool(sid, i), stay);
        await sleep(1200);
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 4);
    await until('its lease again', () => readLease(t.spool)?.pid === pid);
    await runHook(t.cmd('postToolUse'), tool(sid, 5), stay);
    await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 5);
    assert.deepEqual(steps(sid), [0, 1, 2, 3, 4, 5]);
    await endAll();
  });

  /**
   * Runs `body` with an observer of its own in the test observer's place, which counts its connections and reads
   * them only once `reading()` is called, in the order they came; then puts the test observer back.
   */
  async function withHoldingObserver(body: (o: Holding) => Promise<void>): Promise<void> {
    const o = await holdingObserver();
    try {
      await body(o);
    } finally {
      await o.close();
    }
    await endAll();
  }

  interface Holding {
    lines: string[];
    /** The steps of the lines read, in order. */
    steps: () => number[];
    connections: () => number;
    reading: () => void;
    close: () => Promise<void>;
  }

  async function holdingObserver(): Promise<Holding> {
    await endAll();
    await obs.close();
    const held: Socket[] = [];
    let reading = false;
    const lines: string[] = [];
    const read = (c: Socket) => {
      let buf = '';
      c.on('data', (d) => {
        buf += d;
        for (let n; (n = buf.indexOf('\n')) >= 0; buf = buf.slice(n + 1)) lines.push(buf.slice(0, n));
      });
      c.resume();
    };
    rmSync(t.paths.fleetSocket, { force: true });
    const server = createServer({ pauseOnConnect: true }, (c) => {
      held.push(c);
      if (reading) read(c);
    });
    await new Promise<void>((r) => server.listen(t.paths.fleetSocket, r));
    return {
      lines,
      steps: () => lines.map((l) => stepOf(JSON.parse(l) as Received)),
      connections: () => held.length,
      reading: () => {
        reading = true;
        for (const c of held) read(c);
      },
      close: async () => {
        for (const c of held) c.destroy();
        await new Promise((r) => server.close(r));
        obs = await TestObserver.start(t.paths.fleetSocket);
      },
    };
  }

  test('an observer that reads nothing for 2 s, then reads: every event once, in order', async () => {
    await withHoldingObserver(async (o) => {
      for (let i = 0; i < 10; i++) await runHook(t.cmd('postToolUse'), tool('stalled', i), t.env);
      await sleep(2000);
      o.reading();
      await until('its 10 lines', () => o.lines.length === 10);
      assert.deepEqual(o.steps(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });
  });

  test("the forwarder runs in a session of its own (setsid): a busy terminal's scheduling group does not starve it", async () => {
    await endAll();
    const pid = await running('session');
    assert.equal(sessionOf(pid), pid);
    assert.notEqual(sessionOf(pid), sessionOf(process.pid));
    await endAll();
  });

  test('an observer that reads nothing while the forwarder pauses between two runs of events: one connection, every event in order', async () => {
    await withHoldingObserver(async (o) => {
      for (let i = 0; i < 5; i++) await runHook(t.cmd('postToolUse'), tool('paused', i), stay);
      await until('the first run sent', () => t.waiting().length === 0);
      await sleep(500);
      for (let i = 5; i < 10; i++) await runHook(t.cmd('postToolUse'), tool('paused', i), stay);
      await until('the second run sent', () => t.waiting().length === 0);
      await sleep(200);
      // Lines of two connections could reach the observer in either order: there is one.
      assert.equal(o.connections(), 1);
      o.reading();
      await until('its 10 lines', () => o.lines.length === 10);
      assert.deepEqual(o.steps(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });
  });

  test('an observer that reads nothing for 8 s while the socket is full (a starved observer): every event once, in order', async () => {
    await withHoldingObserver(async (o) => {
      // More than a Unix socket's buffer (about 200 KiB) waiting, so that the forwarder's writes wait on the observer.
      const n = 1500;
      mkdirSync(t.spool, { recursive: true, mode: 0o700 });
      const base = (Date.now() - 60_000) * 1000;
      // Each line about 2 KiB (a tool's output is kept up to 2,000 characters).
      const big = (i: number) => {
        const p = JSON.parse(tool('full', i)) as { toolResult: { textResultForLlm: string } };
        p.toolResult.textResultForLlm = 'x'.repeat(1900);
        return JSON.stringify(p);
      };
      for (let i = 0; i < n; i++) writeFileSync(join(t.spool, `${base + i}.${100_000 + i}.ev`), spoolFile(t.sb.home, big(i)));
      await runHook(t.cmd('postToolUse'), big(n), stay);
      await until('the socket full', () => t.waiting().length > 0 && o.connections() === 1);
      await sleep(8000);
      assert.ok(t.waiting().length > 0, 'the forwarder still waits on the observer');
      o.reading();
      await until(`its ${n + 1} lines`, () => o.lines.length >= n + 1 && t.waiting().length === 0, 60_000);
      await sleep(200);
      assert.deepEqual(
        o.steps(),
        Array.from({ length: n + 1 }, (_, i) => i),
      );
    });
  });

  const CPU_CGROUPS = '/sys/fs/cgroup/cpu';
  test(
    'a forwarder starved of CPU (3% of a core, a cgroup) through a long intake: its lease never lapses, so no hook would start another',
    {
      skip:
        needsRoot('limit a forwarder to 3% of a core (a cgroup)') ||
        (existsSync(join(CPU_CGROUPS, 'cpu.cfs_quota_us')) ? false : `skipped: needs cgroup v1's cpu controller at ${CPU_CGROUPS}`),
    },
    async () => {
      await endAll();
      const group = join(CPU_CGROUPS, `fleet-git-test-${process.pid}`);
      mkdirSync(group, { recursive: true });
      writeFileSync(join(group, 'cpu.cfs_quota_us'), '3000'); // of each 100 ms
      try {
        const n = 1000;
        mkdirSync(t.spool, { recursive: true, mode: 0o700 });
        const base = (Date.now() - 60_000) * 1000;
        for (let i = 0; i < n; i++) writeFileSync(join(t.spool, `${base + i}.${100_000 + i}.ev`), spoolFile(t.sb.home, tool('starved', i)));
        // The hook puts itself in the group first: the forwarder it starts is in it too.
        await runHook(`echo $$ >${join(group, 'cgroup.procs')}; ${t.cmd('postToolUse')}`, tool('starved', n), stay);
        await until('its lease', () => (readLease(t.spool)?.pid ?? 0) > 0, 60_000);
        let lapsed = 0;
        await until(
          'the backlog to drain',
          () => {
            if (!leaseHeld(t.spool)) lapsed++;
            return steps('starved').length === n + 1;
          },
          120_000,
        );
        assert.equal(lapsed, 0, 'looks at a lapsed lease while the forwarder worked');
        assert.deepEqual(
          steps('starved'),
          Array.from({ length: n + 1 }, (_, i) => i),
        );
      } finally {
        await endAll();
        await until('the group empty', () => readFileSync(join(group, 'cgroup.procs'), 'utf8').trim() === '');
        rmdirSync(group);
      }
    },
  );

  test('a backlog of one session, and one of a hundred others: every event once, in order, with the next hook', async () => {
    await endAll();
    const n = repeats(10_000);
    mkdirSync(t.spool, { recursive: true, mode: 0o700 });
    const base = (Date.now() - 60_000) * 1000;
    for (let i = 0; i < n; i++) writeFileSync(join(t.spool, `${base + i}.${100_000 + i}.ev`), spoolFile(t.sb.home, tool('backlog', i)));
    await runHook(t.cmd('postToolUse'), tool('backlog', n), t.env);
    await until('the backlog to drain', () => fleetGitProcesses(t.sb.home).length === 0 && t.waiting().length === 0, 120_000);
    await obs.drained();
    const got = steps('backlog');
    const want = Array.from({ length: n + 1 }, (_, i) => i);
    assert.deepEqual(got, want, `${got.length} of ${n + 1}; missing ${want.filter((i) => !got.includes(i)).slice(0, 20)}`);
    const others = Array.from({ length: 100 }, (_, s) => `other-${s}`);
    for (let i = 0; i < n; i++) {
      const sid = others[i % 100]!;
      writeFileSync(join(t.spool, `${base + i}.${100_000 + i}.ev`), spoolFile(t.sb.home, tool(sid, Math.floor(i / 100))));
    }
    await runHook(t.cmd('postToolUse'), tool('after-others', 0), t.env);
    await obs.waitFor((e) => e.session_id === 'after-others', 120_000);
    await settled();
    await obs.drained();
    for (const sid of others)
      assert.deepEqual(
        steps(sid),
        Array.from({ length: n / 100 }, (_, i) => i),
        sid,
      );
  });

  test('events that waited over an hour are dropped unsent, but for the Stops, which keep each card its last state', async () => {
    await endAll();
    mkdirSync(t.spool, { recursive: true, mode: 0o700 });
    const old = (Date.now() - 2 * 3_600_000) * 1000;
    for (let i = 0; i < 5; i++) writeFileSync(join(t.spool, `${old + i}.${200_000 + i}.ev`), spoolFile(t.sb.home, tool('old', i)));
    const end = JSON.stringify({ sessionId: 'old', timestamp: Date.now(), cwd: '/w', reason: 'complete' });
    writeFileSync(join(t.spool, `${old + 5}.200005.ev`), spoolFile(t.sb.home, end, 'sessionEnd'));
    await runHook(t.cmd('postToolUse'), tool('new', 0), t.env);
    await obs.waitFor((e) => e.session_id === 'new');
    await settled();
    await obs.drained();
    assert.deepEqual(
      obs.events.filter((e) => e.session_id === 'old').map((e) => [e.event, e.message]),
      [['Stop', 'complete']],
    );
    assert.deepEqual(
      readdirSync(t.spool).filter((f) => f.endsWith('.ev')),
      [],
    );
  });

  test('the lease: the forwarder renews it, its deadline is the file time too, and it is gone once the forwarder leaves', async () => {
    await endAll();
    await runHook(t.cmd('postToolUse'), tool('lease', 0), stay);
    await obs.waitFor((e) => e.session_id === 'lease');
    await until('its lease', () => (readLease(t.spool)?.pid ?? 0) > 0);
    const first = readLease(t.spool)!;
    await until('a renewal', () => readLease(t.spool)!.deadline > first.deadline, 10_000);
    const { deadline } = readLease(t.spool)!;
    const mtime = statSync(join(t.spool, 'forwarder.lease')).mtimeMs;
    assert.ok(Math.abs(mtime - deadline) < 1, `file time ${mtime}, deadline ${deadline}`);
    assert.ok(deadline > Date.now() && deadline <= Date.now() + 3000);
    await endAll();
    await runHook(t.cmd('postToolUse'), tool('lease', 1), t.env);
    await obs.waitFor((e) => e.session_id === 'lease' && stepOf(e) === 1);
    await settled();
    assert.equal(existsSync(join(t.spool, 'forwarder.lease')), false);
  });
});
