// Many repositories at once: discover them under some folders, read each one's
// fleet state with assessRepo (the same state `status` shows), and apply an
// action to each with per-repository failure isolation. Shared by `scan`,
// `remove` and `enable --under`. It decides and returns data (rows, and rows
// as scan --json's document); how a row is printed, and the lines buffered on
// their way out, are the commands' (commands/report.ts).
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GitRefusedError, type Repo } from '../../git/repo.js';
import { isUnder, LOCK_FILE } from '../../paths.js';
import { describeError, permissionLine } from '../../errors.js';
import type { RunContext } from '../repo/context.js';
import { planDisable, type Plan } from '../repo/actions.js';
import { byPath, discover, type DiscoverOptions } from './discover.js';
import { hasGitDir, type FoundWithGitDir, type FoundWorktree } from '../../git/dot-git.js';
import { allWorktrees, assessRepo, isHealthy, stateJson, type Judged, type RepoState } from '../repo/state.js';
import { NO_ENTRY_OK } from '../../fs/read.js';
import { copilotJson, copilotView, type CopilotView } from '../setup/user-hooks.js';

/** What a row is: a repository fleet-git can work in, or something listed with a reason. */
export type RowKind = 'repo' | 'submodule' | 'separate' | 'bare' | 'stale' | 'broken' | 'unreadable';
export type Group = 'healthy' | 'problems' | 'not-enabled' | 'not-usable';
export const GROUPS: readonly Group[] = ['healthy', 'problems', 'not-enabled', 'not-usable'];

export interface Row {
  path: string;
  kind: RowKind;
  group: Group;
  /** The repository's state (with its linked worktrees); null when it is not usable. */
  state: RepoState | null;
  /** Not usable: why. */
  reason?: string;
  /** Found inside another repository's worktree (--nested): that repository. */
  enclosing?: string;
  /** The repository is outside the roots: it was found through one of its linked worktrees. */
  outside?: boolean;
  /** Its state could not be read (an unreadable or corrupt file): an action on it counts as failed. */
  unreadable?: boolean;
  /**
   * A repository found but not read (survey with `read: false`): a bulk run
   * reads it once, under its lock (state is null and group says nothing yet).
   */
  unread?: Repo;
}

export interface Survey {
  roots: string[];
  /** Sorted by path. */
  rows: Row[];
  foldersSeen: number;
}

export interface Counts {
  repositories: number;
  worktrees: number;
  healthy: number;
  withProblems: number;
  notEnabled: number;
  notUsable: number;
}

export function groupOf(s: Judged): Group {
  if (isHealthy(s)) return 'healthy';
  if (s.problems.length > 0 || s.worktrees.some((w) => w.problems.length > 0)) return 'problems';
  return 'not-enabled';
}

/** A short reason for an error, with the path it concerns when the error names one. */
export function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string') return permissionLine(e) ?? `${describeError(e)}${e.path ? `: ${e.path}` : ''}`;
  return e instanceof Error ? e.message : String(err);
}

/**
 * A repository to read, as discovery found it.
 */
export interface Unit {
  repo: Repo;
  kind: RowKind;
  enclosing?: string;
  outside?: boolean;
}

/** The repository a group of found entries sharing one common dir stands for. */
function unitFor(list: FoundWithGitDir[], roots: string[]): Unit {
  const primary = list.find((f): f is Exclude<FoundWithGitDir, FoundWorktree> => f.kind !== 'worktree');
  if (primary) {
    const repo: Repo = {
      root: primary.path,
      gitDir: primary.gitDir,
      commonDir: primary.commonDir,
      linked: primary.gitDir !== primary.commonDir,
    };
    if (primary.kind === 'repo' && primary.listed) repo.listed = primary.listed;
    const unit: Unit = { repo, kind: primary.kind };
    if (primary.enclosing) unit.enclosing = primary.enclosing;
    return unit;
  }
  // Only linked worktrees of it were found: report the repository they belong to.
  const wt = list[0];
  const enclosing = wt.enclosing ? { enclosing: wt.enclosing } : {};
  if (wt.kind === 'worktree' && wt.mainPath && existsSync(join(wt.mainPath, '.git'))) {
    const outside = !roots.some((r) => isUnder(wt.mainPath as string, r));
    return {
      repo: { root: wt.mainPath, gitDir: wt.commonDir, commonDir: wt.commonDir, linked: false },
      kind: 'repo',
      ...enclosing,
      ...(outside ? { outside } : {}),
    };
  }
  return { repo: { root: wt.path, gitDir: wt.gitDir, commonDir: wt.commonDir, linked: true }, kind: 'repo', outside: true, ...enclosing };
}

/** What discovery found under `roots`: the repositories to read, and the rows that need no reading (not usable). */
export async function discoverUnits(
  roots: string[],
  opts: DiscoverOptions = {},
): Promise<{ roots: string[]; units: Unit[]; rows: Row[]; foldersSeen: number }> {
  const absRoots = [...new Set(roots.map((r) => resolve(r)))];
  const found = await discover(absRoots, opts);
  const rows: Row[] = [];
  const byCommon = new Map<string, FoundWithGitDir[]>();
  for (const f of found.found) {
    if (hasGitDir(f)) {
      const list = byCommon.get(f.commonDir);
      if (list) list.push(f);
      else byCommon.set(f.commonDir, [f]);
    } else {
      rows.push({
        path: f.path,
        kind: f.kind,
        group: 'not-usable',
        state: null,
        reason: f.reason,
        ...(f.enclosing ? { enclosing: f.enclosing } : {}),
      });
    }
  }
  for (const u of found.unreadable)
    rows.push({ path: u.path, kind: 'unreadable', group: 'not-usable', state: null, reason: `cannot be read: ${u.reason}` });
  const units = [...byCommon.values()].map((list) => unitFor(list, absRoots));
  return { roots: absRoots, units, rows, foldersSeen: found.foldersSeen };
}

/** Reads one repository's state into its row; a file that cannot be read makes it a broken row, with the reason. */
export function assessUnit(u: Unit, ctx: RunContext): Row {
  let row: Row;
  try {
    const state = assessRepo(u.repo, ctx, undefined, 'with-fleet-git');
    row = { path: state.path, kind: u.kind, group: groupOf(state), state };
  } catch (err) {
    row = {
      path: u.repo.root,
      kind: 'broken',
      group: 'not-usable',
      state: null,
      reason: err instanceof GitRefusedError ? err.reason : `cannot be read: ${reasonOf(err)}`, // git refuses it: in git's words
      unreadable: true,
    };
  }
  if (u.enclosing) row.enclosing = u.enclosing;
  if (u.outside) row.outside = true;
  return row;
}

/** A row for a repository found and not read yet (see Row.unread). */
function unreadRow(u: Unit): Row {
  const row: Row = { path: u.repo.root, kind: u.kind, group: 'not-enabled', state: null, unread: u.repo };
  if (u.enclosing) row.enclosing = u.enclosing;
  if (u.outside) row.outside = true;
  return row;
}

/**
 * Finds every repository and oddity under `roots` and reads each repository's
 * state once (a linked worktree is reported inside its repository's row).
 * `read: false`: finds them only, for a bulk run that reads each under its
 * lock anyway (bulk-apply.ts), so that no repository is read twice.
 */
export async function survey(roots: string[], ctx: RunContext, opts: DiscoverOptions = {}, read = true): Promise<Survey> {
  const d = await discoverUnits(roots, opts);
  const rows = d.rows.concat(d.units.map((u) => (read ? assessUnit(u, ctx) : unreadRow(u))));
  rows.sort(byPath);
  return { roots: d.roots, rows, foldersSeen: d.foldersSeen };
}

/**
 * scan's survey: every row as JSON (with what Copilot makes of it), each made
 * as soon as its repository is read, so that thousands of states are not kept.
 */
export async function surveyAsJson(roots: string[], ctx: RunContext, opts: DiscoverOptions = {}): Promise<SurveyJson> {
  const copilot = copilotView(ctx); // Copilot's config.json and the user-level hook file, read once for all rows
  const d = await discoverUnits(roots, opts);
  const repos = d.rows.map((r) => rowJson(r, copilot));
  for (const u of d.units) repos.push(rowJson(assessUnit(u, ctx), copilot));
  repos.sort(byPath);
  return surveyJson(d.roots, repos);
}

/** Counts rows in their JSON shape (see rowJson): usable rows are the ones without a reason. */
export function countRows(rows: RowJson[]): Counts {
  const c: Counts = { repositories: 0, worktrees: 0, healthy: 0, withProblems: 0, notEnabled: 0, notUsable: 0 };
  for (const r of rows) {
    const g = jsonGroup(r);
    if (g !== 'not-usable') {
      c.repositories++;
      c.worktrees += r.worktrees.length;
    }
    if (g === 'healthy') c.healthy++;
    else if (g === 'problems') c.withProblems++;
    else if (g === 'not-enabled') c.notEnabled++;
    else c.notUsable++;
  }
  return c;
}

/** The group of a row in its JSON shape. */
export function jsonGroup(r: RowJson): Group {
  return r.reason !== undefined ? 'not-usable' : groupOf(r);
}

/**
 * One row as JSON: stateJson's shape, with the kind found, and a reason for
 * what is not usable; a usable row also says what Copilot makes of it
 * (`copilot`: trusted, and which hook level reports it), as status --json does.
 */
export function rowJson(r: Row, copilot: CopilotView): RowJson {
  // Built key by key, in the order printed (thousands of rows: no spreading).
  const j: RowJson = r.state
    ? stateJson(r.state)
    : { path: r.path, kind: r.kind, enabled: false, problems: [], worktrees: [], reason: r.reason ?? 'not usable' };
  j.kind = r.kind;
  if (r.enclosing) j.enclosing = r.enclosing;
  if (r.outside) j.outside = true;
  if (r.state) j.copilot = copilotJson(copilot, r.state);
  return j;
}

/** A row as `scan --json` prints it. */
export type RowJson = Omit<ReturnType<typeof stateJson>, 'kind'> & {
  kind: RowKind;
  reason?: string;
  enclosing?: string;
  outside?: boolean;
  copilot?: ReturnType<typeof copilotJson>;
};

/** The document `scan --json` prints. */
export interface SurveyJson {
  roots: string[];
  repos: RowJson[];
  counts: Counts;
}

export function surveyJson(roots: string[], repos: RowJson[]): SurveyJson {
  return { roots, repos, counts: countRows(repos) };
}

/**
 * Whether the repository holds anything of fleet-git or of the upstream
 * `fleet hooks install` (an untracked hook file marked claude-code-fleet):
 * what `remove` takes out. An enabled repository always counts (its plan may
 * be only what it leaves alone); another one when disable's plan changes
 * something there, or a lock a killed fleet-git left (remove takes it over
 * and leaves nothing behind). `plan`: makes that plan (the caller may keep it).
 */
export function hasFleetState(s: RepoState, plan: () => Plan = () => planDisable(s, { upstream: true })): boolean {
  return s.enabled || existsSync(join(s.repo.commonDir, LOCK_FILE)) || plan().changes.length > 0;
}

/** A git process working in the repository now (or one that died and left its lock). */
export function gitLock(s: RepoState): string | null {
  const locks = [
    ...allWorktrees(s).map((w) => join(w.worktree.gitDir, 'index.lock')),
    join(s.repo.commonDir, 'config.lock'),
    join(s.repo.commonDir, 'HEAD.lock'),
  ];
  for (const l of locks) {
    if (statSync(l, NO_ENTRY_OK)) return `a git process holds ${l} (if none is running, remove that file and try again)`;
  }
  return null;
}
