// Enabling and disabling one repository: planEnable and planDisable read the
// state that state.ts read (and the files it points to) and return the plan
// (plan.ts), writing nothing; applyPlan carries it out, undoing its own steps
// when one fails, so a failure halfway leaves the repository as it was.
import { join } from 'node:path';
import type { RunContext } from './context.js';
import { forgetCreated, keepRecorded, readCreated, recordCreated, removeCreatedDirs, removeEmptyRecord } from './created.js';
import { staleTemps } from '../../fs/atomic.js';
import { isPresent, within } from '../../fs/read.js';
import { addExcludeBlock, blockRecords, removeExcludeBlock } from './exclude.js';
import { HOOK_FILE_PATH, REPLACED_FILE } from './hook-file.js';
import { planGitHookInstall, planGitHookRemoval } from './git-hook.js';
import { REPO_HOOK_ENTRY, withConfigHook, withoutConfigHook } from './config-hook.js';
import { Planner, type Plan } from './plan.js';
import { allWorktrees, symlinkMessage, type RepoState, type WorktreeState } from './state.js';
import { LOCK_FILE } from '../../paths.js';

export type { Outcome, Plan } from './plan.js';

export interface EnableOptions {
  force?: boolean;
  /** A fleet-git was killed here (its lock was taken over): see sweepTemps. Default: whether a lock file is there (a plan made without the lock). */
  killed?: boolean | undefined;
  /**
   * Only the worktree at this root (the post-checkout hook's, core/setup/checkout-hook.ts):
   * its hook file and the exclude block, as enable plans them; no other worktree, no git hook.
   */
  worktree?: string;
}
export interface DisableOptions {
  upstream?: boolean;
  /** As EnableOptions.killed. */
  killed?: boolean | undefined;
}

/** What enable writes: the hook file and the git hook, as this fleet-git renders them. */
export type Rendered = Pick<RunContext, 'hookFile' | 'gitHook' | 'repoHook' | 'configHook' | 'configHooks'>;

/** The folders of the hook file's path, outermost first. */
const HOOK_DIRS = ['.github', '.github/hooks'];

/**
 * Makes the folders `rels` (outermost first) under `base`, recorded in `gitDir`
 * (in one append) before any is made: a process killed in between leaves a
 * record of a folder that is not there (disable forgets it), never a folder
 * nobody recorded. recordCreated skips those the exclude block records.
 */
function makeRecordedDirs(p: Planner, gitDir: string, base: string, rels: readonly string[], why: string): void {
  if (!rels.length) return;
  recordCreated(p, gitDir, ...rels);
  for (const rel of rels) p.makeFolder(join(base, rel), why);
}

/**
 * Removes the temporary files a killed fleet-git left where it writes in the
 * repository (writeAtomic's and the git hook's, see staleTemps). fleet-git
 * makes them only while it holds the repository's lock, so one killed with a
 * temporary file left also left its lock: the folders are listed when the lock
 * was taken over from a killed fleet-git (`killed`), and otherwise only those
 * the plan lists anyway (`alsoListed`: the folders disable may take away,
 * which the git hook writes in too), the listing shared with the plan's view.
 * A run over thousands of repositories lists no folder for nothing.
 */
function sweepTemps(p: Planner, s: RepoState, killed: boolean | undefined, alsoListed: readonly string[] = []): void {
  const dirs: string[] = [];
  if (killed ?? isPresent(within(s.repo.commonDir, LOCK_FILE))) {
    dirs.push(s.repo.commonDir, within(s.repo.commonDir, 'info'), within(s.repo.commonDir, 'hooks'));
    for (const w of allWorktrees(s)) {
      if (w.link) continue;
      if (w.worktree.gitDir !== s.repo.commonDir) dirs.push(w.worktree.gitDir);
      const hooks = within(w.path, '.github/hooks');
      if (w.hookFile.kind !== 'absent' || isPresent(hooks)) dirs.push(hooks);
    }
  } else dirs.push(...alsoListed);
  const stale = dirs.flatMap((d) => {
    const names = p.view.list(d);
    return names ? staleTemps(d, names) : [];
  });
  if (!stale.length) return;
  for (const t of stale) p.removeFile(t, 'a temporary file of a fleet-git that was killed');
  const what = `${stale.length === 1 ? 'a temporary file' : `${stale.length} temporary files`} an interrupted fleet-git had left: ${stale.join(', ')}`;
  p.change(`removed ${what}`, `remove ${what}`);
}

/** Plans the hook file, making and recording its folders. */
function planHookFile(p: Planner, w: WorktreeState, hookFile: string): void {
  makeRecordedDirs(
    p,
    w.worktree.gitDir,
    w.path,
    HOOK_DIRS.filter((rel) => !p.view.exists(join(w.path, rel))),
    'holds the Copilot hook file',
  );
  p.write(join(w.path, HOOK_FILE_PATH), hookFile, 'the Copilot hook file that reports each session to the fleet observer');
}

/** Why enable leaves a worktree's hook file alone: tracked by git, or written by another (without --force); null when it does not. */
function hookFileLeftAlone(w: WorktreeState, opts: EnableOptions): string | null {
  const file = join(w.path, HOOK_FILE_PATH);
  if (w.tracked) return `left ${file} alone: it is tracked by git (fleet-git never changes a tracked file)`;
  const kind = w.hookFile.kind;
  if ((kind === 'foreign' || kind === 'upstream') && !opts.force) {
    const whose = kind === 'upstream' ? "the upstream 'fleet hooks install'" : 'someone else';
    return `left ${file} alone: it was written by ${whose}, not fleet-git (--force replaces it and keeps a copy that disable puts back)`;
  }
  return null;
}

/** A worktree's hook file, where none is left alone (planEnable stops before when one is): another's is replaced only under --force. */
function planEnableWorktree(p: Planner, w: WorktreeState, r: Rendered): void {
  const file = join(w.path, HOOK_FILE_PATH);
  if (w.link) {
    p.plan.notes.push(symlinkMessage(w.link, w.path));
    return;
  }
  const kind = w.hookFile.kind;
  if (kind === 'foreign' || kind === 'upstream') {
    const whose = kind === 'upstream' ? "the upstream 'fleet hooks install'" : 'someone else';
    const backup = join(w.worktree.gitDir, REPLACED_FILE);
    if (p.view.exists(backup)) throw new Error(`${backup} already holds a replaced hook file; move it away first`);
    p.rename(file, backup, `the hook file --force replaces, kept for disable to put back`);
    planHookFile(p, w, r.hookFile);
    p.change(
      `replaced ${file} (written by ${whose}); the old one is kept in ${backup}`,
      `replace ${file} (written by ${whose}), keeping the old one in ${backup}`,
    );
    return;
  }
  if (kind === 'ours' && w.hookFile.current) return;
  planHookFile(p, w, r.hookFile);
  p.change(`${kind === 'ours' ? 'updated' : 'wrote'} ${file}`, `${kind === 'ours' ? 'update' : 'write'} ${file}`);
}

function planEnableExclude(p: Planner, s: RepoState, created: readonly string[]): void {
  if (s.exclude) return;
  const common = s.repo.commonDir;
  const info = join(common, 'info');
  const file = join(info, 'exclude');
  if (!p.view.exists(info)) makeRecordedDirs(p, common, common, ['info'], 'holds info/exclude');
  const before = p.view.read(file);
  if (before === null) recordCreated(p, common, 'info/exclude');
  p.write(file, addExcludeBlock(before, created), `keeps /${HOOK_FILE_PATH} out of commits`, { how: 'in-place' });
  p.change(`excluded /${HOOK_FILE_PATH} in ${file}`, `exclude /${HOOK_FILE_PATH} in ${file}`);
}

/**
 * A plan's start: its planner, seeing what the state read (the look for
 * symbolic links first: what it finds missing is read no more), or null when a
 * symbolic link where fleet-git would write in the git dirs leaves the whole
 * repository alone (a note: exit code 1).
 */
function planner(s: RepoState): { p: Planner; link: boolean } {
  const link = s.gitLink;
  const p = new Planner(s.path, s.texts);
  if (link) p.plan.notes.push(symlinkMessage(link, s.path));
  return { p, link: link !== null };
}

/**
 * The folders a new exclude block records as made by fleet-git (see created.ts):
 * those the hook file of the main worktree `main` is about to need, when its
 * git dir holds the block and the hook file is still to be written there.
 */
function blockDirs(p: Planner, s: RepoState, main: WorktreeState): string[] {
  const writes = !s.exclude && main.worktree.gitDir === s.repo.commonDir && main.hookFile.kind === 'absent' && !main.link && !main.tracked;
  return writes ? HOOK_DIRS.filter((rel) => !p.view.exists(join(main.path, rel))) : [];
}

/** What enable does to the repository and all its worktrees: repairs what is missing or stale. Reads, never writes. */
export function planEnable(s: RepoState, r: Rendered, opts: EnableOptions = {}): Plan {
  const { p, link } = planner(s);
  if (link) return p.plan;
  sweepTemps(p, s, opts.killed);
  const worktrees = opts.worktree === undefined ? allWorktrees(s) : allWorktrees(s).filter((w) => w.path === opts.worktree);
  if (opts.worktree !== undefined && !worktrees.length) p.plan.notes.push(`left ${opts.worktree} alone: it is not a worktree of ${s.path}`);
  // A hook file left alone leaves the whole repository alone: an exclude line
  // would hide the user's own file from git status and git add, and a git hook
  // would be half of an enable. What is already there stays as it is.
  const leftAlone = worktrees.flatMap((w) => (w.link ? [] : (hookFileLeftAlone(w, opts) ?? [])));
  if (leftAlone.length) {
    p.plan.notes.push(...leftAlone);
    p.plan.info.push('so nothing else was changed here: no exclude line, no git hook (git status and git add see that file as before)');
    return p.plan;
  }
  if (!worktrees.length) return p.plan;
  // The exclude block first (the hook file is never there unexcluded).
  planEnableExclude(p, s, s.main && worktrees.includes(s.main) ? blockDirs(p, s, s.main) : []);
  for (const w of worktrees) planEnableWorktree(p, w, r);
  if (opts.worktree !== undefined) return p.plan;
  if (r.configHooks) {
    // git runs hooks named in config: the repository's config provisions new worktrees, under any core.hooksPath;
    // fleet-git's hook in the hooks folder (an older git's way) would run as well, so it goes.
    planConfigHookEntry(p, s, r.configHook);
    planGitHookRemoval(p, s.repo);
    return p.plan;
  }
  const info = s.gitHook; // what stands in the hooks folder, as the state read it; null when fleet-git does not write there
  if (info) planGitHookInstall(p, s.repo, r.gitHook, info);
  else if (s.manager?.provides) {
    if (!s.manager.followed) p.plan.info.push(s.manager.text);
  } else
    p.plan.info.push(
      `worktree auto-provisioning is not active here: ${s.hooks.reason}; the hook file and exclude entry are in place${s.manager ? `; ${s.manager.text}` : ''}`,
    );
  return p.plan;
}

/** Plans fleet-git's hook entry in the repository's own config (config-hook.ts): added at the end, or made current. */
function planConfigHookEntry(p: Planner, s: RepoState, command: string): void {
  const file = within(s.repo.commonDir, 'config');
  const before = p.view.read(file);
  if (before === null) {
    p.plan.notes.push(`left new worktrees of ${s.path} unprovisioned: ${file} cannot be read (git needs it: check its permissions)`);
    return;
  }
  const after = withConfigHook(before, REPO_HOOK_ENTRY, command);
  if (after === before) return;
  p.write(file, after, "makes git (2.54 and later) run fleet-git's post-checkout hook in each new worktree", { how: 'in-place' });
  const present = withoutConfigHook(before, REPO_HOOK_ENTRY) !== before;
  p.change(
    `${present ? 'updated' : 'added'} the hook.${REPO_HOOK_ENTRY} entry in ${file}, which gives each new worktree the hook file`,
    `${present ? 'update' : 'add'} the hook.${REPO_HOOK_ENTRY} entry in ${file}, which gives each new worktree the hook file`,
  );
}

/** Plans taking fleet-git's hook entry out of the repository's own config, every other byte kept. */
function planConfigHookRemoval(p: Planner, s: RepoState): void {
  if (!s.configHook.present) return; // read from the text git's config reader read (the planner then has it too)
  const file = within(s.repo.commonDir, 'config');
  const before = p.view.read(file);
  if (before === null) return;
  const after = withoutConfigHook(before, REPO_HOOK_ENTRY);
  if (after === before) return;
  p.write(file, after, 'its hook entry taken out, the rest kept byte for byte', { how: 'in-place' });
  p.change(`removed the hook.${REPO_HOOK_ENTRY} entry from ${file}`, `remove the hook.${REPO_HOOK_ENTRY} entry from ${file}`);
}

/**
 * What installHooks does for another hook client (fleet's own): the hook file
 * `text` in the worktree at `root`, kept out of commits by the exclude block
 * as enable keeps its own, its folders recorded as enable records them (so
 * disable and remove take them out). Over nothing or a file fleet or
 * fleet-git wrote; no git hook (a new worktree gets no such file). A link, a
 * tracked file or someone else's file is a note, and nothing is planned.
 */
export function planClientHookFile(s: RepoState, root: string, text: string, killed?: boolean): Plan {
  const { p, link } = planner(s);
  if (link) return p.plan;
  const w = allWorktrees(s).find((x) => x.path === root);
  const file = join(root, HOOK_FILE_PATH);
  if (!w) p.plan.notes.push(`left ${file} alone: ${root} is not a worktree of ${s.path}`);
  else if (w.link) p.plan.notes.push(symlinkMessage(w.link, w.path));
  else if (w.tracked) p.plan.notes.push(`left ${file} alone: it is tracked by git (fleet-git never changes a tracked file)`);
  else if (w.hookFile.kind === 'foreign') p.plan.notes.push(`left ${file} alone: it was written by someone else, not fleet or fleet-git`);
  if (!w || p.plan.notes.length) return p.plan;
  sweepTemps(p, s, killed);
  planEnableExclude(p, s, w === s.main ? blockDirs(p, s, w) : []);
  if (p.view.read(file) === text) return p.plan;
  planHookFile(p, w, text);
  p.change(`wrote ${file}`, `write ${file}`);
  return p.plan;
}

function planDisableWorktree(p: Planner, w: WorktreeState, opts: DisableOptions): void {
  const file = join(w.path, HOOK_FILE_PATH);
  if (w.link) {
    p.plan.notes.push(symlinkMessage(w.link, w.path));
    return;
  }
  const kind = w.hookFile.kind;
  const backup = join(w.worktree.gitDir, REPLACED_FILE);
  if (!w.tracked && (kind === 'ours' || (kind === 'upstream' && opts.upstream))) {
    p.removeFile(file, kind === 'ours' ? "fleet-git's hook file" : "the upstream 'fleet hooks install' hook file");
    const upstream = kind === 'upstream' ? " (written by the upstream 'fleet hooks install')" : '';
    p.change(`removed ${file}${upstream}`, `remove ${file}${upstream}`);
  } else if (kind === 'foreign' || (kind === 'upstream' && !opts.upstream) || (w.tracked && kind !== 'absent')) {
    if (!p.view.exists(backup))
      p.plan.info.push(`left ${file}: it was not written by fleet-git${w.tracked ? ' (and is tracked by git)' : ''}`);
  }
  if (p.view.exists(backup) && !p.view.exists(file)) {
    p.rename(backup, file, 'the hook file enable --force had replaced, back in its place');
    p.change(
      `put back the hook file that fleet-git enable --force had replaced in ${w.path}`,
      `put back the hook file that fleet-git enable --force had replaced in ${w.path}`,
    );
  }
  // The folders enable makes for the hook file; removeCreatedDirs leaves those it did not record.
  const gone = removeCreatedDirs(p, w.worktree.gitDir, w.path, ['.github/hooks', '.github']);
  if (gone.length) {
    const what = `the empty folder${gone.length > 1 ? 's' : ''} ${gone.join(', ')} it had created in ${w.path}`;
    p.change(`removed ${what}`, `remove ${what}`);
  }
}

function planDisableExclude(p: Planner, s: RepoState): void {
  const common = s.repo.commonDir;
  const file = join(common, 'info', 'exclude');
  const before = p.view.read(file);
  const createdFile = readCreated(p.view, common).includes('info/exclude');
  if (before !== null) {
    const after = removeExcludeBlock(before);
    if (after !== before) {
      // Folders the block records that are still there (the user put something in
      // them) stay recorded, in the record file, for a later disable.
      const root = s.main && s.main.worktree.gitDir === common ? s.main.path : null;
      if (root)
        keepRecorded(
          p,
          common,
          blockRecords(before).filter((e) => p.view.exists(join(root, e))),
        );
      if (after === '' && createdFile) {
        p.removeFile(file, 'fleet-git created it, and only its block was in it');
        forgetCreated(p, common, ['info/exclude']);
      } else p.write(file, after, 'its block taken out, the rest kept byte for byte', { how: 'in-place' });
      p.change(`removed the fleet-git block from ${file}`, `remove the fleet-git block from ${file}`);
    }
  }
  if (createdFile && !p.view.exists(file)) {
    forgetCreated(p, common, ['info/exclude']);
    if (p.open)
      p.change(`forgot ${file}, which fleet-git had created and is gone`, `forget ${file}, which fleet-git had created and is gone`);
  }
  if (removeCreatedDirs(p, common, common, ['info']).length)
    p.change(`removed the folder ${join(common, 'info')} it had created`, `remove the folder ${join(common, 'info')} it had created`);
}

/** The folders fleet-git writes in that disable lists to learn whether they are empty: those it recorded as made. */
function disableListed(p: Planner, s: RepoState): string[] {
  const common = s.repo.commonDir;
  const made = readCreated(p.view, common);
  const dirs = (['info', 'hooks'] as const).filter((d) => made.includes(d)).map((d) => within(common, d));
  for (const w of allWorktrees(s)) {
    if (w.link) continue;
    const mine = w.worktree.gitDir === common ? made : readCreated(p.view, w.worktree.gitDir);
    if (mine.includes('.github/hooks')) dirs.push(within(w.path, '.github/hooks'));
  }
  return dirs;
}

/** What disable does: undoes exactly what enable did, in every worktree. Reads, never writes. */
export function planDisable(s: RepoState, opts: DisableOptions = {}): Plan {
  const { p, link } = planner(s);
  if (link) return p.plan;
  sweepTemps(p, s, opts.killed, disableListed(p, s));
  for (const w of allWorktrees(s)) planDisableWorktree(p, w, opts);
  planDisableExclude(p, s);
  planConfigHookRemoval(p, s);
  planGitHookRemoval(p, s.repo);
  for (const gitDir of new Set([s.repo.commonDir, ...allWorktrees(s).map((w) => w.worktree.gitDir)])) removeEmptyRecord(p, gitDir);
  if (p.open)
    p.change(
      'removed the empty record file an interrupted fleet-git had left',
      'remove the empty record file an interrupted fleet-git had left',
    );
  return p.plan;
}
