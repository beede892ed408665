// Folders (and the exclude file) that fleet-git created, recorded in the git dir
// they belong to, so that disable removes exactly those and nothing the user made.
// The post-checkout hook appends to the same file.
import { appendFileSync, rmdirSync, unlinkSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readTextIfExists, writeAtomic } from '../fs/atomic.js';

export const CREATED_FILE = 'fleet-git-created';

export function readCreated(gitDir: string): string[] {
  const text = readTextIfExists(join(gitDir, CREATED_FILE));
  return text === null ? [] : text.split('\n').filter(Boolean);
}

/** Records entries not yet recorded, in one append. */
export function recordCreated(gitDir: string, ...entries: string[]): void {
  const known = readCreated(gitDir);
  const fresh = entries.filter((e) => !known.includes(e));
  if (fresh.length) appendFileSync(join(gitDir, CREATED_FILE), `${fresh.join('\n')}\n`);
}

/** Forgets entries; removes the record file when nothing is left in it. */
export function forgetCreated(gitDir: string, entries: string[]): void {
  const left = readCreated(gitDir).filter((e) => !entries.includes(e));
  if (left.length) writeAtomic(join(gitDir, CREATED_FILE), `${left.join('\n')}\n`);
  else try { unlinkSync(join(gitDir, CREATED_FILE)); } catch { /* none */ }
}

/**
 * Removes the recorded folders under `base` that are empty now, deepest first,
 * and forgets them. Folders that still hold something stay (and stay recorded).
 */
export function removeCreatedDirs(gitDir: string, base: string, entries: string[]): string[] {
  const recorded = readCreated(gitDir);
  const removed: string[] = [];
  for (const e of [...entries].sort((a, b) => b.length - a.length)) {
    if (!recorded.includes(e)) continue;
    const p = join(base, e);
    try {
      if (readdirSync(p).length === 0) {
        rmdirSync(p);
        removed.push(e);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') removed.push(e);
    }
  }
  if (removed.length) forgetCreated(gitDir, removed);
  return removed;
}
