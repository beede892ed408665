// Folders (and the exclude file) that fleet-git created, recorded in the git dir
// they belong to, so that disable removes exactly those and nothing the user made.
// The record is the file fleet-git-created in that git dir (0.1.0's sh
// post-checkout hook appends to it too), and, for the folders enable makes in a main worktree
// in the same run as it adds the exclude block, comment lines in that block: one
// file fewer to create per repository (on some disks each costs a third of a
// millisecond, which adds up over thousands in enable --under).
// These functions plan: they read through the plan's view and add its steps.
import { join } from 'node:path';
import { blockRecords } from './exclude.js';
import { Planner, type View } from './plan.js';

export const CREATED_FILE = 'fleet-git-created';

function readRecordFile(view: View, gitDir: string): string[] {
  const text = view.read(join(gitDir, CREATED_FILE));
  return text === null ? [] : text.split('\n').filter(Boolean);
}

/** Everything recorded for the git dir: its record file, and the exclude block when the git dir holds it. */
export function readCreated(view: View, gitDir: string): string[] {
  const file = readRecordFile(view, gitDir);
  const block = blockRecords(view.read(join(gitDir, 'info', 'exclude')));
  return block.length ? [...new Set([...file, ...block])] : file;
}

function append(p: Planner, gitDir: string, entries: string[], known: string[]): void {
  const fresh = entries.filter((e) => !known.includes(e));
  if (!fresh.length) return;
  const path = join(gitDir, CREATED_FILE);
  const text = p.view.read(path) ?? '';
  const base = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  p.write(path, `${base}${fresh.join('\n')}\n`, `records what fleet-git created (${fresh.join(', ')}), so that disable removes it`, {
    kind: 'record',
    how: 'append',
  });
}

/** Records entries not yet recorded, in one append to the record file. */
export function recordCreated(p: Planner, gitDir: string, ...entries: string[]): void {
  append(p, gitDir, entries, readCreated(p.view, gitDir));
}

/** Puts entries in the record file unless there already: the exclude block's records, when the block goes and their folders stay. */
export function keepRecorded(p: Planner, gitDir: string, entries: string[]): void {
  append(p, gitDir, entries, readRecordFile(p.view, gitDir));
}

/** Forgets entries of the record file; removes it when nothing is left in it. (The block's records go with the block.) */
export function forgetCreated(p: Planner, gitDir: string, entries: string[]): void {
  const recorded = readRecordFile(p.view, gitDir);
  const left = recorded.filter((e) => !entries.includes(e));
  if (left.length === recorded.length) return;
  const path = join(gitDir, CREATED_FILE);
  const why = `forgets ${entries.join(', ')}, which fleet-git created and takes away`;
  if (left.length) p.write(path, `${left.join('\n')}\n`, why, { kind: 'record' });
  else p.removeFile(path, why, 'record');
}

/** Removes a record file with nothing in it: what a fleet-git killed between creating it and writing to it leaves. */
export function removeEmptyRecord(p: Planner, gitDir: string): void {
  const file = join(gitDir, CREATED_FILE);
  if (p.view.read(file)?.trim() === '') p.removeFile(file, 'an empty record file, left by a fleet-git killed as it made it', 'record');
}

/**
 * Removes the recorded folders under `base` that are empty by then, deepest
 * first, and forgets them (also those already gone). Folders that still hold
 * something stay, and stay recorded. Returns the entries taken away.
 */
export function removeCreatedDirs(p: Planner, gitDir: string, base: string, entries: string[]): string[] {
  const recorded = readCreated(p.view, gitDir);
  const removed: string[] = [];
  for (const e of [...entries].sort((a, b) => b.length - a.length)) {
    if (!recorded.includes(e)) continue;
    const path = join(base, e);
    const now = p.view.folder(path);
    if (now === 'kept') continue;
    if (now === 'empty') p.removeFolder(path, 'fleet-git created this folder, and it is empty');
    removed.push(e);
  }
  if (removed.length) forgetCreated(p, gitDir, removed);
  return removed;
}
