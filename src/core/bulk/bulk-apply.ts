// Applying enable or disable to many repositories (enable --under, remove),
// each on its own: a failure in one (an error, a git lock held) is reported
// with its reason and the rest go on.
//
// With many repositories and a second core, two helper threads do the work,
// each on its share: creating and renaming files is kernel work that two
// threads do in measured 0.55 to 0.6 of the time of one (a scan, which only
// reads, gained nothing and stays in one thread). Each repository is done
// under its lock (repo-lock.ts; here a hard link to one file made for the
// run, which costs no inode), and its state read afresh once the lock is
// held, with the same assessRepo. A row the survey found without reading it
// (Row.unread) is read there only, so the helpers start on rows the main
// thread has not read; with `pick` (remove), a helper first reads its
// info/exclude: fleet-git's block there says it has something to remove, and
// it is read once, under its lock; without the block it is read first without
// the lock to learn whether it has anything of fleet-git (none: no lock taken,
// nothing written), and again under the lock if so.
// The main thread hands the results on in the order of the rows. Both actions can
// be repeated without harm, so when a helper fails (its file missing, an error
// in it) the main thread does that helper's share again itself.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { Outcome } from '../repo/actions.js';
import { gitLock, hasFleetState, reasonOf, type Row } from './bulk.js';
import type { RunContext } from '../repo/context.js';
import { applyAction, bulkLockSource, planAction, withRepoLock, type RepoAction } from '../repo/repo-lock.js';
import { sweepRecord } from '../repo/record.js';
import { hasExcludeBlock } from '../repo/exclude.js';
import { assessRepo, readExclude, type RepoState } from '../repo/state.js';
import { GitRefusedError, type Repo } from '../../git/repo.js';

/** What a bulk run does to each repository. */
export type BulkAction = RepoAction;

/** One repository's result: what changed, or why nothing could be done. */
export interface Applied {
  outcome?: Outcome;
  error?: string;
  /** The repository's path and its linked worktrees' paths, as read under the lock (for the caller's trustedFolders edit). */
  where?: Where;
  /** With `pick`: it has nothing to act on, and was left as it was (no lock taken, or, when that was known only under it, nothing written). */
  untouched?: true;
}

/** Where a repository and its linked worktrees are. */
export interface Where {
  path: string;
  worktrees: { path: string }[];
}

/**
 * Which repositories a bulk run acts on when its survey read none of them
 * (every row Row.unread): only those with anything of fleet-git (hasFleetState,
 * with the action's plan), or whose path or a worktree's is among `listed`
 * (trustedFolders entries fleet-git added). See applyAfresh.
 */
export interface Pick {
  listed: string[];
}

/** A Pick's paths as a Set, made once per run (a helper gets its own copy of the Pick). */
const listedSets = new WeakMap<Pick, Set<string>>();
function listedSet(pick: Pick): Set<string> {
  let set = listedSets.get(pick);
  if (!set) listedSets.set(pick, (set = new Set(pick.listed)));
  return set;
}

const whereOf = (s: RepoState): Where => ({ path: s.path, worktrees: s.worktrees.map((w) => ({ path: w.path })) });

export interface BulkResult extends Applied {
  row: Row;
}

export interface BulkCounts {
  changed: number;
  unchanged: number;
  leftAlone: number;
  failed: number;
}

/** The helper thread's code: src/core/bulk/bulk-worker.ts, bundled by the build. */
export const WORKER_FILE = join(PACKAGE_ROOT, 'dist', 'bulk-worker.js');

/** What a helper is given: a RunContext less its config reader (it makes its own), the action, its share. */
export interface HelperJob {
  ctx: Omit<RunContext, 'config'>;
  action: BulkAction;
  /** Row index and repository. */
  share: [number, Repo][];
  /** The file each repository's lock is a hard link to (bulkLockSource), or null. */
  linkFrom: string | null;
  pick?: Pick;
}

/** What `read` read of a repository, or the row's error when it cannot be read. */
function readOrError<T>(read: () => T): T | { error: string } {
  try {
    return read();
  } catch (err) {
    return { error: err instanceof GitRefusedError ? err.reason : `cannot be read: ${reasonOf(err)}` };
  }
}

/** Whether `pick` takes the repository (see Pick). */
function picked(s: RepoState, ctx: RunContext, action: BulkAction, pick: Pick): boolean {
  const listed = listedSet(pick);
  return hasFleetState(s, () => planAction(s, ctx, action)) || listed.has(s.path) || s.worktrees.some((w) => listed.has(w.path));
}

/**
 * Takes the repository's lock, reads its state afresh (the survey's reading may
 * be stale: another fleet-git may have changed it since), then applies the
 * action. With `pick`, a repository whose info/exclude holds fleet-git's block
 * (read without following a link) surely has something to act on (disable
 * takes the block out, and the block makes it enabled): it is read under the
 * lock only, once. Another is read first without the lock, to learn whether
 * it has anything, and, if so, again under the lock. Both are judged again
 * under the lock: one with nothing left there is left as it is. Never throws.
 */
export function applyAfresh(repo: Repo, ctx: RunContext, action: BulkAction, linkFrom: string | null, pick?: Pick): Applied {
  if (pick) {
    const exclude = readOrError(() => readExclude(repo));
    if ('error' in exclude) return exclude;
    if (!(exclude.link === false && hasExcludeBlock(exclude.text))) {
      const s = readOrError(() => assessRepo(repo, ctx, exclude, 'with-fleet-git')); // git's refusal matters only where it acts
      if ('error' in s) return s;
      if (!picked(s, ctx, action, pick)) return { untouched: true };
    }
  }
  try {
    return withRepoLock(
      repo,
      ctx.env,
      (killed): Applied => {
        const s = readOrError(() => assessRepo(repo, ctx));
        if ('error' in s) return s;
        if (pick && !picked(s, ctx, action, pick)) return { untouched: true };
        const lock = gitLock(s);
        if (lock) return { error: lock };
        return { outcome: applyAction(s, ctx, action, killed), where: whereOf(s) };
      },
      linkFrom,
    );
  } catch (err) {
    return { error: reasonOf(err) };
  }
}

export interface ApplyOptions {
  /** Runs in the main thread on each outcome, in row order, before onResult (e.g. a trustedFolders edit); `where`: as read under the lock. */
  after?: (o: Outcome, where: Where) => void;
  /** For a survey that read no repository: act only on those it picks (see Pick). */
  pick?: Pick;
  onResult?: (r: BulkResult) => void;
  /** Runs in the main thread each time a repository is done, in the order they finish: how many are done, how many failed, of how many. */
  onProgress?: (done: number, failed: number, total: number) => void;
  /** Helper threads at most (default: 2 with a second core, else none; FLEET_GIT_THREADS=1 in the environment: none). */
  threads?: number;
  /** Fewer repositories than this are done in the main thread (default 64: helpers take some 40 ms to start). */
  minRows?: number;
  /** The helper's code (default WORKER_FILE; a test gives a failing one). */
  workerFile?: string;
}

/** Applies the action to every row that has a state (a row that could not be read fails with its reason). */
export async function applyAll(
  rows: Row[],
  ctx: RunContext,
  action: BulkAction,
  opts: ApplyOptions = {},
): Promise<{ results: BulkResult[]; counts: BulkCounts; helpers: number; untouched: number }> {
  const repoOf = (r: Row): Repo | null => r.state?.repo ?? r.unread ?? null;
  const todo = rows.filter((r) => repoOf(r) || r.unreadable);
  const results: BulkResult[] = [];
  const counts: BulkCounts = { changed: 0, unchanged: 0, leftAlone: 0, failed: 0 };
  let untouched = 0;
  const got: (Applied | undefined)[] = new Array(todo.length);
  let next = 0;
  let done = 0;
  let failed = 0;
  // Results are handed on in row order, as soon as all before them are in.
  const settle = (i: number, a: Applied) => {
    if (got[i]) return; // a share done again after its helper failed
    got[i] = a;
    done++;
    if (a.error !== undefined) failed++;
    opts.onProgress?.(done, failed, todo.length);
    for (; next < todo.length && got[next]; next++) {
      const r: BulkResult = { row: todo[next], ...got[next] };
      if (r.untouched) {
        untouched++;
        continue;
      }
      if (r.outcome) opts.after?.(r.outcome, r.where!); // applyAfresh gives every outcome its where
      if (r.error !== undefined) counts.failed++;
      else if (r.outcome!.notes.length > 0) counts.leftAlone++;
      else if (r.outcome!.changes.length > 0) counts.changed++;
      else counts.unchanged++;
      results.push(r);
      opts.onResult?.(r);
    }
  };
  const source = bulkLockSource(ctx.user.dataDir);
  const linkFrom = source?.path ?? null;
  sweepRecord(ctx.user); // here, before the helpers write entries: they do not sweep
  const inMain = (i: number) => {
    const row = todo[i];
    const repo = repoOf(row);
    if (!repo) return settle(i, { error: row.reason ?? 'cannot be read' });
    settle(i, applyAfresh(repo, ctx, action, linkFrom, opts.pick));
  };

  const work = todo.map((_, i) => i).filter((i) => repoOf(todo[i]));
  const threads = opts.threads ?? (ctx.env.FLEET_GIT_THREADS === '1' ? 1 : Math.min(2, availableParallelism()));
  const file = opts.workerFile ?? WORKER_FILE;
  const helpers = threads > 1 && work.length >= (opts.minRows ?? 64) && existsSync(file) ? threads : 0;
  try {
    for (let i = 0; i < todo.length; i++) if (!repoOf(todo[i])) inMain(i);
    if (helpers === 0) {
      for (const i of work) inMain(i);
    } else {
      const shares = Array.from({ length: helpers }, (_, h) => work.filter((_, k) => k % helpers === h));
      const failed = await Promise.all(
        shares.map((share) =>
          runHelper(
            file,
            { ctx, action, linkFrom },
            share.map((i) => [i, repoOf(todo[i])!]),
            opts.pick,
            settle,
          ),
        ),
      );
      // A helper that failed: the main thread does its share again (what the helper did stays done).
      shares.forEach((share, h) => {
        if (failed[h]) for (const i of share) if (!got[i]) inMain(i);
      });
    }
  } finally {
    source?.dispose();
  }
  return { results, counts, helpers, untouched };
}

/** Runs one helper on its share; resolves with true when it failed before answering for all of it. */
function runHelper(
  file: string,
  run: { ctx: RunContext; action: BulkAction; linkFrom: string | null },
  share: [number, Repo][],
  pick: Pick | undefined,
  settle: (i: number, a: Applied) => void,
): Promise<boolean> {
  return new Promise((done) => {
    let left = share.length;
    let worker: Worker;
    try {
      const { config: _ownReader, ...rest } = run.ctx; // a helper makes its own config reader
      const job: HelperJob = { ctx: rest, action: run.action, share, linkFrom: run.linkFrom, ...(pick ? { pick } : {}) };
      worker = new Worker(file, { workerData: job });
    } catch {
      return done(true);
    }
    let finished = false;
    const finish = (failed: boolean) => {
      if (finished) return;
      finished = true;
      void worker.terminate();
      done(failed);
    };
    worker.on('message', ([i, a]: [number, Applied]) => {
      settle(i, a);
      if (--left === 0) finish(false);
    });
    worker.on('error', () => finish(true));
    worker.on('messageerror', () => finish(true));
    worker.on('exit', () => finish(left > 0));
  });
}
