// The record of every repository fleet-git enabled, so that `uninstall` and
// `scan` with no folder find them wherever they are (as git's
// maintenance.repo list is for `git for-each-repo`). It lives in the data
// folder, whose scripts the repositories' hooks run: one small file per
// repository in <data>/repos/, named by a hash of its common git dir and
// holding that dir and the repository's path (JSON). Each is written whole
// (a temporary file, then a rename) or removed, by the process that holds the
// repository's lock (applyAction, repo-lock.ts): two fleet-git processes never
// read, change and write back one shared list, so no entry is ever lost.
//
// An entry is never trusted alone: the repository it names is read again, and
// it is acted on only when it is still there, with the same common dir (see
// checkEntry). A data folder made by fleet-git 0.2.0 or older has no record:
// it is begun by the first enable since, marked partial (see RECORD_PARTIAL).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { removeStaleTemps, writeAtomic } from '../../fs/atomic.js';
import { isPresent, lstatIfPresent, physical, readText } from '../../fs/read.js';
import { RECORD_DIR } from '../../fs/data-dir.js';
import { CLIENT_FILE, KIT_DIR, type UserPaths } from '../../paths.js';
import { locateRepo, type Repo } from '../../git/repo.js';

/** In the record's folder: it was begun in a data folder that an older fleet-git (0.2.0 or before, which kept no record) had used. */
export const RECORD_PARTIAL = 'begun-after-upgrade';

export interface RecordEntry {
  /** The repository's path (its main worktree's, when it has one) when it was recorded. */
  path: string;
  /** Its common git dir: what names the entry, and what must still be there for it to be acted on. */
  commonDir: string;
}

export function recordDir(u: UserPaths): string {
  return join(u.dataDir, RECORD_DIR);
}

function entryFile(u: UserPaths, commonDir: string): string {
  return join(recordDir(u), createHash('sha256').update(commonDir).digest('hex').slice(0, 32));
}

function entryText(e: RecordEntry): string {
  return `${JSON.stringify({ path: e.path, commonDir: e.commonDir })}\n`;
}

/** Whether a data folder without a record folder was used by a fleet-git that kept none: it holds a hook client or a kit. */
function usedBefore(u: UserPaths): boolean {
  return isPresent(join(u.dataDir, CLIENT_FILE)) || isPresent(join(u.dataDir, KIT_DIR));
}

const swept = new WeakSet<UserPaths>();
/**
 * Removes, once a run (its UserPaths), the temporary files a fleet-git killed
 * as it wrote an entry left in the record's folder; the first write or
 * removal of an entry does it, or a bulk run before its helper threads start.
 * Only in the main thread: the helper threads share the process's PID, so a
 * helper would take another's temporary file, still being written, for its
 * own leftover.
 */
export function sweepRecord(u: UserPaths): void {
  if (!isMainThread || swept.has(u)) return;
  swept.add(u);
  removeStaleTemps(recordDir(u));
}

/**
 * Adds the repository to the record (nothing when its entry is already as
 * written). The record's folder is made when missing (known by the write
 * failing: one call fewer a repository in a bulk run); in a data folder an
 * older fleet-git used, it is marked partial first.
 */
export function recordRepo(u: UserPaths, e: RecordEntry): boolean {
  const file = entryFile(u, e.commonDir);
  const text = entryText(e);
  sweepRecord(u);
  const current = readText(file);
  if (current === text) return false;
  try {
    return writeAtomic(file, text, { current });
  } catch (err) {
    const dir = recordDir(u);
    if (isPresent(dir)) throw err;
    const partial = usedBefore(u);
    mkdirSync(dir, { recursive: true });
    if (partial) writeAtomic(join(dir, RECORD_PARTIAL), `${new Date().toISOString()}\n`);
    return writeAtomic(file, text, { current });
  }
}

/** Whether the record has this entry as it is (a repository moved since it was recorded has another common dir). */
export function isRecorded(u: UserPaths, e: RecordEntry): boolean {
  return readText(entryFile(u, e.commonDir)) === entryText(e);
}

/** Takes the repository out of the record (nothing when it is not in it). */
export function forgetRepo(u: UserPaths, commonDir: string): void {
  sweepRecord(u);
  try {
    unlinkSync(entryFile(u, commonDir));
  } catch {
    /* not recorded, or the data folder cannot be written: checkEntry tells such an entry apart later */
  }
}

export interface RecordRead {
  entries: RecordEntry[];
  /** The record does not know every repository fleet-git enabled: those enabled by fleet-git 0.2.0 or older, before it was begun. */
  partial: boolean;
}

/** Every entry of the record, by path; entries that cannot be read or parsed are left out. */
export function readRecord(u: UserPaths): RecordRead {
  const dir = recordDir(u);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { entries: [], partial: usedBefore(u) };
  }
  const entries: RecordEntry[] = [];
  for (const name of names) {
    if (!/^[0-9a-f]{32}$/.test(name)) continue;
    try {
      const e = JSON.parse(readText(join(dir, name)) ?? '') as RecordEntry;
      if (typeof e.path === 'string' && typeof e.commonDir === 'string') entries.push({ path: e.path, commonDir: e.commonDir });
    } catch {
      /* unreadable, or being written: left out */
    }
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, partial: names.includes(RECORD_PARTIAL) };
}

/** A recorded repository as it is now: there (its Repo), or gone with the reason (the entry is then pruned, never followed). */
export type Checked = { entry: RecordEntry; repo: Repo } | { entry: RecordEntry; gone: string };

/**
 * Whether the recorded repository is still where it was: its common git dir
 * there, and the repository at its path still the one of that common dir.
 * Anything else is gone: moved or deleted since, or another repository (or
 * none) at that path now, which fleet-git leaves alone.
 */
export function checkEntry(entry: RecordEntry): Checked {
  if (lstatIfPresent(entry.commonDir) === undefined)
    return { entry, gone: `gone: ${entry.commonDir} is not there any more (moved or deleted since fleet-git enabled it)` };
  let repo: Repo;
  try {
    repo = locateRepo(entry.path);
  } catch {
    return { entry, gone: `gone: ${entry.path} is no longer a repository (moved or deleted since fleet-git enabled it)` };
  }
  if (physical(repo.commonDir) !== physical(entry.commonDir))
    return { entry, gone: `gone: ${entry.path} is another repository now (git dir ${repo.commonDir}), which fleet-git leaves alone` };
  return { entry, repo };
}

/** Takes gone entries out of the record (one that cannot be removed, in a data folder that cannot be written, stays). */
export function pruneEntries(u: UserPaths, gone: RecordEntry[]): void {
  for (const e of gone) forgetRepo(u, e.commonDir);
}

/** What the commands that write the data folder do once a run (ensureUserFiles): forget every recorded repository that is gone (checkEntry; scan only reports them). */
export function forgetGone(u: UserPaths): void {
  sweepRecord(u);
  pruneEntries(
    u,
    readRecord(u)
      .entries.map(checkEntry)
      .flatMap((c) => ('gone' in c ? [c.entry] : [])),
  );
}
