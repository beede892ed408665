// Folders (and the exclude file) that fleet-git created, recorded in the git dir
// they belong to, so that disable removes exactly those and nothing the user made.
// The record is the file fleet-git-created in that git dir (the post-checkout
// hook appends to it too), and, for the folders enable makes in a main worktree
// in the same run as it adds the exclude block, comment lines in that block: one
// file fewer to create per repository (on some disks each costs a third of a
// millisecond, which adds up over thousands in enable --under).
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { appendWhole, readTextIfExists, removeIfEmpty, writeAtomic } from '../fs/atomic.js';
import { blockRecords } from './exclude.js';

export const CREATED_FILE = 'fleet-git-created';

function readRecordFile(gitDir: string): string[] {
  const text = readTextIfExists(join(gitDir, CREATED_FILE));
  return text === null ? [] : text.split('\n').filter(Boolean);
}

/** Everything recorded for the git dir: its record file, and the exclude block when the git dir holds it. */
export function readCreated(gitDir: string): string[] {
  const file = readRecordFile(gitDir);
  const block = blockRecords(readTextIfExists(join(gitDir, 'info', 'exclude')));
  return block.length ? [...new Set([...file, ...block])] : file;
}

function append(gitDir: string, entries: string[], known: string[]): void {
  const fresh = entries.filter((e) => !known.includes(e));
  if (fresh.length) appendWhole(join(gitDir, CREATED_FILE), `${fresh.join('\n')}\n`);
}

/** Records entries not yet recorded, in one append to the record file. */
export function recordCreated(gitDir: string, ...entries: string[]): void {
  append(gitDir, entries, readCreated(gitDir));
}

/** Puts entries in the record file unless there already: the exclude block's records, when the block goes and their folders stay. */
export function keepRecorded(gitDir: string, entries: string[]): void {
  append(gitDir, entries, readRecordFile(gitDir));
}

/** Forgets entries of the record file; removes it when nothing is left in it. (The block's records go with the block.) */
export function forgetCreated(gitDir: string, entries: string[]): void {
  const recorded = readRecordFile(gitDir);
  const left = recorded.filter((e) => !entries.includes(e));
  if (left.length === recorded.length) return;
  if (left.length) writeAtomic(join(gitDir, CREATED_FILE), `${left.join('\n')}\n`);
  else try { unlinkSync(join(gitDir, CREATED_FILE)); } catch { /* none */ }
}

/** Removes a record file with nothing in it: what a fleet-git killed between creating it and writing to it leaves. */
export function removeEmptyRecord(gitDir: string): void {
  const file = join(gitDir, CREATED_FILE);
  if (readTextIfExists(file)?.trim() === '') try { unlinkSync(file); } catch { /* gone */ }
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
    if (removeIfEmpty(join(base, e)) !== 'kept') removed.push(e);
  }
  if (removed.length) forgetCreated(gitDir, removed);
  return removed;
}
