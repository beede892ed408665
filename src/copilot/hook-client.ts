// The hook client, dist/hook-client.cjs (bundled by esbuild, Node built-ins
// only), copied by enable to the user's data folder. Three ways in:
//
//   node hook-client.cjs --forward SPOOL   the forwarder (src/copilot/forwarder.ts),
//       started by the hook command when none runs: the hook command writes each
//       event to the spool folder and returns, without starting node on
//       Copilot's path; the forwarder hands them to the observer in order.
//   node hook-client.cjs --ours FILE      for the sh post-checkout hooks of fleet-git
//       0.1.0 and 0.2.0, which keep running it: exit 0 when FILE is a hook file
//       fleet-git wrote, 1 when not (as enable tells).
//   node hook-client.cjs <event>          what hook files written before the
//       forwarder run on every event (they keep working until enable rewrites
//       them): the payload on stdin, handed to the observer before it exits.
//
// and two of its own: `--await-stop JOB`, the detached copy an agentStop
// leaves to wait for the session's final message (spawnWaiter), and `--notify
// JOB`, the detached copy that runs fleet's notifier (src/fleet/notify.ts). It always
// exits 0 and never writes to stdout (Copilot reads some hooks' stdout as
// instructions).
import { fstatSync, readFileSync, readSync } from 'node:fs';
import { isPlainId, type FleetEvent } from '../fleet/event.js';
import { restoreSessionMessage } from '../fleet/sessions.js';
import { NOTIFY_FLAG, runNotifier } from '../fleet/notify.js';
import { awaitFinalMessage, deliver, pathsOf, prepare, routeAlone, stopWaitMs } from './hook-event.js';
import { FORWARD_FLAG, forward } from './forwarder.js';
import { OURS_FLAG, isOurHookFile } from './hook-mark.js';
import { parentOf } from '../fs/process.js';
import { sleepSync } from '../fs/sleep.js';

/** argv[2] of the detached process that waits for an agentStop's final message. */
export const AWAIT_STOP_FLAG = '--await-stop';
const STDIN_MAX = 32 * 1024 * 1024;
const RECHECK_MS = 150;
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'fish']);

function quit(): never {
  process.exit(0);
}

/** All of stdin as text; '' for a terminal or no input; null when unreadable or too large. */
function readStdin(): string | null {
  try {
    if (fstatSync(0).isCharacterDevice()) return '';
  } catch {
    return '';
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        sleepSync(2);
        continue;
      }
      if (code === 'EOF') break;
      return null;
    }
    if (n === 0) break;
    total += n;
    // Past the limit, keep draining (so Copilot's write never fails) but keep nothing.
    if (total <= STDIN_MAX) {
      chunks.push(buf.subarray(0, n));
      buf = Buffer.allocUnsafe(buf.length);
    }
  }
  return total > STDIN_MAX ? null : Buffer.concat(chunks).toString('utf8');
}

/**
 * The Copilot process: our parent, unless (Linux) the parent is a shell that
 * ran us without exec, in which case its parent, a few levels at most.
 */
function agentPid(): number {
  let pid = process.ppid;
  if (process.platform !== 'linux') return pid;
  for (let i = 0; i < 4; i++) {
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return pid;
    }
    if (!SHELLS.has(comm)) return pid;
    const parent = parentOf(pid);
    if (parent === null || parent <= 1) return pid;
    pid = parent;
  }
  return pid;
}

/** A hook file written before the forwarder: `node hook-client.cjs <event>`, the payload on stdin. */
async function direct(argv: string[]): Promise<void> {
  const text = readStdin();
  if (!text) return;
  const run = prepare({ event: argv[2], text, env: process.env, pid: process.pid, ppid: agentPid });
  if (!run || !routeAlone(run, run.paths.copilotHome)) return;
  if (run.waitFor) return spawnWaiter(argv[1]!, run.ev, run.waitFor);
  await deliver(run.ev, run.paths);
}

async function main(argv: string[]): Promise<void> {
  if (argv[2] === FORWARD_FLAG) return forward(argv[3] ?? '');
  if (argv[2] === AWAIT_STOP_FLAG) return awaitStop(argv[3]);
  if (argv[2] === NOTIFY_FLAG) return runNotifier(argv[3]);
  if (argv[2] === OURS_FLAG) {
    let text: string | null = null;
    try {
      text = readFileSync(argv[3] ?? '', 'utf8');
    } catch {
      /* none: not ours */
    }
    process.exit(text !== null && isOurHookFile(text) ? 0 : 1);
  }
  return direct(argv);
}

/**
 * The transcript lags behind the agentStop hook. Rather than make Copilot wait,
 * hand the Stop to a detached copy of this client (its own session, no stdio)
 * that polls the transcript, and exit now.
 */
async function spawnWaiter(self: string, ev: FleetEvent, transcript: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [self, AWAIT_STOP_FLAG, JSON.stringify({ ev, transcript })], {
    detached: true,
    stdio: 'ignore',
    env: process.env,
  });
  child.on('error', () => {
    /* nothing to do */
  });
  child.unref();
}

async function awaitStop(arg: string | undefined): Promise<void> {
  let job: { ev: FleetEvent; transcript: string };
  try {
    job = JSON.parse(arg ?? '');
  } catch {
    return;
  }
  if (!job || typeof job.transcript !== 'string' || !job.ev || !isPlainId(job.ev.session_id)) return;
  await awaitFinalMessage(job.ev, job.transcript, stopWaitMs(process.env));
  const paths = pathsOf(process.env);
  await deliver(job.ev, paths);
  // The session's end runs its own hook, which updates the same session file
  // and could write back a copy it read just before ours landed: a moment
  // later, put the message back if it is gone (this process keeps no one waiting).
  const message = job.ev.last_assistant_message;
  if (message) {
    await new Promise((r) => setTimeout(r, RECHECK_MS));
    restoreSessionMessage(paths.fleetSessions, job.ev.session_id, message);
  }
}

process.on('uncaughtException', quit);
process.on('unhandledRejection', quit);
main(process.argv).then(quit, quit);
