// macOS, simulated on Linux (docs/platforms.md): what differs on a Mac and
// touches fleet-git, each run through the real commands, the real hook and
// forwarder and a real socket. Here: bash 3.2, which has no EPOCHREALTIME,
// EPOCHSECONDS or BASHPID (bash 5 with them unset behaves as 3.2 does for
// them), and PIDs that wrap in the middle of a session (root writes
// /proc/sys/kernel/ns_last_pid, so the next process gets the PID after it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { userPaths } from '../src/paths.js';
import { hooksSettled, sandbox } from './helpers.js';
import { CLIENT, runHook } from './hook-run.js';
import { TestObserver, type Received } from './observer-server.js';

const NS_LAST_PID = '/proc/sys/kernel/ns_last_pid';
const root = process.getuid?.() === 0;
const NOT_ROOT = `not root: making PIDs wrap needs root (it writes ${NS_LAST_PID}); CI runs the tests as root`;

/** A hook command run as bash 3.2 would run it: bash 5 with the variables 3.2 does not have unset first. */
const bash32 = (cmd: string) => `unset EPOCHREALTIME EPOCHSECONDS BASHPID; ${cmd}`;

/** The next process started gets a PID just above `pid` (when it is free), as after a wrap at pid_max. */
const nextPidAfter = (pid: number) => writeFileSync(NS_LAST_PID, String(pid));

const tool = (sid: string, step: number) =>
  JSON.stringify({
    sessionId: sid,
    timestamp: Date.now(),
    cwd: '/w',
    toolName: 'bash',
    toolArgs: { command: `echo step-${step}` },
    toolResult: { resultType: 'success', textResultForLlm: `step-${step}` },
  });
const start = (sid: string) => JSON.stringify({ sessionId: sid, timestamp: Date.now(), cwd: '/w', source: 'new', initialPrompt: 'go' });
const end = (sid: string) => JSON.stringify({ sessionId: sid, timestamp: Date.now(), cwd: '/w', reason: 'complete' });
const stepOf = (e: Received) => Number(/step-(\d+)/.exec(String((e.tool_input as { command?: string } | null)?.command))?.[1]);
/** What the observer got of one session, in its order: SessionStart, the steps, Stop. */
const seen = (events: Received[], sid: string) =>
  events.filter((e) => e.session_id === sid).map((e) => (e.event === 'PostToolUse' ? stepOf(e) : String(e.event)));

before(() => assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`));

/** A sandbox with an enabled repository, its hook commands, the spool and an observer on the real socket path. */
function setUp(prefix: string) {
  const sb = sandbox(prefix);
  const env = { ...sb.env, FLEET_GIT_FORWARDER_IDLE_MS: '3000' };
  const paths = userPaths(env, sb.home);
  const repo = sb.repo('proj');
  assert.equal(sb.cli(repo, 'enable').status, 0);
  const doc = JSON.parse(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8')) as {
    hooks: Record<string, Array<{ bash: string }>>;
  };
  const cmd = (event: string) => doc.hooks[event]![0]!.bash;
  const spool = join(paths.dataDir, 'spool');
  const forwarderPid = () => {
    try {
      return Number(readFileSync(join(spool, 'forwarder.pid'), 'utf8'));
    } catch {
      return 0;
    }
  };
  const waiting = () => (existsSync(spool) ? readdirSync(spool).filter((n) => n.endsWith('.ev')) : []);
  return { sb, env, paths, repo, cmd, spool, forwarderPid, waiting };
}

describe('bash 3.2 (no EPOCHREALTIME, EPOCHSECONDS, BASHPID) with PIDs that wrap', () => {
  const t = setUp('fleet-git-bash32-');
  let obs: TestObserver;
  before(async () => {
    obs = await TestObserver.start(t.paths.fleetSocket);
  });
  after(() => obs.close());

  test('unset, bash 5 expands them to nothing, as bash 3.2 does', () => {
    const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', bash32('echo "[$EPOCHREALTIME][$EPOCHSECONDS][$BASHPID]"')], {
      encoding: 'utf8',
    });
    assert.equal(r.stdout, '[][][]\n');
  });

  /**
   * Eight sessions at once, 14 events each. Before each hook starts, the next
   * PID is set: the first half of each session counts down from 20,000 (each
   * hook a lower PID than the one before), the second half starts again at
   * the same low PIDs every round (as once the counter wrapped: a PID comes
   * back while the forwarder that took the earlier event still runs). With
   * `stopped`, the forwarder is held (SIGSTOP) for the second half, so the
   * earlier event of a PID still waits in the spool when that PID comes back.
   */
  async function sessions(prefix: string, stopped: boolean) {
    const N = 8;
    const STEPS = 12;
    const sids = Array.from({ length: N }, (_, n) => `${prefix}-${n}`);
    const pids = new Map<string, number[]>(sids.map((s) => [s, []]));
    const fire = async (sid: string, n: number, i: number, event: string, input: string) => {
      nextPidAfter(i < 7 ? 20_000 - i * 200 - n * 10 : 300 + n * 10); // at once before the spawn: nothing forks between
      const r = await runHook(bash32(t.cmd(event)), input, t.env);
      assert.deepEqual([r.code, r.stdout, r.stderr, r.returned], [0, '', '', true], `${sid} event ${i}`);
      pids.get(sid)!.push(r.pid);
    };
    let held = 0;
    await Promise.all(
      sids.map(async (sid, n) => {
        await fire(sid, n, 0, 'sessionStart', start(sid));
        for (let i = 1; i <= STEPS; i++) {
          if (stopped && i === 7 && held++ === 0) {
            // The first session at the half: wait for the forwarder, then hold it.
            await obs.waitFor((e) => e.session_id === sid);
            process.kill(t.forwarderPid(), 'SIGSTOP');
          }
          await fire(sid, n, i, 'postToolUse', tool(sid, i - 1));
        }
        await fire(sid, n, STEPS + 1, 'sessionEnd', end(sid));
      }),
    );
    if (stopped) process.kill(t.forwarderPid(), 'SIGCONT');
    for (const sid of sids) await obs.waitFor((e) => e.session_id === sid && e.event === 'Stop', 20_000);
    await hooksSettled(t.sb.home, t.spool);
    for (const sid of sids) {
      const p = pids.get(sid)!;
      assert.ok(
        p.some((x, i) => i > 0 && x < p[i - 1]!),
        `${sid}: PIDs did not wrap: ${p.join(' ')}`,
      );
      assert.deepEqual(
        seen(obs.events, sid),
        ['SessionStart', ...Array.from({ length: STEPS }, (_, i) => i), 'Stop'],
        `${sid}: once each, in order`,
      );
    }
    assert.deepEqual(obs.badLines, []);
  }

  test('8 sessions at once, PIDs wrapping and coming back: every event once and in order', { skip: !root && NOT_ROOT }, () =>
    sessions('wrap', false),
  );

  test(
    'the same while the forwarder is held, so that a PID comes back while its earlier event still waits in the spool',
    { skip: !root && NOT_ROOT },
    () => sessions('wrap-held', true),
  );

  test(
    "one session's events spooled in one tick of the file system's clock, each hook a lower PID: sent in the order Copilot fired them",
    { skip: !root && NOT_ROOT },
    async () => {
      const sid = 'one-tick';
      await runHook(bash32(t.cmd('sessionStart')), start(sid), t.env);
      await obs.waitFor((e) => e.session_id === sid);
      const forwarder = t.forwarderPid();
      process.kill(forwarder, 'SIGSTOP');
      try {
        for (let i = 0; i < 8; i++) {
          nextPidAfter(5000 - i * 100);
          await runHook(bash32(t.cmd('postToolUse')), tool(sid, i), t.env);
        }
        // One time for all, as a file system whose clock is coarser than the hooks are quick keeps them.
        const now = Date.now() / 1000;
        for (const n of t.waiting()) utimesSync(join(t.spool, n), now, now);
      } finally {
        process.kill(forwarder, 'SIGCONT');
      }
      await runHook(bash32(t.cmd('sessionEnd')), end(sid), t.env);
      await obs.waitFor((e) => e.session_id === sid && e.event === 'Stop');
      await hooksSettled(t.sb.home, t.spool);
      assert.deepEqual(seen(obs.events, sid), ['SessionStart', 0, 1, 2, 3, 4, 5, 6, 7, 'Stop']);
    },
  );

  test('an empty forwarder.pid whose hook was killed before it wrote is taken as abandoned, without a clock: a forwarder starts', async () => {
    await hooksSettled(t.sb.home, t.spool);
    const pidFile = join(t.spool, 'forwarder.pid');
    // Made exclusively 6 s ago by a hook that was killed before it wrote its PID.
    writeFileSync(pidFile, '');
    const old = (Date.now() - 6000) / 1000;
    utimesSync(pidFile, old, old);
    const sid = 'claimed';
    await runHook(bash32(t.cmd('postToolUse')), tool(sid, 0), t.env);
    await obs.waitFor((e) => e.session_id === sid, 10_000);
    await runHook(bash32(t.cmd('postToolUse')), tool(sid, 1), t.env);
    await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 1, 10_000);
    await hooksSettled(t.sb.home, t.spool);
    assert.deepEqual(seen(obs.events, sid), [0, 1]);
  });

  test('no node to start a forwarder with: the spool does not keep the events', async () => {
    await hooksSettled(t.sb.home, t.spool);
    const bin = join(t.sb.dir, 'bin-no-node');
    mkdirSync(bin);
    for (const tool of ['cat', 'mkdir', 'rm'])
      symlinkSync(spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(bin, tool));
    const recorded = join(t.paths.dataDir, 'node');
    const saved = readFileSync(recorded, 'utf8');
    writeFileSync(recorded, join(t.sb.dir, 'no-such-node'));
    try {
      for (let i = 0; i < 3; i++) await runHook(bash32(t.cmd('postToolUse')), tool('no-node', i), { ...t.env, PATH: bin });
      await hooksSettled(t.sb.home, t.spool, 5000);
    } finally {
      writeFileSync(recorded, saved);
    }
    assert.deepEqual(seen(obs.events, 'no-node'), []);
  });
});
