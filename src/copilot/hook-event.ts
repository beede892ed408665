// One Copilot hook event, from its payload and the hook's environment to the
// observer: shared by the forwarder (which gets both from the spool file the
// hook command wrote) and the direct client (which old hook files still run).
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { userPaths, type Env, type UserPaths } from '../paths.js';
import { NO_ENTRY_OK } from '../fs/read.js';
import {
  canonicalEvent,
  isVsCodePayload,
  lastMessage,
  normalizePayload,
  type CopilotEventName,
  type NormalizeContext,
} from './normalize.js';
import { isPlainId, type FleetEvent } from '../fleet/event.js';
import { readFinalMessage, readSessionModel, transcriptOf } from './transcript.js';
import { sendEvent } from '../fleet/socket.js';
import { hasFleetGitCommand, hookCommands, userHookFile } from './hook-mark.js';
import { recordSessionStop, writeSessionStart } from '../fleet/sessions.js';
import { vscodeSessionsShown } from './vscode.js';
import { isSessionId, subagentOf, type SubagentIds } from './subagents.js';

/** What the hook knew when Copilot ran it. */
export interface HookRun {
  /** The Copilot event the hook command serves (its argument). */
  event: string | undefined;
  /** The payload Copilot wrote on the hook's stdin. */
  text: string;
  /** The hook's environment (only what normalizing and the user's paths need). */
  env: Env;
  /** The hook process. */
  pid: number | null;
  /** The Copilot process; asked for SessionStart only. */
  ppid: () => number | null;
}

export interface Prepared {
  ev: FleetEvent;
  paths: UserPaths;
  /** An agentStop whose final message is not in the transcript yet: where to wait for it. */
  waitFor: string | null;
  /** A SessionStart whose model the transcript is to give, not written yet: where to wait for it. */
  waitModel: string | null;
  /** The Copilot event it came from. */
  kind: CopilotEventName;
  /** A subagent's event: its ids, for the forwarder to send it as its root session's (src/copilot/subagents.ts). */
  sub: SubagentIds | null;
}

const POLL_MS = 25;
/** How long an agentStop waits for its final message (measured lag: about 80 ms). */
export const STOP_WAIT_MS = 3000;
/** Names another wait for the hook client and the forwarder, in ms (50 to 60000), for tests that would sleep it out. */
export const STOP_WAIT_VAR = 'FLEET_GIT_STOP_WAIT_MS';

/** A time in ms that the variable `name` asks for, from 50 to `max`; else `otherwise`. */
export function msOf(env: Env, name: string, otherwise: number, max: number): number {
  const n = Number(env[name]);
  return env[name] && Number.isFinite(n) && n >= 50 && n <= max ? n : otherwise;
}

/** The agentStop wait the environment asks for, else STOP_WAIT_MS. */
export const stopWaitMs = (env: Env): number => msOf(env, STOP_WAIT_VAR, STOP_WAIT_MS, 60_000);

let lastPaths: { key: string; paths: UserPaths } | undefined;

/** The user's paths as a hook run's environment names them; the last environment's kept (a forwarder asks for each event, nearly always of one). */
export function pathsOf(env: Env): UserPaths {
  const key = JSON.stringify(env);
  if (lastPaths?.key !== key) lastPaths = { key, paths: userPaths(env, env.HOME || homedir()) };
  return lastPaths.paths;
}

/** Larger than any hook file fleet-git writes (about 2 KiB): such a user-level file is not ours, and is not read. */
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
function userLevelReports(env: Env, paths: UserPaths): boolean {
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

/** A payload as the observer's event, before an agentStop's final message is looked for. */
export interface HookEvent {
  ev: FleetEvent;
  /** An agentStop's transcript, when the payload gave no final message: where it is to be read. */
  transcript: string | null;
  /** A SessionStart's transcript, when the model is to come from it and it is not written yet. */
  modelFrom: string | null;
  kind: CopilotEventName;
  /** A subagent's event (its session_id is still the subagent's own): see src/copilot/subagents.ts. */
  sub: SubagentIds | null;
}

/** The Copilot events of a subagent that send nothing: its stop is not its root's turn's end, nor its error. */
const SUBAGENT_SILENT: ReadonlySet<CopilotEventName> = new Set(['sessionStart', 'agentStop', 'sessionEnd', 'errorOccurred']);
/** The notifications of a subagent that go out (as its root's): those that wait for the user. */
const ASKS_THE_USER: ReadonlySet<unknown> = new Set(['permission_prompt', 'elicitation_dialog']);

/**
 * Whether an event sends nothing, by what it is: a subagent's that is not its root's news (a stop, an
 * error, a notification that asks the user nothing). (A session's own error is sent whatever its
 * `recoverable` says: Copilot 1.0.102 marks the model error that ends a turn recoverable.)
 */
function silent(kind: CopilotEventName, input: Record<string, unknown>, sub: SubagentIds | null): boolean {
  if (!sub) return false;
  if (kind === 'notification') return !ASKS_THE_USER.has(input.notification_type ?? input.notificationType);
  return SUBAGENT_SILENT.has(kind);
}

/**
 * A subagent's event, for a caller that sees one event alone (the direct hook client, the library's adapter): sent
 * as its parent's when that parent is a session, else not at all (a nested subagent's root needs the forwarder's
 * memory). True when it is to be sent.
 */
export function routeAlone(made: { ev: FleetEvent; sub: SubagentIds | null }, copilotHome: string): boolean {
  if (!made.sub) return true;
  if (!isSessionId(copilotHome, made.sub.parent)) return false;
  made.ev.session_id = made.sub.parent;
  return true;
}

/**
 * One payload (a parsed object) as the observer's event: its kind (the hook's
 * argument, else the event hint, else the payload's own name), a plain session
 * id, and for SessionStart the processes and the model the transcript names.
 * Null when nothing is to be sent. Shared by the hook client and the library's
 * CopilotAdapter.normalizePayload, which wait for the final message each its own way.
 */
export function hookEventOf(
  raw: unknown,
  event: string | undefined,
  env: Env,
  copilotHome: string,
  pid: number | null,
  ppid: () => number | null,
): HookEvent | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const input = raw as Record<string, unknown>;
  const kind = canonicalEvent(event, input, env);
  if (!kind) return null;
  const sessionId = input.sessionId ?? input.session_id;
  if (!isPlainId(sessionId)) return null;
  const sub = subagentOf(input);
  if (silent(kind, input, sub)) return null;
  // VS Code's agent runs the same hook file; `vscode: false` in the user's config keeps its sessions out.
  const vscode = isVsCodePayload(input, env);
  if (vscode && !vscodeSessionsShown(pathsOf(env).configFile)) return null;
  const ctx: NormalizeContext = { env };
  let modelFrom: string | null = null;
  if (kind === 'sessionStart') {
    // fleet kills a card's ppid and follows its life. VS Code's agent runs hooks from its extension host,
    // every chat's and extension's process: a VS Code card names none. Without a ppid, no pid either.
    ctx.ppid = vscode ? null : ppid();
    ctx.pid = ctx.ppid === null ? null : pid;
    // VS Code's payload names no model, and the environment's is a Copilot CLI's: its transcript may.
    if (vscode || (!env.COPILOT_MODEL && typeof input.model !== 'string')) {
      const path = transcriptOf(input, copilotHome, sessionId);
      const model = readSessionModel(path);
      ctx.transcriptModel = model ?? null;
      if (model === undefined) modelFrom = path;
    }
  }
  const ev = normalizePayload(input, kind, ctx);
  if (!ev) return null;
  const pending = kind === 'agentStop' && ev.last_assistant_message === null;
  return { ev, transcript: pending ? transcriptOf(input, copilotHome, sessionId) : null, modelFrom, kind, sub };
}

/**
 * VS Code payloads this process prepared lately. VS Code's agent runs every hook file it finds, the
 * user-level one (~/.copilot/hooks) and the repository's alike, each with the same payload, and tells a
 * hook nothing of which file it came from (the CLI's COPILOT_HOOK_DIR, userLevelReports): the same
 * payload again is that second file's run, and is not sent. The forwarder handles every event of the
 * user's sessions, so it sees both.
 */
const vscodeSeen = new Set<string>();
const VSCODE_SEEN_MAX = 256;

/** Whether this VS Code payload was prepared already (and, if not, remembers it). */
function seenBefore(event: string | undefined, text: string): boolean {
  const key = `${event ?? ''}\0${text}`;
  if (vscodeSeen.has(key)) return true;
  vscodeSeen.add(key);
  if (vscodeSeen.size > VSCODE_SEEN_MAX) vscodeSeen.delete(vscodeSeen.values().next().value!);
  return false;
}

/** The observer's event for one hook run, or null when nothing is to be sent. */
export function prepare(run: HookRun): Prepared | null {
  const { text } = run;
  // The spool names no XDG_CONFIG_HOME (the config file's folder): the forwarder's own is the hook's that started it.
  const env =
    run.env.XDG_CONFIG_HOME || !process.env.XDG_CONFIG_HOME ? run.env : { ...run.env, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  const paths = pathsOf(env);
  if (!text || userLevelReports(env, paths)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const made = hookEventOf(raw, run.event, env, paths.copilotHome, run.pid, run.ppid);
  if (!made || (isVsCodePayload(raw, env) && seenBefore(run.event, text))) return null;
  const { ev, transcript, modelFrom, kind, sub } = made;
  let waitFor: string | null = null;
  if (transcript !== null) {
    const final = readFinalMessage(transcript);
    if (final.state === 'pending') waitFor = transcript;
    else ev.last_assistant_message = lastMessage(final.text);
  }
  return { ev, paths, waitFor, waitModel: modelFrom, kind, sub };
}

/** How long a SessionStart waits for its transcript's model (the transcript lags the hook by some 80 ms). */
const MODEL_WAIT_MS = 1000;

/** Waits (up to MODEL_WAIT_MS) for the transcript's session.start and puts its model in the event. */
export async function awaitSessionModel(ev: FleetEvent, transcript: string): Promise<void> {
  const deadline = Date.now() + MODEL_WAIT_MS;
  for (;;) {
    const model = readSessionModel(transcript);
    if (model !== undefined || Date.now() >= deadline) {
      ev.model = model ?? null;
      return;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Waits (up to `waitMs` from now) for an agentStop's final message and puts it in the event. */
export async function awaitFinalMessage(ev: FleetEvent, transcript: string, waitMs = STOP_WAIT_MS): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const final = readFinalMessage(transcript);
    if (final.state === 'found') {
      ev.last_assistant_message = lastMessage(final.text);
      return;
    }
    if (Date.now() >= deadline) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The observer's session file, then the line on its socket (through `send`: the forwarder's keeps its connection). */
export async function deliver(
  ev: FleetEvent,
  paths: UserPaths,
  send: (socketPath: string, ev: FleetEvent) => Promise<boolean> = sendEvent,
): Promise<void> {
  if (ev.event === 'SessionStart') writeSessionStart(paths.fleetSessions, ev);
  else if (ev.event === 'Stop') recordSessionStop(paths.fleetSessions, ev.session_id, ev.last_assistant_message);
  await send(paths.fleetSocket, ev);
}
