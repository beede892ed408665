// The forwarder under load, through the real hook command, forwarder and a
// listening Unix socket:
// - a backlog: N events of one session waiting in the spool (as after a
//   forwarder could not run), then one more hook of that session: the time
//   until that last event is on the socket, and the forwarder's CPU per event,
//   also counted from when its lease names it (its node start behind it) (targets:
//   10,000 within 10 s; CPU per event at 10,000 within 25% of 1,000);
// - many sessions at once: S shells each running a repository's postToolUse
//   hook E times as fast as they can, all at once: from each hook's start to
//   its line on the socket, p50 and p99, every event once and in order
//   (target at 64 sessions of 50 events: p99 within 2 s). Two layouts, as
//   Linux shares the CPU between sessions first, then between the processes
//   of a session: `one`, the shells all in one session started from one
//   shell, as the issue measured; `each`, every shell in a session of its
//   own, as when each Copilot runs in a terminal of its own: the forwarder
//   (in a session of its own) then has a 65th of the CPU at 64. The
//   benchmark's observer is in neither, as fleet's observer is no part of the
//   agents' sessions.
// The spool is in XDG_RUNTIME_DIR, which on Linux is a tmpfs (systemd's
// /run/user/UID): here a folder in /dev/shm where that is a tmpfs;
// --disk-spool puts it in the system's temporary folder instead.
//
//   npm run build && node bench/drain.mjs [--backlog 1000,10000] [--sessions 16,32,64] [--events 50] [--layouts one,each] [--disk-spool]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { built } from './lib/built.mjs';
import { homeEnv } from './lib/home-env.mjs';
import { MEMORY_FOLDER, memoryFolderHere } from '../scripts/memory-folder.mjs';

const arg = (name, dflt, as = Number) => {
  const i = process.argv.indexOf(`--${name}`);
  return (i > 0 ? process.argv[i + 1] : dflt).split(',').map(as);
};
const backlogs = arg('backlog', '1000,10000');
const sessionCounts = arg('sessions', '16,32,64');
const [perSession] = arg('events', '50');
const layouts = arg('layouts', 'one,each', String);
const inMemory = !process.argv.includes('--disk-spool') && memoryFolderHere();

const CLI = built('cli.cjs');
const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-drain-'));
const home = join(dir, 'home');
const runtime = inMemory ? mkdtempSync(join(MEMORY_FOLDER, 'fleet-git-bench-run-')) : join(dir, 'run');
const env = homeEnv(home, { LANG: 'C.UTF-8', XDG_RUNTIME_DIR: runtime });
mkdirSync(runtime, { recursive: true, mode: 0o700 });
const spool = join(env.XDG_RUNTIME_DIR, 'fleet-git');
const repo = join(dir, 'repo');
mkdirSync(repo);
execFileSync('git', ['init', '-q'], { cwd: repo, env });
execFileSync(process.execPath, [CLI, 'enable'], { cwd: repo, env, stdio: 'ignore' });
const cmd = JSON.parse(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8')).hooks.postToolUse[0].bash;

/** The observer: each line's arrival, in microseconds of the wall clock. */
const arrivals = [];
const nowUs = () => (performance.timeOrigin + performance.now()) * 1000;
const sockDir = join(home, '.config', 'claude-code-fleet');
mkdirSync(sockDir, { recursive: true });
const server = createServer((c) => {
  let buf = '';
  c.on('data', (d) => {
    buf += d;
    let n;
    while ((n = buf.indexOf('\n')) >= 0) {
      arrivals.push({ at: nowUs(), ev: JSON.parse(buf.slice(0, n)) });
      buf = buf.slice(n + 1);
    }
  });
});
await new Promise((r) => server.listen(join(sockDir, 'fleet.sock'), r));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const payload = (sid, text) =>
  JSON.stringify({
    sessionId: sid,
    timestamp: Date.now(),
    cwd: repo,
    toolName: 'bash',
    toolArgs: { command: text },
    toolResult: { resultType: 'success', textResultForLlm: 'ok' },
  });
/** A spool file as the hook command writes it (src/copilot/forwarder.ts). */
const spoolFile = (us, pid, text) =>
  [
    text,
    'postToolUse',
    '1',
    String(pid),
    home,
    env.COPILOT_HOME,
    join(repo, '.github', 'hooks'),
    '',
    '',
    '',
    '',
    '',
    '',
    'fleet-git-event-1',
  ]
    .map((f) => `${f}\0`)
    .join('');
const leasePid = () => {
  try {
    return Number(readFileSync(join(spool, 'forwarder.lease'), 'utf8').split(' ')[1]) || 0;
  } catch {
    return 0;
  }
};
/** CPU time of a process so far, in ms (Linux: utime + stime of /proc/PID/stat, in clock ticks of 10 ms). */
const cpuMs = (pid) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [utime, stime] = f
      .slice(f.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 13)
      .map(Number);
    return (utime + stime) * 10;
  } catch {
    return null;
  }
};
const settled = async () => {
  for (let quiet = 0; quiet < 3; await sleep(100))
    quiet = readdirSync(spool).filter((n) => n.endsWith('.ev') || n === 'forwarder.sock').length === 0 && !leasePid() ? quiet + 1 : 0;
};
const runHook = (input) =>
  new Promise((resolve) => {
    const p = spawn('/bin/bash', ['--norc', '--noprofile', '-c', cmd], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    p.on('close', resolve);
    p.stdin.end(input);
  });

console.log(
  `forwarder under load (${new Date().toISOString().slice(0, 16)} UTC, ${execFileSync('nproc').toString().trim()} cores; ` +
    `the spool ${inMemory ? 'in memory (tmpfs)' : 'on disk'})`,
);
mkdirSync(spool, { recursive: true, mode: 0o700 });
const perEvent = [];
for (const n of backlogs) {
  await settled();
  arrivals.length = 0;
  const sid = `backlog-${n}`;
  const base = Math.floor(nowUs()) - n * 1000;
  for (let i = 0; i < n; i++)
    writeFileSync(join(spool, `${base + i}.${100000 + i}.ev`), spoolFile(base + i, 100000 + i, payload(sid, `step-${i}`)));
  const t0 = nowUs();
  await runHook(payload(sid, `step-${n}`));
  let pid = 0;
  let cpu = 0;
  // The forwarder's CPU when its lease first names it: node's start and the lock behind it, the spool not read yet.
  let started = null;
  for (const limit = Date.now() + 120_000; arrivals.length < n + 1 && Date.now() < limit;) {
    pid ||= leasePid();
    cpu = (pid && cpuMs(pid)) || cpu;
    started ??= pid ? cpu : null;
    await sleep(5);
  }
  const wall = (arrivals.at(-1).at - t0) / 1e6;
  const steps = arrivals.map((a) => Number(/step-(\d+)/.exec(a.ev.tool_input?.command)?.[1]));
  const inOrder = steps.every((s, i) => s === i);
  const drained = (cpu - started) / (n + 1);
  perEvent.push(drained);
  console.log(
    `backlog of ${String(n).padStart(6)} events of one session, then one more hook: the last on the socket after ${wall.toFixed(2)} s; ` +
      `forwarder CPU ${cpu} ms, ${((cpu * 1000) / (n + 1)).toFixed(0)} µs an event, ${(drained * 1000).toFixed(0)} µs after its start; ` +
      `${inOrder ? 'all once, in order' : 'OUT OF ORDER or missing'}`,
  );
}
if (perEvent.length > 1)
  console.log(
    `CPU per event after the forwarder's start, ${backlogs.at(-1)} against ${backlogs[0]} waiting: ${(perEvent.at(-1) / perEvent[0]).toFixed(2)} times (target within 1.25)`,
  );

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
for (const layout of layouts)
  for (const s of sessionCounts) {
    await settled();
    arrivals.length = 0;
    // Each shell stamps the payload with its clock just before it runs the hook, and writes down how long the hook
    // itself took (its start to its exit: what the event's wait owes to the hook's own run on the loaded machine).
    const runs = join(dir, `runs-${layout}-${s}`);
    mkdirSync(runs);
    const loop = `for i in $(seq 0 ${perSession - 1}); do t=\${EPOCHREALTIME/./}; printf '{"sessionId":"%s","timestamp":0,"cwd":"/w","toolName":"bash","toolArgs":{"command":"t=%s i=%s"}}' "$0" "$t" "$i" | /bin/bash --norc --noprofile -c "$1"; echo $((\${EPOCHREALTIME/./} - t)) >>'${runs}'/"$0"; done`;
    const t0 = Date.now();
    const run = (args) => new Promise((resolve) => spawn('/bin/bash', args, { env, stdio: 'ignore', detached: true }).on('close', resolve));
    if (layout === 'one')
      await run(['-c', `for n in $(seq 0 ${s - 1}); do /bin/bash -c "$1" "many-$n" "$2" & done; wait`, 'shells', loop, cmd]);
    else await Promise.all(Array.from({ length: s }, (_, n) => run(['-c', loop, `many-${n}`, cmd])));
    const hooksS = (Date.now() - t0) / 1000;
    // Until all came, or none came for 30 s (then the line says how many are missing).
    for (let n = -1, since = Date.now(); arrivals.length < s * perSession && Date.now() - since < 30_000; await sleep(50))
      if (arrivals.length !== n) [n, since] = [arrivals.length, Date.now()];
    await sleep(200);
    const lat = [];
    let ordered = true;
    const last = new Map();
    for (const { at, ev } of arrivals) {
      const [, t, i] = /t=(\d+) i=(\d+)/.exec(ev.tool_input.command).map(Number);
      lat.push((at - t) / 1000);
      if ((last.get(ev.session_id) ?? -1) !== i - 1) ordered = false;
      last.set(ev.session_id, i);
    }
    // The forwarder's start under this load, near enough: from the shells' start to the first line on the socket.
    const first = arrivals.length ? (arrivals[0].at - t0 * 1000) / 1000 : NaN;
    lat.sort((a, b) => a - b);
    const own = readdirSync(runs)
      .flatMap((f) =>
        readFileSync(join(runs, f), 'utf8')
          .trim()
          .split('\n')
          .map((us) => Number(us) / 1000),
      )
      .sort((a, b) => a - b);
    console.log(
      `${layout === 'one' ? 'in one session: ' : 'each its own:  '}${String(s).padStart(3)} sessions × ${perSession} events at once (${((s * perSession) / hooksS).toFixed(0)} events/s): hook start to socket p50 ${pct(lat, 50).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms, max ${lat.at(-1).toFixed(0)} ms; ` +
        `the hook's own run p50 ${pct(own, 50).toFixed(0)} ms, p99 ${pct(own, 99).toFixed(0)} ms, max ${own.at(-1).toFixed(0)} ms; first line after ${first.toFixed(0)} ms; ` +
        `${arrivals.length === s * perSession && ordered ? 'every event once, in order' : `WRONG: ${arrivals.length} events, in order: ${ordered}`}`,
    );
  }
await settled();
server.close();
rmSync(dir, { recursive: true, force: true });
rmSync(runtime, { recursive: true, force: true });
