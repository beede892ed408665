// A lock file, as git's own `index.lock`: made with O_CREAT|O_EXCL (which also
// refuses a symbolic link in its place), holding the PID of the process that
// holds it, removed when done. A lock whose process is gone (killed) is stale
// and taken over; one held by a live process is waited for, a bounded time.
//
// A PID alone does not name a process for long: PIDs are reused, so a lock of
// a killed process whose PID another process got would never be stale. Where
// /proc exists (Linux), the holder also writes its start time (field 22 of
// /proc/PID/stat, clock ticks since boot) and the boot's id: a lock is stale
// when the process of that PID started at another time or in another boot.
// Elsewhere (macOS) the PID alone is written; a live process of that PID holds
// it unless it started after the lock file was written (`ps -o lstart=`, which
// macOS and Linux's procps both have, to the second): then the PID was reused,
// by a process that cannot be the holder. That also covers a lock of another
// boot (every process of this one started after it), so kern.boottime is not
// read. The post-checkout hook takes it through this code; the hooks fleet-git
// 0.1.0 wrote take it in sh, with the same text, and judge a PID alone by the
// PID, starting no `ps`.
//
// Making a file costs an inode (60 µs on this disk at rest, more when busy);
// a hard link to a file made once costs none: a run over thousands of
// repositories gives `linkFrom`, one file holding its PID, and each lock is a
// link to it (measured: 16 to 36 µs a lock and its removal, against 64 to 128
// for a file made each time). Where the link cannot be made (another file
// system), the lock is a file of its own.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, linkSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { isCode } from '../errors.js';
import { isAlive, processStart } from './process.js';
import { sleepSync } from './sleep.js';

/** The lock is held by another live process past the wait: one line, what to do. */
export class LockBusyError extends Error {}

export interface LockOptions {
  /** How long to wait for a live holder, in milliseconds. */
  waitMs: number;
  /** A file holding this process's PID, to hard-link as the lock (see makeLinkSource). */
  linkFrom?: string | null;
}

/** This boot's id (/proc/sys/kernel/random/boot_id), or null where there is none; read once. */
let bootId: string | null | undefined;
function thisBoot(): string | null {
  if (bootId === undefined) bootId = readProc('/proc/sys/kernel/random/boot_id')?.trim() || null;
  return bootId;
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

let holder: string | undefined;
/** What a lock of this process holds: its PID, then (where /proc tells) `start TICKS BOOT-ID`. */
export function holderText(): string {
  if (holder === undefined) {
    const start = processStart(process.pid);
    const boot = thisBoot();
    holder = `${process.pid}\n${start !== null && boot !== null ? `start ${start} ${boot}\n` : ''}`;
  }
  return holder;
}

/**
 * When process `pid` started, in ms since the epoch, cut to the second, from
 * `ps -o lstart= -p PID` (in the C locale, local time as node reads it); null
 * where ps cannot tell (none, no such process, an answer not understood).
 */
export function processStartedAt(pid: number): number | null {
  const r = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 2000,
  });
  const ms = r.status === 0 ? Date.parse(r.stdout.trim()) : Number.NaN;
  return Number.isFinite(ms) ? ms : null;
}

/** One judgment by ps per live PID and lock time: a lock waited for is judged again every few ms. */
const reusedSeen = new Map<string, boolean>();

/**
 * Whether the process that wrote `text` (holderText) is alive: its PID is, and,
 * when the text says when it started, the process of that PID started then, in
 * this boot. For a PID alone, with `writtenMs` (the lock file's time): not
 * when the process of that PID started after it (processStartedAt). null: the
 * text names no PID.
 */
export function holderAlive(text: string, writtenMs?: number): boolean | null {
  const m = /^(\d+)\n(?:start (\d+) (\S+)\n)?/.exec(text);
  if (!m) return null;
  const pid = Number(m[1]);
  if (!isAlive(pid)) return false;
  if (m[2] === undefined) {
    // A PID alone (macOS, where 0.1.0's post-checkout hook also writes one).
    if (writtenMs === undefined) return true;
    const key = `${pid} ${writtenMs}`;
    let reused = reusedSeen.get(key);
    if (reused === undefined) {
      const started = processStartedAt(pid);
      reused = started !== null && started > writtenMs;
      reusedSeen.set(key, reused);
    }
    return !reused;
  }
  const boot = thisBoot();
  if (boot !== null && boot !== m[3]) return false; // written in another boot: every process of that one is gone
  const start = processStart(pid);
  return start === null || start === m[2]; // unreadable (another user's, say): alive, as kill(0) said
}

const CREATE = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;

/** A lock's content is written just after it is made: an empty one younger than this is being written. */
const FRESH_MS = 5000;

/** Makes the file `path` with `text`, failing with EEXIST when something (a file, a link) is there. */
function createExclusive(path: string, text: string): void {
  const fd = openSync(path, CREATE, 0o644);
  try {
    const b = Buffer.from(text);
    if (writeSync(fd, b) !== b.length) throw new Error(`could not write ${path} whole`);
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      /* gone */
    }
    throw e;
  }
  closeSync(fd);
}

/** Takes the lock if it is free: true, or false when something is in its place. */
function tryTake(path: string, linkFrom: string | null | undefined): boolean {
  try {
    if (linkFrom) {
      try {
        linkSync(linkFrom, path);
        return true;
      } catch (e) {
        if (isCode(e, 'EEXIST')) return false;
        // Another file system, or links refused: a file of its own.
        if (!isCode(e, 'EXDEV') && !isCode(e, 'EPERM') && !isCode(e, 'EMLINK')) throw e;
      }
    }
    createExclusive(path, holderText());
    return true;
  } catch (e) {
    if (isCode(e, 'EEXIST')) return false;
    throw e;
  }
}

/** Whether the lock at `path` is stale: its process is gone (holderAlive). null: nothing there any more. */
function staleness(path: string): { stale: boolean; pid: number | null } | null {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
  if (!st.isFile())
    throw new Error(
      `${path} is not a lock file fleet-git made (${st.isSymbolicLink() ? 'a symbolic link' : 'not a file'}): remove it, then try again`,
    );
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
  const alive = holderAlive(text, st.mtimeMs);
  if (alive === null) return { stale: Date.now() - st.mtimeMs > FRESH_MS, pid: null };
  return { stale: !alive, pid: Number(/^\d+/.exec(text)![0]) };
}

/**
 * Removes a stale lock. Only one process does so at a time, under `path.stale`
 * (made as a lock is), and only after reading it again under that: another one
 * may have removed it and taken the lock meanwhile. Returns whether it removed it.
 */
function takeOverStale(path: string): boolean {
  const guard = `${path}.stale`;
  if (!tryTake(guard, null)) {
    const g = staleness(guard);
    if (g?.stale) {
      try {
        unlinkSync(guard);
      } catch {
        /* another one did */
      }
    } else sleepSync(1); // another one is taking it over
    return false;
  }
  try {
    if (!staleness(path)?.stale) return false;
    unlinkSync(path);
    return true;
  } finally {
    unlinkSync(guard);
  }
}

/**
 * What acquireLock returns: the function that releases the lock, and whether
 * this process took it over from a killed one (which may have left other
 * things half done where it held the lock: temporary files).
 */
export type Release = (() => void) & { tookOver: boolean };

/**
 * Takes the lock at `path`, waiting while another live process holds it, and
 * returns the function that releases it. Throws LockBusyError after the wait.
 */
export function acquireLock(path: string, opts: LockOptions): Release {
  const deadline = Date.now() + opts.waitMs;
  let nap = 1;
  let tookOver = false;
  for (;;) {
    if (tryTake(path, opts.linkFrom)) {
      const release = () => {
        try {
          unlinkSync(path);
        } catch (e) {
          if (!isCode(e, 'ENOENT')) throw e;
        }
      };
      return Object.assign(release, { tookOver });
    }
    const s = staleness(path);
    if (s === null) continue; // released meanwhile
    if (s.stale) {
      tookOver = takeOverStale(path) || tookOver;
      continue;
    }
    if (Date.now() >= deadline) {
      throw new LockBusyError(
        `${path} is held by ${s.pid === null ? 'another process' : `process ${s.pid}`}, another fleet-git working in this repository: try again once it is done (if no fleet-git is running, remove that file)`,
      );
    }
    sleepSync(nap);
    nap = Math.min(nap * 2, 50);
  }
}

/** Makes the file a run's locks are hard links to (see linkFrom): its PID, in `path`. */
export function makeLinkSource(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* none left by a process of the same PID */
  }
  createExclusive(path, holderText());
}
