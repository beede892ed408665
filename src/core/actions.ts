// Enabling and disabling one repository, as plans of small steps over the state
// that state.ts reads. Enable undoes its own steps when one fails, so a failure
// halfway leaves the repository as it was.
import { existsSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isPresent, readTextIfExists, removeIfEmpty, removeStaleTemps, within, writeAtomic, writeInPlace } from '../fs/atomic.js';
import type { RunContext } from './context.js';
import { forgetCreated, keepRecorded, readCreated, recordCreated, removeCreatedDirs, removeEmptyRecord } from './created.js';
import { HOOK_FILE_PATH, addExcludeBlock, blockRecords, removeExcludeBlock } from './exclude.js';
import { REPLACED_FILE } from './hook-file.js';
import { installGitHook, uninstallGitHook } from './git-hook.js';
import { allWorktrees, symlinkMessage, type RepoState, type WorktreeState } from './state.js';

export interface Outcome {
  path: string;
  /** What was changed, in words. Empty: nothing needed changing. */
  changes: string[];
  /** What was left alone, and why. Notes make the command's exit code 1. */
  notes: string[];
  /** Informational lines that do not make the exit code non-zero. */
  info: string[];
}

export interface EnableOptions { force?: boolean }
export interface DisableOptions { upstream?: boolean }

type Undo = () => void;

/** The folders of the hook file's path, outermost first. */
const HOOK_DIRS = ['.github', '.github/hooks'];

/** The folders writeHookFile would make in a worktree now. */
function missingHookDirs(root: string): string[] {
  return HOOK_DIRS.filter((rel) => !existsSync(join(root, rel)));
}

/**
 * Makes the folders `rels` (outermost first) under `base`, recorded in `gitDir`
 * before any is made: a process killed in between leaves a record of a folder
 * that is not there (disable forgets it), never a folder nobody recorded.
 * The undo removes those this run made (each only if empty) and forgets them all.
 */
function makeRecordedDirs(gitDir: string, base: string, rels: readonly string[], undo: Undo[]): void {
  if (!rels.length) return;
  const made: string[] = [];
  undo.push(() => {
    for (const rel of [...made].reverse()) removeIfEmpty(join(base, rel));
    forgetCreated(gitDir, [...rels]);
  });
  recordCreated(gitDir, ...rels);
  for (const rel of rels) {
    mkdirSync(join(base, rel));
    made.push(rel);
  }
}

/**
 * Removes the temporary files a killed fleet-git left where it writes in the
 * repository (writeAtomic's and the git hook's, see removeStaleTemps): one
 * readdir per folder, and none for a worktree without `.github/hooks`.
 */
function sweepTemps(s: RepoState, out: Outcome): void {
  const dirs = [s.repo.commonDir, within(s.repo.commonDir, 'info'), within(s.repo.commonDir, 'hooks')];
  for (const w of allWorktrees(s)) {
    if (w.link) continue;
    if (w.worktree.gitDir !== s.repo.commonDir) dirs.push(w.worktree.gitDir);
    const hooks = within(w.path, '.github/hooks');
    if (w.hookFile.kind !== 'absent' || isPresent(hooks)) dirs.push(hooks);
  }
  const removed = dirs.flatMap(removeStaleTemps);
  if (removed.length) out.changes.push(`removed ${removed.length === 1 ? 'a temporary file' : `${removed.length} temporary files`} an interrupted fleet-git had left: ${removed.join(', ')}`);
}

/** Writes the hook file, making and recording its folders (recordCreated skips those the exclude block records). */
function writeHookFile(w: WorktreeState, ctx: RunContext, undo: Undo[]): void {
  const file = join(w.path, HOOK_FILE_PATH);
  makeRecordedDirs(w.worktree.gitDir, w.path, missingHookDirs(w.path), undo);
  const before = readTextIfExists(file);
  writeAtomic(file, ctx.hookFile, undefined, before);
  undo.push(() => (before === null ? unlinkSync(file) : writeAtomic(file, before)));
}

function enableWorktree(w: WorktreeState, ctx: RunContext, opts: EnableOptions, out: Outcome, undo: Undo[]): void {
  const file = join(w.path, HOOK_FILE_PATH);
  if (w.link) {
    out.notes.push(symlinkMessage(w.link, w.path));
    return;
  }
  if (w.tracked) {
    out.notes.push(`left ${file} alone: it is tracked by git (fleet-git never changes a tracked file)`);
    return;
  }
  const kind = w.hookFile.kind;
  if (kind === 'foreign' || kind === 'upstream') {
    const whose = kind === 'upstream' ? "the upstream 'fleet hooks install'" : 'someone else';
    if (!opts.force) {
      out.notes.push(`left ${file} alone: it was written by ${whose}, not fleet-git (--force replaces it and keeps a copy that disable puts back)`);
      return;
    }
    const backup = join(w.worktree.gitDir, REPLACED_FILE);
    if (existsSync(backup)) throw new Error(`${backup} already holds a replaced hook file; move it away first`);
    renameSync(file, backup);
    undo.push(() => renameSync(backup, file));
    writeHookFile(w, ctx, undo);
    out.changes.push(`replaced ${file} (written by ${whose}); the old one is kept in ${backup}`);
    return;
  }
  if (kind === 'ours' && w.hookFile.current) return;
  writeHookFile(w, ctx, undo);
  out.changes.push(`${kind === 'ours' ? 'updated' : 'wrote'} ${file}`);
}

function enableExclude(s: RepoState, out: Outcome, undo: Undo[], created: readonly string[]): void {
  if (s.exclude) return;
  const common = s.repo.commonDir;
  const info = join(common, 'info');
  const file = join(info, 'exclude');
  if (!existsSync(info)) makeRecordedDirs(common, common, ['info'], undo);
  const before = readTextIfExists(file);
  if (before === null) {
    undo.push(() => forgetCreated(common, ['info/exclude']));
    recordCreated(common, 'info/exclude');
  }
  const after = addExcludeBlock(before, created);
  writeInPlace(file, after, before); // a failed append is cut back off (writeInPlace)
  // Undone in place too: a truncation back to the user's bytes needs no free space.
  undo.push(() => (before === null ? unlinkSync(file) : writeInPlace(file, before, after)));
  out.changes.push(`excluded /${HOOK_FILE_PATH} in ${file}`);
}

function enableGitHook(s: RepoState, ctx: RunContext, out: Outcome): void {
  const info = s.gitHook; // what stands in the hooks folder, as the state read it; null when fleet-git does not write there
  if (!info) {
    out.info.push(`worktree auto-provisioning is not active here: ${s.hooks.reason}; the hook file and exclude entry are in place`);
    return;
  }
  const did = installGitHook(s.repo, ctx.gitHook, info);
  if (did) out.changes.push(did);
}

/** Makes the repository and all its worktrees observed; repairs what is missing or stale. */
export function enableRepo(s: RepoState, ctx: RunContext, opts: EnableOptions = {}): Outcome {
  const out: Outcome = { path: s.path, changes: [], notes: [], info: [] };
  const undo: Undo[] = [];
  if (leftAloneForLink(s, out)) return out;
  sweepTemps(s, out);
  try {
    // The exclude block first (the hook file is never there unexcluded). When the
    // main worktree's git dir holds it, it records the folders that worktree's
    // hook file is about to need (see created.ts).
    const main = s.main;
    const inBlock = !s.exclude && main && main.worktree.gitDir === s.repo.commonDir && main.hookFile.kind === 'absent' && !main.link && !main.tracked ? missingHookDirs(main.path) : [];
    enableExclude(s, out, undo, inBlock);
    for (const w of allWorktrees(s)) enableWorktree(w, ctx, opts, out, undo);
    enableGitHook(s, ctx, out);
  } catch (e) {
    for (const u of undo.reverse()) {
      try { u(); } catch { /* keep undoing the rest */ }
    }
    throw e;
  }
  return out;
}

/** A symbolic link where fleet-git would write in the git dirs: the whole repository is left alone (a note: exit code 1). */
function leftAloneForLink(s: RepoState, out: Outcome): boolean {
  const link = s.gitLink;
  if (link) out.notes.push(symlinkMessage(link, s.path));
  return link !== null;
}

function disableWorktree(w: WorktreeState, opts: DisableOptions, out: Outcome): void {
  const file = join(w.path, HOOK_FILE_PATH);
  if (w.link) {
    out.notes.push(symlinkMessage(w.link, w.path));
    return;
  }
  const kind = w.hookFile.kind;
  const backup = join(w.worktree.gitDir, REPLACED_FILE);
  if (!w.tracked && (kind === 'ours' || (kind === 'upstream' && opts.upstream))) {
    unlinkSync(file);
    out.changes.push(`removed ${file}${kind === 'upstream' ? " (written by the upstream 'fleet hooks install')" : ''}`);
  } else if (kind === 'foreign' || (kind === 'upstream' && !opts.upstream) || (w.tracked && kind !== 'absent')) {
    if (!existsSync(backup)) out.info.push(`left ${file}: it was not written by fleet-git${w.tracked ? ' (and is tracked by git)' : ''}`);
  }
  if (existsSync(backup) && !existsSync(file)) {
    renameSync(backup, file);
    out.changes.push(`put back the hook file that fleet-git enable --force had replaced in ${w.path}`);
  }
  // The folders enable makes for the hook file; removeCreatedDirs leaves those it did not record.
  const gone = removeCreatedDirs(w.worktree.gitDir, w.path, ['.github/hooks', '.github']);
  if (gone.length) out.changes.push(`removed the empty folder${gone.length > 1 ? 's' : ''} ${gone.join(', ')} it had created in ${w.path}`);
}

function disableExclude(s: RepoState, out: Outcome): void {
  const common = s.repo.commonDir;
  const file = join(common, 'info', 'exclude');
  const before = readTextIfExists(file);
  const createdFile = readCreated(common).includes('info/exclude');
  if (before !== null) {
    const after = removeExcludeBlock(before);
    if (after !== before) {
      // Folders the block records that are still there (the user put something in
      // them) stay recorded, in the record file, for a later disable.
      const root = s.main && s.main.worktree.gitDir === common ? s.main.path : null;
      if (root) keepRecorded(common, blockRecords(before).filter((e) => existsSync(join(root, e))));
      if (after === '' && createdFile) unlinkSync(file);
      else writeInPlace(file, after, before);
      out.changes.push(`removed the fleet-git block from ${file}`);
    }
  }
  if (createdFile && !existsSync(file)) forgetCreated(common, ['info/exclude']);
  if (removeCreatedDirs(common, common, ['info']).length) out.changes.push(`removed the folder ${dirname(file)} it had created`);
}

/** Undoes exactly what enable did, in every worktree. */
export function disableRepo(s: RepoState, opts: DisableOptions = {}): Outcome {
  const out: Outcome = { path: s.path, changes: [], notes: [], info: [] };
  if (leftAloneForLink(s, out)) return out;
  sweepTemps(s, out);
  for (const w of allWorktrees(s)) disableWorktree(w, opts, out);
  disableExclude(s, out);
  const did = uninstallGitHook(s.repo);
  if (did) out.changes.push(did);
  for (const gitDir of new Set([s.repo.commonDir, ...allWorktrees(s).map((w) => w.worktree.gitDir)])) removeEmptyRecord(gitDir);
  return out;
}
