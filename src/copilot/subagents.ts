// Subagents: which card a hook event belongs to. The rule, in one place
// (docs/how-it-works.md, "Subagents are on their session's card", says the same):
//
// - A payload whose `parentAgentId` is a plain id other than its own
//   `sessionId` is a subagent's (Copilot CLI's `task` tool): Copilot sets
//   `agentId`, `agentType` and `parentAgentId` on every hook a subagent fires,
//   and on none of a session's own. Its `sessionId` is the subagent's own id,
//   which no sessionStart ever announced.
// - Its card is its root session's: follow `parentAgentId` up to an id that is
//   a session. An id is a session when Copilot keeps a folder for it,
//   `$COPILOT_HOME/session-state/<id>/` (it makes one per session and none per
//   subagent), or when the forwarder saw an event of it that named no parent.
//   A nested subagent's parent is a subagent: the forwarder knows its parent
//   from that subagent's own earlier events. One that fired none yet (its first
//   tool was the `task` that started the nested one) is placed by the process:
//   every hook of a session and its subagents is a child of the same Copilot
//   process (the spool's ppid), so the session this forwarder last saw from
//   that process is the root. A forwarder that saw none (it started while the
//   subagents ran) asks the session logs: the root's
//   `session-state/<id>/events.jsonl` names each of its subagents, nested ones
//   too, on their lines (`"agentId"`); the logs written in the last hour are
//   searched, newest first, for up to 2 s (the log lags). The payload decides
//   that it is a subagent; the process and the logs only which session is its
//   root.
// - A subagent's tool calls go out as its root's (its session_id), in spool
//   order with the root's own. Its agentStop (and a sessionEnd, should one
//   come) sends nothing: it neither makes a card nor marks the root idle, and
//   notifies no one; nor does its errorOccurred, nor a notification of it that
//   asks the user nothing (a permission prompt or a question goes out, as its
//   root's: the session waits for the user). An event whose root cannot be
//   told sends nothing either: a card of its own would be a phantom.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isPlainId } from '../fleet/event.js';
import { NO_ENTRY_OK } from '../fs/read.js';
import { namesAgent } from './transcript.js';

/** A subagent payload's ids: its own (the payload's sessionId) and its parent's. */
export interface SubagentIds {
  id: string;
  parent: string;
}

/** The subagent ids of a payload (an object), or null for a session's own event. */
export function subagentOf(raw: Record<string, unknown>): SubagentIds | null {
  const parent = raw.parentAgentId ?? raw.parent_agent_id;
  const id = raw.sessionId ?? raw.session_id;
  if (!isPlainId(parent) || !isPlainId(id) || parent === id) return null;
  return { id, parent };
}

/** Whether Copilot keeps a session folder for `id` (sessions have one, subagents none). */
export function isSessionId(copilotHome: string, id: string): boolean {
  return existsSync(join(copilotHome, 'session-state', id));
}

/** How recent a session log must be to be searched for a subagent, and how many are searched at most. */
const LOG_RECENT_MS = 3_600_000;
const LOGS_SEARCHED = 16;
/** How long a subagent's event waits for a log to name it, looking every POLL_MS. */
const LOG_WAIT_MS = 2000;
const POLL_MS = 50;

/** The session whose log names subagent `agentId`: among those written lately, newest first; null when none does. */
export function sessionNaming(copilotHome: string, agentId: string): string | null {
  const dir = join(copilotHome, 'session-state');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const since = Date.now() - LOG_RECENT_MS;
  const logs = names
    .filter(isPlainId)
    .map((id) => ({ id, log: join(dir, id, 'events.jsonl') }))
    .map((s) => ({ ...s, at: statSync(s.log, NO_ENTRY_OK)?.mtimeMs ?? 0 }))
    .filter((s) => s.at >= since)
    .sort((a, b) => b.at - a.at)
    .slice(0, LOGS_SEARCHED);
  return logs.find((s) => namesAgent(s.log, agentId))?.id ?? null;
}

/** How many subagent links and processes the forwarder keeps (the oldest go first). */
const KEEP = 1024;

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > KEEP) map.delete(map.keys().next().value!);
}

/** What the forwarder learns of sessions and subagents, event by event in spool order. */
export class SubagentRoutes {
  /** A subagent's id → its parent's id. */
  private readonly parents = new Map<string, string>();
  /** Session ids seen with no parent. */
  private readonly sessions = new Map<string, true>();
  /** A Copilot process (the hook's ppid) → the session last seen from it. */
  private readonly byProcess = new Map<number, string>();
  /** Subagents whose root no log named in LOG_WAIT_MS: their later events send nothing at once (each would wait again). */
  private readonly rootless = new Map<string, true>();

  /**
   * The session id an event is to be sent as: its own for a session's event (which it remembers),
   * its root's for a subagent's, null when a subagent's root cannot be told.
   */
  async route(sessionId: string, sub: SubagentIds | null, proc: number | null, copilotHome: string): Promise<string | null> {
    if (!sub) {
      remember(this.sessions, sessionId, true);
      if (proc !== null) remember(this.byProcess, proc, sessionId);
      return sessionId;
    }
    remember(this.parents, sub.id, sub.parent);
    const seen = new Set<string>();
    let last = sub.parent;
    for (let id: string | undefined = sub.parent; id !== undefined && !seen.has(id); id = this.parents.get(id)) {
      if (this.sessions.has(id) || isSessionId(copilotHome, id)) return id;
      seen.add(id);
      last = id;
    }
    // `last`, a subagent whose own parent is unknown: its root, once told, is remembered as its parent.
    let root = (proc !== null && this.byProcess.get(proc)) || sessionNaming(copilotHome, last);
    if (!root && this.rootless.has(last)) return null;
    // Copilot writes its log in bursts (some 80 ms late): the line naming the subagent may be on its way.
    for (const until = Date.now() + LOG_WAIT_MS; !root && Date.now() < until;) {
      await sleep(POLL_MS);
      root = sessionNaming(copilotHome, last);
    }
    if (root) remember(this.parents, last, root);
    else remember(this.rootless, last, true);
    return root;
  }
}
