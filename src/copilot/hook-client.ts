// The hook client: Copilot CLI runs it once per hook event, as
//   node <this file> <event>        (argv[2]: the Copilot event name, e.g. postToolUse)
// with the event's JSON payload on stdin. It hands the observer's normalized
// event to the fleet observer's socket and keeps the observer's session file.
//
// Copilot waits for some hooks before it goes on, so this runs on every tool
// call: it loads only node builtins and a few small modules of ours (bundled by
// esbuild into dist/hook-client.cjs), and loads child_process only when an
// agentStop must wait for the transcript. It always exits 0 and never writes
// to stdout (Copilot reads some hooks' stdout as instructions).
import { fstatSync, readFileSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { userPaths, type UserPaths } from '../paths.js';
import { NO_ENTRY_OK } from '../fs/atomic.js';
import { canonicalEvent, isPlainId, lastMessage, normalizePayload, type FleetEvent, type NormalizeContext } from './normalize.js';
import { readFinalMessage, readSessionModel, transcriptOf, transcriptPathFor } from './transcript.js';
import { sendEvent } from '../fleet/socket.js';
import { hasFleetGitCommand, hookCommands, userHookFile } from '../core/hook-mark.js';
import { recordSessionStop, restoreSessionMessage, writeSessionStart } from '../fleet/sessions.js';

/** argv[2] of the detached process that waits for an agentStop's final message. */
export const AWAIT_STOP_FLAG = '--await-stop';
const STDIN_MAX = 32 * 1024 * 1024;
const POLL_MS = 25;
const WAIT_MS = 3000;
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
      if (code === 'EAGAIN') { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2); continue; }
      if (code === 'EOF') break;
      return null;
    }
    if (n === 0) break;
    total += n;
    // Past the limit, keep draining (so Copilot's write never fails) but keep nothing.
    if (total <= STDIN_MAX) { chunks.push(buf.subarray(0, n)); buf = Buffer.allocUnsafe(buf.length); }
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
    try {
      if (!SHELLS.has(readFileSync(`/proc/${pid}/comm`, 'utf8').trim())) return pid;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "<pid> (<comm>) <state> <ppid> ...": comm may hold spaces and parentheses.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!Number.isInteger(parent) || parent <= 1) return pid;
      pid = parent;
    } catch {
      return pid;
    }
  }
  return pid;
}

async function deliver(ev: FleetEvent, paths: UserPaths): Promise<void> {
  if (ev.event === 'SessionStart') writeSessionStart(paths.fleetSessions, ev);
  else if (ev.event === 'Stop') recordSessionStop(paths.fleetSessions, ev.session_id, ev.last_assistant_message);
  await sendEvent(paths.fleetSocket, ev);
}

function pathsOf(env: NodeJS.ProcessEnv): UserPaths {
  return userPaths(env, env.HOME || homedir());
}

/** Larger than any hook file fleet-git writes (about 2 KB): such a user-level file is not ours, and is not read. */
const USER_FILE_MAX = 256 * 1024;

/**
 * Copilot runs every hook source it finds. When this run comes from a
 * repository's hook file (COPILOT_HOOK_DIR is <repo>/.github/hooks) and the
 * user-level hook file ($COPILOT_HOME/hooks/fleet.json) is fleet-git's too,
 * that one reports the event: do nothing. A file of that name that is not
 * fleet-git's (or cannot be read) silences nothing. One stat and one small
 * read, and only for repository runs. Without COPILOT_HOOK_DIR the level is
 * unknown: report.
 */
function userLevelReports(env: NodeJS.ProcessEnv, paths: UserPaths): boolean {
  const dir = env.COPILOT_HOOK_DIR;
  if (!dir || !/\/\.github\/hooks(\/|$)/.test(dir)) return false;
  try {
    const file = userHookFile(paths);
    const st = statSync(file, NO_ENTRY_OK);
    if (!st || !st.isFile() || st.size > USER_FILE_MAX) return false;
    return hasFleetGitCommand(hookCommands(readFileSync(file, 'utf8')) ?? []);
  } catch {
    return false;
  }
}

async function main(argv: string[]): Promise<void> {
  if (argv[2] === AWAIT_STOP_FLAG) return awaitStop(argv[3]);
  const env = process.env;
  const paths = pathsOf(env);
  const text = readStdin();
  if (!text || userLevelReports(env, paths)) return;
  let raw: unknown;
  try { raw = JSON.parse(text); } catch { return; }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return;
  const input = raw as Record<string, unknown>;
  const kind = canonicalEvent(argv[2], input);
  if (!kind) return;
  const sessionId = input.sessionId ?? input.session_id;
  if (!isPlainId(sessionId)) return;

  const ctx: NormalizeContext = { env };
  if (kind === 'sessionStart') {
    ctx.pid = process.pid;
    ctx.ppid = agentPid();
    if (!env.COPILOT_MODEL && typeof input.model !== 'string') {
      ctx.transcriptModel = readSessionModel(transcriptPathFor(paths.copilotHome, sessionId));
    }
  }
  const ev = normalizePayload(input, kind, ctx);
  if (!ev) return;

  if (kind === 'agentStop' && ev.last_assistant_message === null) {
    const transcript = transcriptOf(input, paths.copilotHome, sessionId);
    const final = readFinalMessage(transcript);
    if (final.state === 'pending') return spawnWaiter(argv[1]!, ev, transcript);
    ev.last_assistant_message = lastMessage(final.text);
  }
  await deliver(ev, paths);
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
  child.on('error', () => { /* nothing to do */ });
  child.unref();
}

async function awaitStop(arg: string | undefined): Promise<void> {
  let job: { ev: FleetEvent; transcript: string };
  try { job = JSON.parse(arg ?? ''); } catch { return; }
  if (!job || typeof job.transcript !== 'string' || !job.ev || !isPlainId(job.ev.session_id)) return;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const final = readFinalMessage(job.transcript);
    if (final.state === 'found') { job.ev.last_assistant_message = lastMessage(final.text); break; }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
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
