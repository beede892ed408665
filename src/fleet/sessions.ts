// The observer's session files: `sessions/<session_id>.json` beside its socket.
// Written on SessionStart, updated on Stop with `stoppedAt` and `lastMessage`;
// the observer reads them at start to restore its cards. A session id is
// untrusted input: one that is not a plain id never becomes a path. Writes are
// atomic (a temporary file renamed over the old one). Never throws.
import { mkdirSync, readFileSync } from 'node:fs';
import { writeAtomic } from '../fs/atomic.js';
import { join } from 'node:path';
import { isPlainId, type FleetEvent } from './event.js';

interface SessionRecord {
  sessionId: string;
  cwd: string | null;
  model: string | null;
  tool: 'copilot';
  term_program: string | null;
  iterm_session_id: string | null;
  pid: number | null;
  ppid: number | null;
  fleet_model_name: string | null;
  timestamp: number;
  stoppedAt?: number;
  lastMessage?: { text: string; time: number };
}

/** `<sessionsDir>/<id>.json`, or null when the id is not a plain id. */
function sessionFilePath(sessionsDir: string, sessionId: unknown): string | null {
  return isPlainId(sessionId) ? join(sessionsDir, `${sessionId}.json`) : null;
}

/** Writes the session file for a SessionStart event. */
export function writeSessionStart(sessionsDir: string, ev: FleetEvent, now = Date.now()): boolean {
  const file = sessionFilePath(sessionsDir, ev.session_id);
  if (!file) return false;
  const record: SessionRecord = {
    sessionId: ev.session_id,
    cwd: ev.cwd,
    model: ev.model,
    tool: 'copilot',
    term_program: ev.term_program,
    iterm_session_id: ev.iterm_session_id,
    pid: ev.pid,
    ppid: ev.ppid,
    fleet_model_name: ev.fleet_model_name ?? null,
    timestamp: now,
  };
  try {
    mkdirSync(sessionsDir, { recursive: true });
  } catch {
    return false;
  }
  return writeRecord(file, record);
}

/**
 * Marks a known session stopped: `stoppedAt`, and `lastMessage` when the turn
 * ended with a message. A session without a file (never started under the
 * observer's eyes) is left alone, as the observer ignores its Stop too.
 */
export function recordSessionStop(sessionsDir: string, sessionId: string, lastMessage: string | null, now = Date.now()): boolean {
  const file = sessionFilePath(sessionsDir, sessionId);
  const record = file && readRecord(file);
  if (!file || !record) return false;
  return writeStop(file, record, lastMessage, now);
}

/** A session file's record; null when it is missing or not an object. */
function readRecord(file: string): SessionRecord | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function writeStop(file: string, record: SessionRecord, lastMessage: string | null, now: number): boolean {
  record.stoppedAt = now;
  if (lastMessage) record.lastMessage = { text: lastMessage, time: now };
  return writeRecord(file, record);
}

/**
 * Puts `lastMessage` back when another writer replaced the file with a copy
 * read before it was there (two hooks of one session updating it at once).
 * Returns true when it had to.
 */
export function restoreSessionMessage(sessionsDir: string, sessionId: string, lastMessage: string): boolean {
  const file = sessionFilePath(sessionsDir, sessionId);
  const record = file && readRecord(file); // gone or unreadable: nothing of ours to restore
  if (!file || !record || record.lastMessage?.text === lastMessage) return false;
  return writeStop(file, record, lastMessage, Date.now());
}

/** Writes the record whole (writeAtomic's temporary name does not end in .json, which the observer loads, and deletes when unreadable); false when it could not. */
function writeRecord(file: string, record: SessionRecord): boolean {
  try {
    writeAtomic(file, JSON.stringify(record, null, 2), { mode: 0o600, current: null });
    return true;
  } catch {
    return false;
  }
}
