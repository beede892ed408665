// Commands that change a repository (enable, disable, remove, enable --under,
// run) hold its lock while they read its state and act on it, so that two
// fleet-git processes in one repository take turns: the second reads what the
// first left, finds its work done or does what is left, and undoes only its
// own steps. The lock is `fleet-git.lock` in the common git dir (shared by all
// worktrees), made as git makes `index.lock` (see fs/lock.ts).
import { describeError } from '../../errors.js';
import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isPresent, readText } from '../../fs/read.js';
import { acquireLock, holderAlive, LockBusyError, makeLinkSource, type Release } from '../../fs/lock.js';
import type { Repo } from '../../git/repo.js';
import { LOCK_FILE, type Env } from '../../paths.js';
import { planClientHookFile, planDisable, planEnable, type Outcome, type Plan } from './actions.js';
import { applyPlan, outcomeOf } from './plan.js';
import { forgetRepo, isRecorded, recordRepo, type RecordEntry } from './record.js';
import type { RunContext } from './context.js';
import { assessRepo, type RepoState } from './state.js';

/** How long a command waits for another fleet-git in the same repository: FLEET_GIT_LOCK_WAIT seconds, default 10. */
export function lockWaitMs(env: Env): number {
  const s = Number(env.FLEET_GIT_LOCK_WAIT);
  return env.FLEET_GIT_LOCK_WAIT !== undefined && env.FLEET_GIT_LOCK_WAIT !== '' && Number.isFinite(s) && s >= 0 ? s * 1000 : 10_000;
}

/**
 * Runs `fn` holding the repository's lock; `fn` must read the repository's
 * state itself (what it read before may be stale). `fn` is told whether the
 * lock was taken over from a killed fleet-git (`killed`): then temporary files
 * of that one may be left where it wrote (see planEnable's sweep).
 */
export function withRepoLock<T>(repo: Repo, env: Env, fn: (killed: boolean) => T, linkFrom?: string | null): T {
  const path = join(repo.commonDir, LOCK_FILE);
  let release: Release;
  try {
    release = acquireLock(path, { waitMs: lockWaitMs(env), linkFrom });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof LockBusyError || typeof code !== 'string') throw e;
    throw new Error(
      `cannot make ${path}, the lock fleet-git holds while it changes this repository: ${describeError(e)}; check that ${repo.commonDir} is writable`,
    );
  }
  try {
    return fn(release.tookOver);
  } finally {
    release();
  }
}

/** What a command does to one repository. */
export type RepoAction =
  /** `worktree`: only that worktree's files (the post-checkout hook's). */
  | { do: 'enable'; force: boolean; worktree?: string }
  | { do: 'disable'; upstream: boolean }
  /** Another hook client's hook file (CopilotAdapter.installHooks for fleet's), in the worktree at `root`. */
  | { do: 'client-hook-file'; root: string; text: string };

/**
 * The action's plan for a state (planning reads, never writes). `killed`: the
 * lock was taken over from a killed fleet-git (undefined: whether a lock file
 * is there, for a plan made without the lock).
 */
export function planAction(s: RepoState, ctx: RunContext, action: RepoAction, killed?: boolean): Plan {
  if (action.do === 'client-hook-file') return planClientHookFile(s, action.root, action.text, killed);
  return action.do === 'enable'
    ? planEnable(s, ctx, { force: action.force, killed, worktree: action.worktree })
    : planDisable(s, { upstream: action.upstream, killed });
}

/** Plans and applies the action to a state read under the repository's lock (`killed`: see withRepoLock). */
export function applyAction(s: RepoState, ctx: RunContext, action: RepoAction, killed: boolean): Outcome {
  return applyRecorded(s, ctx, action, planAction(s, ctx, action, killed));
}

/**
 * Applies an action's plan, keeping the record of enabled repositories
 * (record.ts) in step, under the same lock: enable adds the repository before
 * its first change (a fleet-git killed halfway leaves an entry that checkEntry
 * and remove find with nothing to do, never an enabled repository nobody
 * recorded), and takes a new entry out again when the plan fails; disable takes
 * it out once the plan is done and left nothing alone. Every command that
 * changes a repository comes here (actOnRepo, the bulk runs' helpers).
 */
/** A repository's entry in the record (record.ts). */
const entryOf = (s: RepoState): RecordEntry => ({ path: s.path, commonDir: s.repo.commonDir });

function applyRecorded(s: RepoState, ctx: RunContext, action: RepoAction, plan: Plan): Outcome {
  const entry = entryOf(s);
  if (action.do === 'disable') {
    const outcome = applyPlan(plan);
    if (!plan.notes.length) forgetRepo(ctx.user, entry.commonDir);
    return outcome;
  }
  const added = action.do === 'enable' && (s.enabled || plan.changes.length > 0) && recordRepo(ctx.user, entry);
  try {
    return applyPlan(plan);
  } catch (e) {
    if (added && !s.enabled) forgetRepo(ctx.user, entry.commonDir);
    throw e;
  }
}

/**
 * Takes the repository's lock, reads its state, plans the action and applies
 * the plan; the state is returned with what changed. With `dryRun`, no lock
 * and no change: the plan's lines are returned as they would be.
 *
 * A plan made first without the lock that changes nothing (and no lock file
 * there, which a killed fleet-git may have left) is the answer: a command with
 * nothing to do needs no write access to the repository. Another fleet-git
 * changing it meanwhile has changed something already, so that plan would not
 * be empty; or it has not started, and its work comes after this one's.
 */
export function actOnRepo(
  repo: Repo,
  ctx: RunContext,
  action: RepoAction,
  dryRun = false,
): { state: RepoState; outcome: Outcome; plan: Plan } {
  const state = assessRepo(repo, ctx);
  const plan = planAction(state, ctx, action);
  // An enabled repository the record lacks (moved, or enabled before the record was begun) is recorded under the lock.
  const unrecorded = action.do === 'enable' && state.enabled && !isRecorded(ctx.user, entryOf(state));
  if (dryRun || (plan.changes.length === 0 && !unrecorded && !isPresent(join(repo.commonDir, LOCK_FILE))))
    return { state, plan, outcome: outcomeOf(plan) };
  return withRepoLock(repo, ctx.env, (killed) => {
    const state = assessRepo(repo, ctx);
    const plan = planAction(state, ctx, action, killed);
    return { state, plan, outcome: applyRecorded(state, ctx, action, plan) };
  });
}

const SOURCE_PREFIX = 'bulk-lock-';

/** Whether the bulk run that made the link source `file` (holding its PID, see holderText) is alive. */
function bulkRunAlive(pid: number, file: string): boolean {
  let text: string | null = null;
  try {
    text = readText(file);
  } catch {
    /* unreadable: judged by the PID in its name */
  }
  return holderAlive(text ?? `${pid}\n`) !== false;
}

/**
 * For a bulk run: the file in the data folder that each repository's lock is a
 * hard link to (one inode for the whole run), and its removal. Such files left
 * by bulk runs that were killed are removed first. null: none could be made
 * (each lock is then a file of its own).
 */
export function bulkLockSource(dataDir: string): { path: string; dispose: () => void } | null {
  try {
    for (const name of readdirSync(dataDir)) {
      const pid = name.startsWith(SOURCE_PREFIX) ? Number(name.slice(SOURCE_PREFIX.length)) : NaN;
      if (Number.isInteger(pid) && pid !== process.pid && !bulkRunAlive(pid, join(dataDir, name))) {
        try {
          unlinkSync(join(dataDir, name));
        } catch {
          /* another run did */
        }
      }
    }
    const path = join(dataDir, `${SOURCE_PREFIX}${process.pid}`);
    makeLinkSource(path);
    return {
      path,
      dispose: () => {
        try {
          unlinkSync(path);
        } catch {
          /* gone */
        }
      },
    };
  } catch {
    return null;
  }
}
