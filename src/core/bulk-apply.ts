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
// held, with the same assessRepo. The main thread hands the results on in the order of the rows. Both actions can
// be repeated without harm, so when a helper fails (its file missing, an error
// in it) the main thread does that helper's share again itself.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../package-root.js';
import type { Outcome } from './actions.js';
import { gitLock, reasonOf, type Row } from './bulk.js';
import type { RunContext } from './context.js';
import { applyAction, bulkLockSource, withRepoLock, type RepoAction } from './repo-lock.js';
import { assessRepo, type RepoState } from './state.js';
import type { Repo } from '../git/repo.js';

/** What a bulk run does to each repository. */
export type BulkAction = RepoAction;

/** One repository's result: what changed, or why nothing could be done. */
export interface Applied {
  outcome?: Outcome;
  error?: string;
}

export interface BulkResult extends Applied {
  row: Row;
}

export interface BulkCounts {
  changed: number;
  unchanged: number;
  leftAlone: number;
  failed: number;
}

/** The helper thread's code: src/core/bulk-worker.ts, bundled by the build. */
export const WORKER_FILE = join(PACKAGE_ROOT, 'dist', 'bulk-worker.js');

/** What a helper is given: a RunContext less its config reader (it makes its own), the action, its share. */
export interface HelperJob {
  ctx: Omit<RunContext, 'config'>;
  action: BulkAction;
  /** Row index and repository. */
  share: [number, Repo][];
  /** The file each repository's lock is a hard link to (bulkLockSource), or null. */
  linkFrom: string | null;
}

/**
 * Takes the repository's lock, reads its state afresh (the survey's reading may
 * be stale: another fleet-git may have changed it since), then applies the
 * action. Never throws.
 */
export function applyAfresh(repo: Repo, ctx: RunContext, action: BulkAction, linkFrom: string | null): Applied {
  try {
    return withRepoLock(
      repo,
      ctx.env,
      (killed): Applied => {
        let s: RepoState;
        try {
          s = assessRepo(repo, ctx);
        } catch (err) {
          return { error: `cannot be read: ${reasonOf(err)}` };
        }
        const lock = gitLock(s);
        if (lock) return { error: lock };
        return { outcome: applyAction(s, ctx, action, killed) };
      },
      linkFrom,
    );
  } catch (err) {
    return { error: reasonOf(err) };
  }
}

export interface ApplyOptions {
  /** Runs in the main thread on each outcome, in row order, before onResult (e.g. a trustedFolders edit). */
  after?: (o: Outcome, row: Row) => void;
  onResult?: (r: BulkResult) => void;
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
): Promise<{ results: BulkResult[]; counts: BulkCounts; helpers: number }> {
  const todo = rows.filter((r) => r.state || r.unreadable);
  const results: BulkResult[] = [];
  const counts: BulkCounts = { changed: 0, unchanged: 0, leftAlone: 0, failed: 0 };
  const got: (Applied | undefined)[] = new Array(todo.length);
  let next = 0;
  // Results are handed on in row order, as soon as all before them are in.
  const settle = (i: number, a: Applied) => {
    if (got[i]) return; // a share done again after its helper failed
    got[i] = a;
    for (; next < todo.length && got[next]; next++) {
      const r: BulkResult = { row: todo[next], ...got[next] };
      if (r.outcome) opts.after?.(r.outcome, r.row);
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
  const inMain = (i: number) => {
    const row = todo[i];
    if (!row.state) return settle(i, { error: row.reason ?? 'cannot be read' });
    settle(i, applyAfresh(row.state.repo, ctx, action, linkFrom));
  };

  const work = todo.map((_, i) => i).filter((i) => todo[i].state);
  const threads = opts.threads ?? (ctx.env.FLEET_GIT_THREADS === '1' ? 1 : Math.min(2, availableParallelism()));
  const file = opts.workerFile ?? WORKER_FILE;
  const helpers = threads > 1 && work.length >= (opts.minRows ?? 64) && existsSync(file) ? threads : 0;
  try {
    for (let i = 0; i < todo.length; i++) if (!todo[i].state) inMain(i);
    if (helpers === 0) {
      for (const i of work) inMain(i);
    } else {
      const shares = Array.from({ length: helpers }, (_, h) => work.filter((_, k) => k % helpers === h));
      const failed = await Promise.all(
        shares.map((share) =>
          runHelper(
            file,
            { ctx, action, linkFrom },
            share.map((i) => [i, todo[i].state!.repo]),
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
  return { results, counts, helpers };
}

/** Runs one helper on its share; resolves with true when it failed before answering for all of it. */
function runHelper(
  file: string,
  run: { ctx: RunContext; action: BulkAction; linkFrom: string | null },
  share: [number, Repo][],
  settle: (i: number, a: Applied) => void,
): Promise<boolean> {
  return new Promise((done) => {
    let left = share.length;
    let worker: Worker;
    try {
      const { config: _ownReader, ...rest } = run.ctx; // a helper makes its own config reader
      const job: HelperJob = { ctx: rest, action: run.action, share, linkFrom: run.linkFrom };
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
