// Subagents: which card a hook event belongs to. The rule, in one place
// (docs/how-it-works.md, "Subagents", says the same):
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
//   process (the spool's ppid), so the session last seen from that process is
//   the root. The payload decides that it is a subagent; the process only
//   which session, among those this forwarder saw, is its root.
// - A subagent's tool calls go out as its root's (its session_id), in spool
//   order with the root's own. Its agentStop (and a sessionEnd, should one
//   come) sends nothing: it neither makes a card nor marks the root idle, and
//   notifies no one. An event whose root cannot be told sends nothing either:
//   a card of its own would be a phantom.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainId } from '../fleet/event.js';

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

  /**
   * The session id an event is to be sent as: its own for a session's event (which it remembers),
   * its root's for a subagent's, null when a subagent's root cannot be told.
   */
  route(sessionId: string, sub: SubagentIds | null, proc: number | null, copilotHome: string): string | null {
    if (!sub) {
      remember(this.sessions, sessionId, true);
      if (proc !== null) remember(this.byProcess, proc, sessionId);
      return sessionId;
    }
    remember(this.parents, sub.id, sub.parent);
    const seen = new Set<string>();
    for (let id: string | undefined = sub.parent; id !== undefined && !seen.has(id); id = this.parents.get(id)) {
      if (this.sessions.has(id) || isSessionId(copilotHome, id)) return id;
      seen.add(id);
    }
    return (proc !== null && this.byProcess.get(proc)) || null;
  }
}
