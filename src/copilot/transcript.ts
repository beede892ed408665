// Reads Copilot's session transcript ($COPILOT_HOME/session-state/<id>/events.jsonl,
// one JSON event a line) without reading all of it: the head for the session's
// model, the tail for the turn's final assistant message. Never throws.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sleepSync } from '../fs/sleep.js';

/** Where Copilot keeps a session's transcript. */
export function transcriptPathFor(copilotHome: string, sessionId: string): string {
  return join(copilotHome, 'session-state', sessionId, 'events.jsonl');
}

/** A payload's transcript: its own absolute `transcriptPath` (agentStop has one), else where Copilot keeps it. */
export function transcriptOf(raw: Record<string, unknown>, copilotHome: string, sessionId: string): string {
  const given = raw.transcriptPath ?? raw.transcript_path;
  return typeof given === 'string' && given.startsWith('/') ? given : transcriptPathFor(copilotHome, sessionId);
}

/** Up to `max` bytes from `start` (negative: from the end), or null when unreadable. */
function readSlice(path: string, max: number, fromEnd: boolean): { text: string; whole: boolean } | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const len = Math.min(size, max);
    const start = fromEnd ? size - len : 0;
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const n = readSync(fd, buf, got, len - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.toString('utf8', 0, got), whole: len === size };
  } catch {
    return null;
  } finally {
    if (fd !== undefined)
      try {
        closeSync(fd);
      } catch {
        /* ignore */
      }
  }
}

function parseLine(line: string): { type?: unknown; agentId?: unknown; data?: Record<string, unknown> } | null {
  if (!line) return null;
  try {
    const v = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The model of the session: `data.selectedModel` of the first `session.start`
 * near the head; null when there is none. undefined when it may still come:
 * the transcript's folder is there (Copilot made it for the session) but the
 * file is missing or holds no whole line yet (it lags the sessionStart hook).
 */
export function readSessionModel(path: string): string | null | undefined {
  const slice = readSlice(path, 64 * 1024, false);
  if (!slice || !slice.text.includes('\n')) return existsSync(dirname(path)) ? undefined : null;
  const lines = slice.text.split('\n');
  if (!slice.whole) lines.pop(); // a cut last line
  for (const line of lines) {
    if (!line.includes('"session.start"')) continue;
    const ev = parseLine(line);
    if (ev?.type === 'session.start' && typeof ev.data?.selectedModel === 'string') return ev.data.selectedModel;
  }
  return null;
}

export type FinalMessage =
  /** The turn's final answer is on disk (text may be null when the turn ended without one). */
  | { state: 'found'; text: string | null }
  /** The transcript shows the turn still going: its final answer is not written yet. */
  | { state: 'pending' };

// Events that mean "the final answer of this turn comes after me".
const BEFORE_FINAL_TYPES = ['user.message', 'assistant.turn_start', 'tool.execution_start', 'tool.execution_complete'];
const BEFORE_FINAL = new Set(BEFORE_FINAL_TYPES);
const DECISIVE_MARKS = ['"assistant.message"', ...BEFORE_FINAL_TYPES.map((t) => `"${t}"`)];

/**
 * Decides from the transcript's last lines whether the turn's final assistant
 * message (an `assistant.message` with text and no tool requests, normally
 * followed by `assistant.turn_end`) is already written, among the session's
 * own lines (a subagent's, which carry its `agentId`, are passed over). Scanning back from the
 * end: that message means found; anything that must precede it (a tool call, a
 * tool result, a user message, a turn start) means pending.
 */
export function finalMessageFromLines(lines: readonly string[]): FinalMessage | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    // Cheap filter before parsing: only a few event types decide anything.
    if (!DECISIVE_MARKS.some((m) => line.includes(m))) continue;
    const ev = parseLine(line);
    // A subagent's lines (they name its agentId) are not the session's turn, which may end while one runs.
    if (!ev || typeof ev.type !== 'string' || ev.agentId !== undefined) continue;
    if (BEFORE_FINAL.has(ev.type)) return { state: 'pending' };
    if (ev.type !== 'assistant.message') continue;
    const data = ev.data ?? {};
    const requests = data.toolRequests;
    if (Array.isArray(requests) && requests.length > 0) return { state: 'pending' };
    if (typeof data.content === 'string' && data.content.trim()) return { state: 'found', text: data.content };
    // An empty message without tool requests decides nothing: keep looking.
  }
  return null;
}

/** The tail of a transcript, searched for the turn's final message; grows the tail once when undecided. */
export function readFinalMessage(path: string): FinalMessage {
  for (const max of [64 * 1024, 1024 * 1024]) {
    const slice = readSlice(path, max, true);
    if (!slice) return { state: 'pending' };
    const lines = slice.text.split('\n');
    if (!slice.whole) lines.shift(); // a cut first line
    const found = finalMessageFromLines(lines);
    if (found) return found;
    if (slice.whole) break;
  }
  return { state: 'pending' };
}

/**
 * readFinalMessage, polled for up to `waitMs` while the transcript says the
 * answer is not written yet, blocking this thread (for callers that must
 * answer synchronously). The text, or null when none came in time.
 */
export function waitForFinalMessage(path: string, waitMs: number, pollMs = 25): string | null {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const final = readFinalMessage(path);
    if (final.state === 'found') return final.text;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    sleepSync(Math.min(pollMs, left));
  }
}

/** How much of a session log's end is searched for a subagent's id. */
const AGENT_SEARCH_MAX = 4 * 1024 * 1024;

/** Whether a session's log names `agentId` as one of its subagents' (their lines carry `"agentId":"<id>"`), in its last 4 MiB. */
export function namesAgent(path: string, agentId: string): boolean {
  const slice = readSlice(path, AGENT_SEARCH_MAX, true);
  return slice !== null && slice.text.includes(`"agentId":${JSON.stringify(agentId)}`);
}
