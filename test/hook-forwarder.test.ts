// The hook command as `fleet-git enable` writes it, run as Copilot runs it
// (bash, the payload on a pipe or a socket), with the forwarder it starts
// (dist/hook-client.cjs --forward), against a real Unix socket observer.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FIXTURES, fleetGitProcesses, needs } from './helpers.js';
import { leaseHeld } from '../src/copilot/forwarder.js';
import { isAlive, parentOf } from '../src/fs/process.js';
import { TestObserver, type Received } from './observer-server.js';
import { CLIENT, enabledHooks, runHook, stepOf, tool, until } from './hook-run.js';

const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The x86-64 and arm64 numbers of read(2), as /proc/PID/syscall shows them. */
const READ_SYSCALL = process.arch === 'arm64' ? 63 : 0;

/** `pid` and its descendants (from /proc). */
function processTree(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid !== null) parent.set(Number(name), ppid);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [p, pp] of parent) if (pp === tree[i]) tree.push(p);
  return tree;
}

/** Whether a process of the hook `pid` started is blocked in read(2) on the hook's standard input (whatever fd it reads it through). */
function readingStdin(pid: number): boolean {
  try {
    const stdin = readlinkSync(`/proc/${pid}/fd/0`);
    return processTree(pid).some((p) => {
      try {
        const [nr, fd] = readFileSync(`/proc/${p}/syscall`, 'utf8').split(' ');
        return Number(nr) === READ_SYSCALL && readlinkSync(`/proc/${p}/fd/${Number(fd)}`) === stdin;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

before(() => assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`));

/**
 * A PATH whose `node` notes each start (one line in the returned file) and
 * runs the real one: how many forwarders the hooks started.
 */
function countingNode(dir: string, env: Record<string, string>) {
  const bin = join(dir, 'counting-bin');
  const log = join(dir, 'node-starts');
  mkdirSync(bin, { recursive: true });
  writeFileSync(log, '');
  writeFileSync(join(bin, 'node'), `#!/bin/sh\necho "$*" >>'${log}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  const starts = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('--forward')).length;
  return { env: { ...env, PATH: `${bin}:${env.PATH}` }, starts };
}

/** A sandbox with an enabled repository, its hook commands, and where the spool is. */
function setUp() {
  const world = enabledHooks('fleet-git-fwd-', 400);
  const { sb, spool, forwarderPid, waiting: events } = world;
  /** Waits until no forwarder runs and the spool holds nothing but itself. */
  const settled = async () => {
    // No process of the sandbox's either: a forwarder started again after a SIGKILL holds no lease or lock yet as it starts.
    await until('the forwarder to leave', () => {
      const pid = forwarderPid();
      return (
        !(pid && isAlive(pid)) &&
        !leaseHeld(spool) &&
        events().length === 0 &&
        !existsSync(join(spool, 'forwarder.sock')) &&
        fleetGitProcesses(sb.home).length === 0
      );
    });
  };
  /**
   * Ends a forwarder started to stay (a long FLEET_GIT_FORWARDER_IDLE_MS) once
   * its events are delivered: killed, its lease and lock taken away as the
   * next forwarder would, so that the next test starts from a settled spool.
   */
  const endForwarder = async () => {
    // Every forwarder of the sandbox (one waiting for the lock may take it as the first goes) and its job's shell.
    await until('no fleet-git process left', () => {
      for (const pid of fleetGitProcesses(sb.home))
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      return fleetGitProcesses(sb.home).length === 0;
    });
    for (const f of ['forwarder.lease', 'forwarder.sock']) rmSync(join(spool, f), { force: true });
    await settled();
  };
  return { ...world, events, settled, endForwarder };
}

describe('hook command and forwarder', () => {
  const t = setUp();
  let obs: TestObserver;
  let onEvent: ((e: Received) => void) | null = null;
  before(async () => {
    obs = await TestObserver.start(t.paths.fleetSocket, { onEvent: (e) => onEvent?.(e) });
  });
  after(() => obs.close());

  test("events reach the observer once, in order, with the hook's facts, through a pipe or a socket; then the forwarder leaves an empty spool folder", async () => {
    const env = { ...t.env, COPILOT_MODEL: 'gpt-4.1', FLEET_MODEL_NAME: 'work', TERM_PROGRAM: 'iTerm.app', ITERM_SESSION_ID: 'w0t0p0:ABC' };
    const sid = 'order-1';
    const start = await runHook(
      t.cmd('sessionStart'),
      fixture('sessionStart.json').replace(/"sessionId":\s*"[^"]+"/, `"sessionId":"${sid}"`),
      env,
      { pipe: true, cwd: t.repo },
    );
    assert.deepEqual([start.code, start.stdout, start.stderr, start.returned], [0, '', '', true]);
    for (let i = 0; i < 20; i++) {
      const r = await runHook(t.cmd('postToolUse'), tool(sid, i), env, { pipe: i % 2 === 0, cwd: t.repo });
      assert.deepEqual([r.code, r.stdout, r.stderr, r.returned], [0, '', '', true]);
    }
    const end = await runHook(t.cmd('sessionEnd'), JSON.stringify({ sessionId: sid, reason: 'complete' }), env, { cwd: t.repo });
    assert.equal(end.code, 0);
    await obs.waitFor((e) => e.session_id === sid && e.event === 'Stop');
    // Once no hook or forwarder runs and all they sent has been read, a late duplicate would be here.
    await t.settled();
    await obs.drained();
    const got = obs.events.filter((e) => e.session_id === sid);
    assert.deepEqual(
      got.map((e) => (e.event === 'PostToolUse' ? stepOf(e) : e.event)),
      ['SessionStart', ...Array.from({ length: 20 }, (_, i) => i), 'Stop'],
    );
    const s = got[0]!;
    // Through the pipe, the hook's bash is the child of the sh that ran `cat | bash`: no Copilot CLI, so the card
    // names no process (test/copilot-process.test.ts: a Copilot CLI's card names it).
    assert.deepEqual([s.pid, s.ppid], [null, null]);
    assert.deepEqual([s.model, s.fleet_model_name, s.term_program, s.iterm_session_id], ['gpt-4.1', 'work', 'iTerm.app', 'w0t0p0:ABC']);
    assert.equal(got[1]!.fleet_model_name, 'work');
    const file = JSON.parse(readFileSync(join(t.paths.fleetSessions, `${sid}.json`), 'utf8'));
    assert.equal(file.ppid, null);
    assert.equal(typeof file.stoppedAt, 'number');
    assert.deepEqual(obs.badLines, []);
    await t.settled();
    assert.deepEqual(readdirSync(t.spool), []);
    assert.equal(statSync(t.spool).mode & 0o777, 0o700);
    // Once idle, nothing of it runs: no forwarder, no shell that started one.
    await until('nothing to run with the sandbox HOME', () => fleetGitProcesses(t.sb.home).length === 0, 5000);
  });

  test('hooks of sessions that fire at once start one forwarder, not one each (two when a claim is read half-written)', async () => {
    await t.settled();
    // The forwarder stays until the test ends it: a hook that came after it had left would rightly start another.
    const node = countingNode(t.sb.dir, { ...t.env, FLEET_GIT_FORWARDER_IDLE_MS: '600000' });
    // Eight hooks, each held at reading its payload, then all let go together.
    const hooks = Array.from({ length: 8 }, () =>
      spawn('/bin/bash', ['--norc', '--noprofile', '-c', t.cmd('postToolUse')], { env: node.env, stdio: ['pipe', 'ignore', 'ignore'] }),
    );
    const exited = hooks.map((h) => new Promise((r) => h.on('close', r)));
    // All eight at once: each is blocked reading its payload before any is given one.
    await until('all 8 hooks to be reading their payload', () => hooks.every((h) => readingStdin(h.pid!)), 30_000);
    hooks.forEach((h, n) => h.stdin.end(tool(`together-${n}`, 0)));
    await Promise.all(exited);
    await until(
      'the 8 events',
      () => new Set(obs.events.filter((e) => String(e.session_id).startsWith('together-')).map((e) => e.session_id)).size === 8,
    );
    // A hook that reads the claim between its creation and its write, in a later tick of the file clock than
    // its own event, starts a second (on a loaded machine); the socket lock keeps one sender.
    assert.ok(node.starts() >= 1 && node.starts() <= 2, `${node.starts()} forwarders started`);
    await t.endForwarder();
  });

  test('a forwarder leaves once its idle time is up after its last event, not at its next look at the folder', async () => {
    await t.settled();
    // An idle time of 100 ms; unprompted, it looks at the folder once a second (RESCAN_MS).
    await runHook(t.cmd('postToolUse'), tool('idle-1', 0), { ...t.env, FLEET_GIT_FORWARDER_IDLE_MS: '100' });
    await obs.waitFor((e) => e.session_id === 'idle-1');
    const sent = Date.now();
    const pid = t.forwarderPid();
    assert.ok(pid && isAlive(pid), 'the forwarder runs');
    await until('the forwarder to leave', () => !isAlive(pid!), 5000);
    const stayed = Date.now() - sent;
    assert.ok(stayed < 800, `it stayed ${stayed} ms after its last event`);
  });

  test('a forwarder killed in the middle of a burst loses at most the event it was sending; the next event starts a new one, which sends the rest in order', async () => {
    await runHook(t.cmd('postToolUse'), tool('burst-0', 0), t.env);
    await obs.waitFor((e) => e.session_id === 'burst-0' && stepOf(e) === 0);
    const first = t.forwarderPid();
    process.kill(first, 'SIGSTOP');
    const burst = (e: Received) => String(e.session_id).startsWith('burst-');
    try {
      // Eight sessions at once, 15 events each, spooled while the forwarder cannot take them.
      await Promise.all(
        Array.from({ length: 8 }, async (_, n) => {
          for (let i = 1; i <= 15; i++) await runHook(t.cmd('postToolUse'), tool(`burst-${n}`, i), t.env);
        }),
      );
      assert.equal(t.events().length, 120);
      // Killed as the observer takes in the sixth of them, while it is sending the next ones.
      let seen = 0;
      onEvent = (e) => {
        if (burst(e) && ++seen === 7) process.kill(first, 'SIGKILL');
      };
      process.kill(first, 'SIGCONT');
      await until('the forwarder to be killed', () => !isAlive(first));
    } finally {
      onEvent = null;
      if (isAlive(first)) process.kill(first, 'SIGKILL');
    }
    const r = await runHook(t.cmd('postToolUse'), tool('burst-0', 16), t.env);
    assert.deepEqual([r.code, r.returned], [0, true]);
    await obs.waitFor((e) => e.session_id === 'burst-0' && stepOf(e) === 16);
    assert.notEqual(t.forwarderPid(), first);
    await t.settled();
    await obs.drained();
    const got = obs.events.filter(burst);
    for (let n = 0; n < 8; n++) {
      const steps = got.filter((e) => e.session_id === `burst-${n}`).map(stepOf);
      assert.deepEqual(
        steps,
        [...new Set(steps)].sort((a, b) => a - b),
        `burst-${n}: in order, none twice`,
      );
    }
    assert.ok(got.length >= 121, `lost ${122 - got.length} events`);
    await t.settled();
  });

  test(
    'two forwarders started together, the first slow between making its socket and listening on it: the second sends, the first leaves',
    { skip: needs('strace') },
    async () => {
      await t.settled();
      const env = { ...t.env, FLEET_GIT_FORWARDER_IDLE_MS: '600000' };
      const forward = [process.execPath, CLIENT, '--forward', t.spool];
      // The first one's listen(2) waits 1.5 s (strace delays it): meanwhile its socket refuses connections.
      const delay = ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=listen', '-e', 'inject=listen:delay_enter=1500000'];
      const slow = spawn('strace', [...delay, ...forward], { env, stdio: 'ignore' });
      const slowGone = new Promise((r) => slow.on('close', r));
      try {
        await until('the first to make its socket', () => readdirSync(t.spool).some((n) => n.endsWith('.sock')), 10_000);
        const quick = spawn(forward[0]!, forward.slice(1), { env, stdio: 'ignore' });
        await until("the second's lease", () => t.forwarderPid() === quick.pid, 10_000);
        await until('the first to leave', () => slow.exitCode !== null, 8_000);
        assert.ok(isAlive(quick.pid!), 'the second runs on');
        for (let i = 0; i < 5; i++) await runHook(t.cmd('postToolUse'), tool('two-starts', i), t.env);
        await obs.waitFor((e) => e.session_id === 'two-starts' && stepOf(e) === 4);
        assert.deepEqual(obs.events.filter((e) => e.session_id === 'two-starts').map(stepOf), [0, 1, 2, 3, 4]);
        assert.deepEqual(
          readdirSync(t.spool).filter((n) => n.endsWith('.sock')),
          ['forwarder.sock'],
          'the first took its socket away',
        );
      } finally {
        slow.kill('SIGKILL');
        await slowGone;
        await t.endForwarder();
      }
    },
  );

  test('the hook returns before the forwarder it starts has run node at all: nothing on the hook path waits for node', async () => {
    await t.settled();
    const gate = join(t.sb.dir, 'node-gate');
    const bin = join(t.sb.dir, 'gated-bin');
    mkdirSync(bin, { recursive: true });
    // A node that starts only once the test lets it (the loop's sleeps run in the forwarder's job, not the hook).
    writeFileSync(join(bin, 'node'), `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.02; done\nexec '${process.execPath}' "$@"\n`, {
      mode: 0o755,
    });
    const env = { ...t.env, PATH: `${bin}:${t.sb.env.PATH}` };
    for (const pipe of [true, false]) {
      rmSync(gate, { force: true });
      const sid = `gated-${pipe}`;
      const r = await runHook(t.cmd('postToolUse'), tool(sid, 0), env, { pipe, cwd: t.repo, limitMs: 60_000 });
      assert.deepEqual([r.returned, r.code, r.stdout, r.stderr], [true, 0, '', ''], 'returned while node was held');
      assert.equal(t.events().length, 1, 'its event waits in the spool');
      writeFileSync(gate, '');
      await obs.waitFor((e) => e.session_id === sid);
      await t.settled();
    }
  });

  test('a stuck forwarder does not hold the hook; no event is readable by others, whatever the umask; a killed forwarder loses nothing queued and the next event starts a new one', async () => {
    await runHook(t.cmd('postToolUse'), tool('kill-1', 0), t.env);
    await obs.waitFor((e) => e.session_id === 'kill-1' && stepOf(e) === 0);
    const first = t.forwarderPid();
    assert.ok(first && isAlive(first));
    process.kill(first, 'SIGSTOP');
    try {
      // A hook that waited for the stopped forwarder would never return: killed at the (generous) limit, an error.
      // How fast it returns is bench/hook-command.mjs's to measure ('forwarder stuck'), beside `true`.
      for (const i of [1, 2, 3]) {
        const r = spawnSync('/bin/sh', ['-c', 'umask 000; exec /bin/bash --norc --noprofile -c "$0"', t.cmd('postToolUse')], {
          env: t.env,
          input: tool('kill-1', i),
          encoding: 'utf8',
          timeout: 60_000,
        });
        assert.deepEqual([r.status, r.stdout, r.stderr, r.error], [0, '', '', undefined]);
      }
      const spooled = t.events();
      assert.equal(spooled.length, 3);
      assert.equal(statSync(t.spool).mode & 0o777, 0o700);
      for (const f of spooled) assert.equal(statSync(join(t.spool, f)).mode & 0o777, 0o600, f);
    } finally {
      process.kill(first, 'SIGKILL');
    }
    await until('the killed forwarder to be gone', () => !isAlive(first));
    const r = await runHook(t.cmd('postToolUse'), tool('kill-1', 4), t.env);
    assert.deepEqual([r.code, r.returned], [0, true]);
    await obs.waitFor((e) => e.session_id === 'kill-1' && stepOf(e) === 4);
    assert.deepEqual(obs.events.filter((e) => e.session_id === 'kill-1').map(stepOf), [0, 1, 2, 3, 4]);
    assert.notEqual(t.forwarderPid(), first);
    await t.settled();
  });

  test('an agentStop before its final message is on disk: the Stop with the message, then the session end, in order', async () => {
    const sid = 'lag-1';
    const lines = readFileSync(join(FIXTURES, 'transcript-events.jsonl'), 'utf8').split('\n').filter(Boolean);
    const final = lines.findIndex((l) => l.includes('"Done. All finished."'));
    const transcript = join(t.sb.dir, `${sid}.jsonl`);
    writeFileSync(transcript, lines.slice(0, final).join('\n') + '\n');
    // The forwarder these hooks start waits for the message at its longest, so it still waits when it comes, on any load.
    await t.settled();
    const env = { ...t.env, FLEET_GIT_STOP_WAIT_MS: '60000' };
    await runHook(t.cmd('sessionStart'), JSON.stringify({ sessionId: sid, cwd: '/w', source: 'new' }), env);
    const stop = await runHook(
      t.cmd('agentStop'),
      JSON.stringify({ ...JSON.parse(fixture('agentStop.json')), sessionId: sid, transcriptPath: transcript }),
      env,
    );
    assert.deepEqual([stop.code, stop.returned], [0, true]);
    await runHook(t.cmd('sessionEnd'), JSON.stringify({ sessionId: sid, reason: 'complete' }), env);
    await sleep(300);
    appendFileSync(transcript, lines.slice(final).join('\n') + '\n');
    await obs.waitFor((e) => e.session_id === sid && e.message === 'complete');
    const stops = obs.events.filter((e) => e.session_id === sid && e.event === 'Stop');
    assert.deepEqual(
      stops.map((e) => [e.last_assistant_message, e.message]),
      [
        ['Done. All finished.', 'end_turn'],
        [null, 'complete'],
      ],
    );
    const file = JSON.parse(readFileSync(join(t.paths.fleetSessions, `${sid}.json`), 'utf8'));
    assert.equal(file.lastMessage.text, 'Done. All finished.');
    await t.settled();
  });

  test("user-level and repository-level hook files both fleet-git's: each event once", async () => {
    assert.equal(t.sb.cli(t.repo, 'enable', '--user').status, 0);
    try {
      const user = JSON.parse(readFileSync(join(t.paths.copilotHome, 'hooks', 'fleet.json'), 'utf8')).hooks.postToolUse[0].bash as string;
      await runHook(user, tool('levels-1', 0), { ...t.env, COPILOT_HOOK_DIR: join(t.paths.copilotHome, 'hooks') });
      await runHook(t.cmd('postToolUse'), tool('levels-1', 0), { ...t.env, COPILOT_HOOK_DIR: join(t.repo, '.github', 'hooks') });
      await runHook(user, tool('levels-1', 1), { ...t.env, COPILOT_HOOK_DIR: join(t.paths.copilotHome, 'hooks') });
      await obs.waitFor((e) => e.session_id === 'levels-1' && stepOf(e) === 1);
      await t.settled();
      await obs.drained();
      assert.deepEqual(obs.events.filter((e) => e.session_id === 'levels-1').map(stepOf), [0, 1]);
    } finally {
      assert.equal(t.sb.cli(t.repo, 'disable', '--user').status, 0);
    }
    await t.settled();
  });

  test('a hook file written before the forwarder keeps working (hook-file-outdated) until enable rewrites it', async () => {
    const file = join(t.repo, '.github', 'hooks', 'fleet.json');
    const current = readFileSync(file, 'utf8');
    const quoted = `'${t.paths.dataDir.replace(/'/g, `'\\''`)}'`;
    // The command enable wrote before: node on every event.
    const old = (event: string) =>
      `d=${quoted}; n=$(command -v node 2>/dev/null || cat "$d/node" 2>/dev/null); unset NODE_EXTRA_CA_CERTS; [ -f "$d/hook-client.cjs" ] && [ -x "$n" ] && exec "$n" "$d/hook-client.cjs" ${event}; exit 0 # claude-code-fleet fleet-git`;
    const doc = JSON.parse(current);
    for (const [event, entries] of Object.entries(doc.hooks) as Array<[string, Array<{ bash: string }>]>) entries[0]!.bash = old(event);
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    const status = JSON.parse(t.sb.cli(t.repo, 'status', '--json').stdout);
    assert.deepEqual(
      status.problems.map((p: { code: string }) => p.code),
      ['hook-file-outdated'],
    );
    const r = await runHook(old('postToolUse'), tool('old-1', 0), t.env, { cwd: t.repo });
    assert.deepEqual([r.code, r.stdout, r.returned], [0, '', true]);
    await obs.waitFor((e) => e.session_id === 'old-1');
    assert.equal(t.sb.cli(t.repo, 'enable').status, 0);
    assert.equal(readFileSync(file, 'utf8'), current);
    assert.deepEqual(JSON.parse(t.sb.cli(t.repo, 'status', '--json').stdout).problems, []);
  });

  test("with XDG_RUNTIME_DIR set and the user's, the spool is there", async () => {
    const runtime = join(t.sb.dir, 'run-user');
    mkdirSync(runtime, { mode: 0o700 });
    const env = { ...t.env, XDG_RUNTIME_DIR: runtime };
    await runHook(t.cmd('postToolUse'), tool('runtime-1', 0), env);
    await obs.waitFor((e) => e.session_id === 'runtime-1');
    assert.equal(statSync(join(runtime, 'fleet-git')).mode & 0o777, 0o700);
    await until('the forwarder there to leave', () => readdirSync(join(runtime, 'fleet-git')).length === 0);
  });
});

describe('the hook never fails or blocks Copilot', () => {
  const t = setUp();
  /** A PATH with what the hook command may run besides node: `node` is only there when given. */
  const bin = join(t.sb.dir, 'bin');
  mkdirSync(bin);
  for (const tool of ['cat', 'mkdir', 'rm', 'sh'])
    symlinkSync(spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(bin, tool));
  const noNode = { ...t.env, PATH: bin };

  /**
   * Each hook returns, exits 0 and prints nothing: one held by what is broken
   * (a node that hangs, a stuck observer or forwarder) would not return and is
   * killed at the limit, which only stops it. How fast each returns is a
   * benchmark's question: bench/hook-command.mjs measures these cases beside
   * `true`; that nothing on the hook path waits for node is tested above (the
   * hook returns while its forwarder's node is held).
   */
  async function returnsQuietly(what: string, env: Record<string, string>, pipe = false) {
    for (const event of ['sessionStart', 'postToolUse']) {
      const input = event === 'sessionStart' ? fixture('sessionStart.json') : tool(`never-${what}`, 0);
      for (let i = 0; i < 3; i++) {
        const r = await runHook(t.cmd(event), input, env, { pipe, cwd: t.repo, limitMs: 60_000 });
        assert.deepEqual([r.returned, r.code, r.stdout, r.stderr], [true, 0, '', ''], `${what} (${event})`);
      }
    }
  }

  test('node missing: returns, exits 0, and the spool does not keep the events', async () => {
    const recorded = join(t.paths.dataDir, 'node');
    const saved = readFileSync(recorded, 'utf8');
    writeFileSync(recorded, join(t.sb.dir, 'no-such-node'));
    try {
      await returnsQuietly('node-missing', noNode, true);
      await until('the spool to be emptied', () => t.events().length === 0);
    } finally {
      writeFileSync(recorded, saved);
    }
  });

  test('node broken (exits 1 at once, or hangs): returns, exits 0', async () => {
    writeFileSync(join(bin, 'node'), '#!/bin/sh\necho broken >&2\nexit 1\n', { mode: 0o755 });
    await returnsQuietly('node-broken', noNode);
    await until('the spool to be emptied', () => t.events().length === 0);
    writeFileSync(join(bin, 'node'), '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    symlinkSync(spawnSync('/bin/sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).stdout.trim(), join(bin, 'sleep'));
    try {
      await returnsQuietly('node-hangs', noNode);
      await returnsQuietly('node-hangs', noNode, true);
    } finally {
      const pid = t.forwarderPid();
      if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
      for (const line of spawnSync('/bin/sh', ['-c', `ps -eo pid,args | grep "[s]leep 30"`], { encoding: 'utf8' }).stdout.split('\n')) {
        const pid = Number(line.trim().split(' ')[0]);
        if (pid && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(t.sb.home)) process.kill(pid, 'SIGKILL');
      }
      rmSync(join(bin, 'node'));
      rmSync(t.spool, { recursive: true, force: true });
    }
  });

  test('the spool cannot be written (the data folder read-only or full): returns, exits 0', async () => {
    // Not a folder where the spool should be: every write there fails.
    rmSync(t.spool, { recursive: true, force: true });
    writeFileSync(t.spool, '');
    try {
      await returnsQuietly('spool-file', t.env);
      await returnsQuietly('spool-file', t.env, true);
    } finally {
      rmSync(t.spool);
    }
    // A write that fails partway (the file-size limit stands in for a full disk): the partial file goes too.
    const r = spawnSync('/bin/bash', ['-c', `trap '' XFSZ; ulimit -f 1; exec /bin/bash --norc --noprofile -c "$0"`, t.cmd('postToolUse')], {
      env: t.env,
      input: JSON.stringify({ sessionId: 'full-1', toolName: 'bash', toolResult: { textResultForLlm: 'x'.repeat(64 * 1024) } }),
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.deepEqual([r.status, r.stdout, r.stderr, r.error], [0, '', '', undefined]);
    assert.deepEqual(t.events(), []);
    if (process.getuid?.() !== 0) {
      chmodSync(t.paths.dataDir, 0o500);
      try {
        await returnsQuietly('read-only', t.env);
      } finally {
        chmodSync(t.paths.dataDir, 0o755);
      }
    } else {
      // Root writes through modes: a read-only file system, then a full one, mounted where the spool goes.
      mkdirSync(t.spool, { recursive: true, mode: 0o700 });
      for (const [what, options] of [
        ['read-only', 'ro,size=64k,mode=700'],
        ['full', 'size=8k,mode=700'],
      ] as const) {
        const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', t.spool], { encoding: 'utf8' });
        assert.equal(mounted.status, 0, `mount failed: ${mounted.stderr}`);
        try {
          if (what === 'full') spawnSync('/bin/sh', ['-c', `cat /dev/zero > "$0/fill"`, t.spool]);
          await returnsQuietly(what, t.env);
          await returnsQuietly(what, t.env, true);
          assert.deepEqual(t.events(), []);
        } finally {
          spawnSync('umount', [t.spool]);
        }
      }
    }
  });

  test('observer absent, or stuck (accepts, never reads): returns, exits 0', async () => {
    await returnsQuietly('observer-absent', t.env, true);
    const stuck = await TestObserver.start(t.paths.fleetSocket, { stuck: true });
    try {
      await returnsQuietly('observer-stuck', t.env);
      await returnsQuietly('observer-stuck', t.env, true);
    } finally {
      await stuck.close();
    }
    await t.settled();
  });
});
