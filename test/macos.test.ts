// macOS, simulated on Linux (docs/platforms.md): what differs on a Mac and
// touches fleet-git, each run through the real commands, the real hook and
// forwarder and a real socket. Here: bash 3.2, which has no EPOCHREALTIME,
// EPOCHSECONDS or BASHPID (a real one where FLEET_GIT_TEST_BASH32 names it;
// else bash 5 with them unset, which behaves as 3.2 does for them), and PIDs that wrap in the middle of a session (root writes
// /proc/sys/kernel/ns_last_pid, so the next process gets the PID after it).
// No /proc: a mount namespace of its own whose /proc is an empty tmpfs.
// (test/macos-paths.test.ts: a long $TMPDIR and HOME, and symbolic links.)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BASH32, CLI, describeNeeding, hooksSettled, needs, needsRoot } from './helpers.js';
import { run, type SpawnOptions } from './spawn.js';
import { CLIENT, enabledHooks, runHook, tool } from './hook-run.js';
import { TestObserver, type Received } from './observer-server.js';

const NS_LAST_PID = '/proc/sys/kernel/ns_last_pid';
const WRAP = needsRoot(`make PIDs wrap (it writes ${NS_LAST_PID})`);

/**
 * A hook command run as bash 3.2 runs it: by the real one where FLEET_GIT_TEST_BASH32 names it (in the same
 * process: exec), else by bash 5 with the variables 3.2 does not have unset first.
 */
const bash32 = (cmd: string) =>
  BASH32 ? `exec ${shQuote(BASH32)} --norc --noprofile -c ${shQuote(cmd)}` : `unset EPOCHREALTIME EPOCHSECONDS BASHPID; ${cmd}`;
const shQuote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

/** The next process started gets a PID just above `pid` (when it is free), as after a wrap at pid_max. */
const nextPidAfter = (pid: number) => writeFileSync(NS_LAST_PID, String(pid));

const start = (sid: string) => JSON.stringify({ sessionId: sid, timestamp: Date.now(), cwd: '/w', source: 'new', initialPrompt: 'go' });
const end = (sid: string) => JSON.stringify({ sessionId: sid, timestamp: Date.now(), cwd: '/w', reason: 'complete' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stepOf = (e: Received) => Number(/step-(\d+)/.exec(String((e.tool_input as { command?: string } | null)?.command))?.[1]);
/** What the observer got of one session, in its order: SessionStart, the steps, Stop. */
const seen = (events: Received[], sid: string) =>
  events.filter((e) => e.session_id === sid).map((e) => (e.event === 'PostToolUse' ? stepOf(e) : String(e.event)));

before(() => assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`));

/** A sandbox with an enabled repository, its hook commands, the spool, and a way to hold its forwarder. */
function setUp(prefix: string) {
  const world = enabledHooks(prefix, 400);
  const { forwarderPid } = world;
  /**
   * Holds the running forwarder (SIGSTOP to its process group, the shell that started it included) once
   * its lease names it (/proc: its name), so that no other process that got a PID once a forwarder's
   * is stopped; returns what lets it go on.
   */
  const holdForwarder = async (): Promise<() => void> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const pid = forwarderPid();
      let stat = '';
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        /* none yet */
      }
      if (stat.includes('(fleet-git-forwa)')) {
        const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
        process.kill(-group, 'SIGSTOP');
        return () => process.kill(-group, 'SIGCONT');
      }
      if (Date.now() > deadline) throw new Error(`no forwarder runs to hold (its lease's pid: ${pid})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { ...world, holdForwarder };
}

describe('bash 3.2 (no EPOCHREALTIME, EPOCHSECONDS, BASHPID) with PIDs that wrap', () => {
  const t = setUp('fleet-git-bash32-');
  let obs: TestObserver;
  // Where the machine's PIDs were: put back after, so that the PIDs this suite made come back (20,000 down to
  // about 300) are not handed out again soon to processes of other test files.
  let last: string | null = null;
  before(async () => {
    obs = await TestObserver.start(t.paths.fleetSocket);
    if (!WRAP) last = readFileSync(NS_LAST_PID, 'utf8').trim();
  });
  after(async () => {
    if (last !== null) writeFileSync(NS_LAST_PID, String(Math.max(Number(last), 20_100)));
    await obs.close();
  });

  test('bash 3.2 (or bash 5 with them unset) expands them to nothing', () => {
    // Without the caller's BASH_ENV, which this bash would run first (--norc or not).
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'BASH_ENV'));
    const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', bash32('echo "[$EPOCHREALTIME][$EPOCHSECONDS][$BASHPID]"')], {
      encoding: 'utf8',
      env,
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
    let resume = () => {};
    await Promise.all(
      sids.map(async (sid, n) => {
        await fire(sid, n, 0, 'sessionStart', start(sid));
        for (let i = 1; i <= STEPS; i++) {
          if (stopped && i === 7 && held++ === 0) {
            // The first session at the half: wait for the forwarder, then hold it.
            await obs.waitFor((e) => e.session_id === sid);
            resume = await t.holdForwarder();
          }
          await fire(sid, n, i, 'postToolUse', tool(sid, i - 1));
        }
        await fire(sid, n, STEPS + 1, 'sessionEnd', end(sid));
      }),
    );
    resume();
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
        `${sid}: once each, in order; got ${JSON.stringify(seen(obs.events, sid))}, PIDs ${p.join(' ')}`,
      );
    }
    assert.deepEqual(obs.badLines, []);
  }

  test('8 sessions at once, PIDs wrapping and coming back: every event once and in order', { skip: WRAP }, () => sessions('wrap', false));

  test(
    'the same while the forwarder is held, so that a PID comes back while its earlier event still waits in the spool',
    { skip: WRAP },
    () => sessions('wrap-held', true),
  );

  test(
    "one session's events spooled in one tick of the file system's clock, each hook a lower PID: sent in the order Copilot fired them",
    { skip: WRAP },
    async () => {
      const sid = 'one-tick';
      await runHook(bash32(t.cmd('sessionStart')), start(sid), t.env);
      await obs.waitFor((e) => e.session_id === sid);
      const resume = await t.holdForwarder();
      try {
        for (let i = 0; i < 8; i++) {
          nextPidAfter(5000 - i * 100);
          await runHook(bash32(t.cmd('postToolUse')), tool(sid, i), t.env);
        }
        // One time for all, as a file system whose clock is coarser than the hooks are quick keeps them.
        const now = Date.now() / 1000;
        for (const n of t.waiting()) utimesSync(join(t.spool, n), now, now);
      } finally {
        resume();
      }
      await runHook(bash32(t.cmd('sessionEnd')), end(sid), t.env);
      await obs.waitFor((e) => e.session_id === sid && e.event === 'Stop');
      await hooksSettled(t.sb.home, t.spool);
      assert.deepEqual(seen(obs.events, sid), ['SessionStart', 0, 1, 2, 3, 4, 5, 6, 7, 'Stop']);
    },
  );

  test("a hook's claim (an empty lease) whose hook was killed before it started a forwarder, and a lease whose time ran out: without a clock, the next hook starts one", async () => {
    for (const [sid, content] of [
      ['claimed', '\n'],
      ['expired', `${(Date.now() - 6000) * 1000} ${process.pid}\n`],
    ] as const) {
      await hooksSettled(t.sb.home, t.spool);
      const lease = join(t.spool, 'forwarder.lease');
      // Written 6 s ago, naming a live process (this one) for the expired lease.
      writeFileSync(lease, content);
      const old = (Date.now() - 6000) / 1000;
      utimesSync(lease, old, old);
      await runHook(bash32(t.cmd('postToolUse')), tool(sid, 0), t.env);
      await obs.waitFor((e) => e.session_id === sid, 10_000);
      await runHook(bash32(t.cmd('postToolUse')), tool(sid, 1), t.env);
      await obs.waitFor((e) => e.session_id === sid && stepOf(e) === 1, 10_000);
      await hooksSettled(t.sb.home, t.spool);
      assert.deepEqual(seen(obs.events, sid), [0, 1]);
    }
  });

  test('a lease a killed forwarder left before the clock was set back an hour: without a clock, the next hook starts one within 5 s, whose lease then holds', async () => {
    await hooksSettled(t.sb.home, t.spool);
    const sid = 'clock-back';
    // As a forwarder SIGKILLed an hour of the old clock ahead of the new left them: its lease, with the deadline as
    // its time, and its lock's socket, with the deadline less 5 s.
    const deadline = (Date.now() + 3_600_000) / 1000;
    const lease = join(t.spool, 'forwarder.lease');
    const lock = join(t.spool, 'forwarder.sock');
    writeFileSync(lease, `${deadline * 1e6} ${process.pid}\n`);
    utimesSync(lease, deadline, deadline);
    const listen = `require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))`;
    spawnSync(process.execPath, ['-e', listen, lock]);
    utimesSync(lock, deadline - 5, deadline - 5);
    const log = join(t.sb.dir, 'clock-back.log');
    const env = { ...t.env, FLEET_GIT_DEBUG: log, FLEET_GIT_FORWARDER_IDLE_MS: '3000' };
    for (const i of [0, 1]) {
      assert.equal((await runHook(bash32(t.cmd('postToolUse')), tool(sid, i), env)).code, 0);
      await obs.waitFor((e) => e.session_id === sid && stepOf(e) === i, 5_000);
    }
    // The first hook started a forwarder, the second found its lease.
    const said = readFileSync(log, 'utf8');
    assert.equal(said.match(/started a forwarder/g)?.length, 1, said);
    assert.equal(said.match(/a forwarder holds the lease/g)?.length, 1, said);
    await hooksSettled(t.sb.home, t.spool); // the spool empty: the forwarder took its lease and lock away
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

/**
 * Runs `cmd` in a mount namespace of its own whose /proc is an empty tmpfs, as
 * on a Mac (node runs there; ps, which reads /proc, does not). The real /proc is
 * kept at `realProc` (a folder of the sandbox), for the ps stand-in below only.
 */
const noProc = (realProc: string, cmd: string, args: string[], opts: SpawnOptions) =>
  run(
    'unshare',
    [
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind /proc "$0" && mount -t tmpfs none /proc && exec "$@"',
      realProc,
      cmd,
      ...args,
    ],
    opts,
  );

// ps: the stand-in below runs the real one (procps) with the real /proc.
describeNeeding(needsRoot('mount an empty /proc in a mount namespace of its own (unshare -m)') || needs('ps'), 'no /proc', () => {
  const t = setUp('fleet-git-noproc-');
  const realProc = join(t.sb.dir, 'real-proc');
  mkdirSync(realProc);
  // macOS's ps, here: the real one, given the real /proc in a namespace of its own (fleet-git runs `ps` from PATH).
  const bin = join(t.sb.dir, 'ps-bin');
  mkdirSync(bin);
  const ps = spawnSync('/bin/sh', ['-c', 'command -v ps'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(
    join(bin, 'ps'),
    `#!/bin/sh\nexec unshare -m --propagation private sh -c 'mount --bind "$0" /proc && exec "$@"' '${realProc}' '${ps}' "$@"\n`,
    { mode: 0o755 },
  );
  const env = { ...t.env, PATH: `${bin}:${t.env.PATH}` };
  const inside = (cmd: string, args: string[], opts: Partial<SpawnOptions> = {}) =>
    noProc(realProc, cmd, args, { env, cwd: t.repo, ...opts });
  const fleet = (...args: string[]) => inside(process.execPath, [CLI, ...args]);
  const lock = join(t.repo, '.git', 'fleet-git.lock');
  let obs: TestObserver;
  before(async () => {
    obs = await TestObserver.start(t.paths.fleetSocket);
  });
  after(() => obs.close());

  test('there is none there; node runs, and ps through its stand-in', async () => {
    const r = await inside('sh', ['-c', 'ls -A /proc | wc -l; [ -e /proc/self ] || echo no-self; ps -o pid= -p $$']);
    assert.equal(r.code, 0, r.stderr);
    const [count, self, pid] = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.trim());
    assert.deepEqual([count, self], ['0', 'no-self']);
    assert.match(pid!, /^\d+$/);
    const n = await inside(process.execPath, ['-e', 'console.log(require("os").cpus().length, process.version)']);
    assert.match(n.stdout, /^0 v\d+/);
  });

  test('enable, status, the git hook (a worktree add), and a session of events through the hook and forwarder to the socket', async () => {
    assert.equal((await fleet('disable')).code, 0);
    const e = await fleet('enable');
    assert.equal(e.code, 0, e.stderr);
    const st = await fleet('status', '--json');
    assert.equal(st.code, 0, st.stderr);
    assert.deepEqual(JSON.parse(st.stdout).problems, []);
    const wt = join(t.sb.dir, 'wt-noproc');
    const w = await inside('git', ['worktree', 'add', '-q', wt]);
    assert.deepEqual([w.code, w.stderr], [0, '']);
    assert.equal(
      readFileSync(join(wt, '.github', 'hooks', 'fleet.json'), 'utf8'),
      readFileSync(join(t.repo, '.github', 'hooks', 'fleet.json'), 'utf8'),
    );
    const wst = await inside(process.execPath, [CLI, 'status', '--json'], { cwd: wt });
    assert.deepEqual(JSON.parse(wst.stdout).problems, []);
    const sid = 'noproc-1';
    const hook = (event: string, input: string) => inside('/bin/bash', ['--norc', '--noprofile', '-c', t.cmd(event)], { cwd: wt, input });
    const inputs: Array<[string, string]> = [
      ['sessionStart', start(sid)],
      ...Array.from({ length: 6 }, (_, i): [string, string] => ['postToolUse', tool(sid, i)]),
      ['sessionEnd', end(sid)],
    ];
    for (const [event, input] of inputs) {
      const x = await hook(event, input);
      assert.deepEqual([x.code, x.stdout, x.stderr], [0, '', ''], event);
    }
    await obs.waitFor((ev) => ev.session_id === sid && ev.event === 'Stop');
    await hooksSettled(t.sb.home, t.spool);
    assert.deepEqual(seen(obs.events, sid), ['SessionStart', 0, 1, 2, 3, 4, 5, 'Stop']);
  });

  test("a Copilot CLI's card names its process, judged by ps without /proc; a VS Code card names none", async () => {
    await hooksSettled(t.sb.home, t.spool);
    const done = join(t.sb.dir, 'stand-in-done');
    // A stand-in Copilot CLI (argv[0] copilot): runs the hook as the CLI does, then lives until the test lets it go.
    const script = `const { spawnSync } = require('child_process'); const fs = require('fs');
const [cmd, input, done] = process.argv.slice(1);
const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', cmd], { input, env: process.env });
const t = setInterval(() => { if (fs.existsSync(done) || r.status !== 0) { clearInterval(t); process.exit(r.status); } }, 50);
setTimeout(() => process.exit(4), 20000);`;
    const standIn = inside(
      '/bin/bash',
      ['-c', 'exec -a /opt/copilot/bin/copilot "$0" -e "$@"', process.execPath, script, t.cmd('sessionStart'), start('noproc-cli'), done],
      {
        env: { ...env, COPILOT_HOOK_DIR: join(t.repo, '.github', 'hooks') },
      },
    );
    try {
      await obs.waitFor((e) => e.session_id === 'noproc-cli');
    } finally {
      writeFileSync(done, '');
    }
    const ran = await standIn;
    assert.equal(ran.code, 0, ran.stderr);
    const card = obs.events.find((e) => e.session_id === 'noproc-cli')!;
    assert.deepEqual([card.ppid, typeof card.pid], [ran.pid, 'number']);
    // VS Code's executor: /bin/sh -c from the extension host, a VS Code payload.
    const vscode = JSON.stringify({
      timestamp: new Date().toISOString(),
      hook_event_name: 'SessionStart',
      session_id: 'noproc-vscode',
      cwd: t.repo,
      source: 'new',
    });
    const r = await inside('/bin/sh', ['-c', t.cmd('sessionStart')], { input: vscode });
    assert.deepEqual([r.code, r.stdout], [0, '']);
    const v = await obs.waitFor((e) => e.session_id === 'noproc-vscode');
    assert.deepEqual([v.term_program, v.pid, v.ppid], ['vscode', null, null]);
  });

  test("a lock whose process is gone (a PID alone, as fleet-git writes it there) is taken over, by fleet-git's commands and the git hook", async () => {
    const gone = spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(lock, `${gone}\n`);
    const r = await inside(process.execPath, [CLI, 'enable', '--force'], { env: { ...env, FLEET_GIT_LOCK_WAIT: '0' } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!existsSync(lock));
    writeFileSync(lock, `${gone}\n`);
    const wt = join(t.sb.dir, 'wt-dead-lock');
    const w = await inside('git', ['worktree', 'add', '-q', wt]);
    assert.deepEqual([w.code, w.stderr], [0, '']);
    assert.ok(existsSync(join(wt, '.github', 'hooks', 'fleet.json')));
    assert.ok(!existsSync(lock));
  });

  test("a lease whose time ran out naming a live process (a killed forwarder's PID reused, a reboot with the spool on disk): without /proc the next hook starts a forwarder", async () => {
    await hooksSettled(t.sb.home, t.spool);
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    const sid = 'reused-forwarder';
    try {
      mkdirSync(t.spool, { recursive: true });
      const lease = join(t.spool, 'forwarder.lease');
      writeFileSync(lease, `${(Date.now() - 60_000) * 1000} ${other.pid}\n`);
      const old = (Date.now() - 60_000) / 1000;
      utimesSync(lease, old, old);
      for (const [i, cmd] of [t.cmd('postToolUse'), bash32(t.cmd('postToolUse'))].entries()) {
        const hook = await inside('/bin/bash', ['--norc', '--noprofile', '-c', cmd], { input: tool(sid, i) });
        assert.equal(hook.code, 0);
        await obs.waitFor((e) => e.session_id === sid && stepOf(e) === i);
        await hooksSettled(t.sb.home, t.spool);
        writeFileSync(lease, `${(Date.now() - 60_000) * 1000} ${other.pid}\n`);
        utimesSync(lease, old, old);
      }
      rmSync(lease);
      assert.ok(other.exitCode === null, 'the process with the PID still runs');
    } finally {
      other.kill('SIGKILL');
    }
    assert.deepEqual(seen(obs.events, sid), [0, 1]);
  });

  test('a lock whose process is alive and started before it was written is waited for', async () => {
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await sleep(50);
      writeFileSync(lock, `${holder.pid}\n`);
      const waited = inside(process.execPath, [CLI, 'enable', '--force'], { env: { ...env, FLEET_GIT_LOCK_WAIT: '20' } });
      await sleep(1500);
      assert.ok(existsSync(lock), 'still held after 1.5 s');
      rmSync(lock);
      const r = await waited;
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.ms >= 1500, `returned after ${r.ms} ms`);
      writeFileSync(lock, `${holder.pid}\n`);
      const busy = await inside(process.execPath, [CLI, 'enable', '--force'], { env: { ...env, FLEET_GIT_LOCK_WAIT: '0' } });
      assert.notEqual(busy.code, 0);
      assert.match(busy.stderr, new RegExp(`held by process ${holder.pid}, another fleet-git`));
      assert.equal(busy.stderr.trim().split('\n').length, 1, 'one line');
    } finally {
      holder.kill('SIGKILL');
      rmSync(lock, { force: true });
    }
  });

  test("a lock whose PID is alive but started after the lock was written (the PID reused) is stale to fleet-git's commands, the git hook's included", async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await sleep(50);
      writeFileSync(lock, `${other.pid}\n`);
      const hourAgo = (Date.now() - 3_600_000) / 1000;
      utimesSync(lock, hourAgo, hourAgo);
      const wt = join(t.sb.dir, 'wt-reused');
      const w = await inside('git', ['worktree', 'add', '-q', wt]);
      assert.deepEqual([w.code, w.stderr], [0, '']);
      assert.ok(existsSync(join(wt, '.github', 'hooks', 'fleet.json')), 'the hook took the lock over, as enable does');
      assert.ok(!existsSync(lock));
      rmSync(join(wt, '.github', 'hooks', 'fleet.json'));
      writeFileSync(lock, `${other.pid}\n`);
      utimesSync(lock, hourAgo, hourAgo);
      const r = await inside(process.execPath, [CLI, 'enable'], { cwd: wt, env: { ...env, FLEET_GIT_LOCK_WAIT: '0' } });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(existsSync(join(wt, '.github', 'hooks', 'fleet.json')));
      assert.ok(!existsSync(lock));
    } finally {
      other.kill('SIGKILL');
      rmSync(lock, { force: true });
    }
  });
});
