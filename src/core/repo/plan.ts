// A plan is data: every change fleet-git makes to a repository, as a list of
// steps (a folder made or removed, a file written, removed or renamed, a
// record of what it created), grouped in the changes a command prints.
// Planning (actions.ts) reads the repository through a View, which also sees
// the steps planned so far, and writes nothing; applyPlan carries a plan out
// step by step and, when one fails, undoes the ones it did, newest first.
// enable, disable, remove, enable --under, their --dry-run and "is there
// anything of fleet-git here" all come from the same plans.
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { appendWhole, writeAtomic, writeInPlace } from '../../fs/atomic.js';
import { readText } from '../../fs/read.js';

/** What a step changes: a file of the user's repository or worktree, a folder, or one of fleet-git's own record files. */
export type StepKind = 'file' | 'folder' | 'record';

export type Step =
  /** Makes a folder (it is not there); undone by removing it. */
  | { kind: 'folder'; op: 'make'; path: string; why: string }
  /** Removes an empty folder; undone by making it again. */
  | { kind: 'folder'; op: 'remove'; path: string; why: string }
  /**
   * Writes `after` where `before` is (null: no file): atomically (a temporary
   * file, then a rename); with `how` 'in-place', by one append or one
   * truncation when `after` only adds to or cuts the end of `before`; with
   * 'append', by one append (the file made if need be; `after` starts with
   * `before`). `mode`: the mode the file gets, whatever it had. Undone by
   * writing `before` back the same way (removing the file when it was null).
   */
  | {
      kind: 'file' | 'record';
      op: 'write';
      path: string;
      before: string | null;
      after: string;
      mode?: number;
      how?: 'in-place' | 'append';
      why: string;
    }
  /** Removes a file holding `before`; undone by writing it back with its mode. */
  | { kind: 'file' | 'record'; op: 'remove'; path: string; before: string; why: string }
  /** Renames a file to `to`, which holds `over` (null: nothing there); undone by renaming it back (and writing `over` again). */
  | { kind: 'file'; op: 'rename'; path: string; to: string; over: string | null; why: string };

/** One line of a command's outcome: what it did (`did`) or would do (`would`), and the steps that do it. */
export interface Change {
  did: string;
  would: string;
  steps: Step[];
}

export interface Plan {
  path: string;
  changes: Change[];
  /** What is left alone, and why: the command's exit code is 1. */
  notes: string[];
  /** Lines that do not change the exit code. */
  info: string[];
}

/** What a command did: the plan's lines. */
export interface Outcome {
  path: string;
  /** What was changed, in words. Empty: nothing needed changing. */
  changes: string[];
  /** What was left alone, and why. Notes make the command's exit code 1. */
  notes: string[];
  /** Informational lines that do not make the exit code non-zero. */
  info: string[];
}

/** Every step of a plan, in order. */
export function planSteps(plan: Plan): Step[] {
  return plan.changes.flatMap((c) => c.steps);
}

const FOLDER = 1;
type Seen = string | typeof FOLDER | null;

/**
 * The repository as planning sees it: the files on disk, with the steps planned
 * so far applied over them. Reads are made once per path, and a folder is
 * listed once; `seen`: files already read (by assessRepo, in the same hold of
 * the lock), which are not read again.
 */
export class View {
  private readonly planned = new Map<string, Seen>();
  private readonly read_: Map<string, string | null>;
  private readonly lists = new Map<string, string[] | null>();

  constructor(seen?: ReadonlyMap<string, string | null>) {
    this.read_ = new Map(seen);
  }

  /** A file's text (null: none, or a folder). */
  read(path: string): string | null {
    const p = this.planned.get(path);
    if (p !== undefined) return typeof p === 'string' ? p : null;
    let t = this.read_.get(path);
    if (t === undefined) this.read_.set(path, (t = readText(path)));
    return t;
  }

  exists(path: string): boolean {
    const p = this.planned.get(path);
    if (p !== undefined) return p !== null;
    const t = this.read_.get(path);
    if (t !== undefined) return t !== null;
    return existsSync(path);
  }

  /** The names in a folder on disk (null: it cannot be listed, or is not there), listed once. */
  list(path: string): string[] | null {
    let names = this.lists.get(path);
    if (names === undefined) {
      try {
        names = readdirSync(path);
      } catch {
        names = null;
      }
      this.lists.set(path, names);
    }
    return names;
  }

  /** Whether a folder is empty, once the planned steps are done: 'empty', 'gone' (not there), or 'kept' (it holds something, or cannot be read). */
  folder(path: string): 'empty' | 'gone' | 'kept' {
    const p = this.planned.get(path);
    if (p === null) return 'gone';
    for (const [q, v] of this.planned) if (v !== null && dirname(q) === path) return 'kept';
    if (p === FOLDER && !existsSync(path)) return 'empty';
    const names = this.list(path);
    if (names === null) return existsSync(path) ? 'kept' : 'gone';
    return names.every((n) => this.planned.get(`${path}/${n}`) === null) ? 'empty' : 'kept';
  }

  /** Takes a step into the view. */
  take(s: Step): void {
    if (s.op === 'make') this.planned.set(s.path, FOLDER);
    else if (s.op === 'write') this.planned.set(s.path, s.after);
    else if (s.op === 'remove') this.planned.set(s.path, null);
    else {
      this.planned.set(s.to, this.read(s.path));
      this.planned.set(s.path, null);
    }
  }
}

/** Builds a plan: steps are collected, then grouped under the line that says what they do. */
export class Planner {
  readonly view: View;
  readonly plan: Plan;
  private pending: Step[] = [];

  /** `seen`: files already read, see View. */
  constructor(path: string, seen?: ReadonlyMap<string, string | null>) {
    this.view = new View(seen);
    this.plan = { path, changes: [], notes: [], info: [] };
  }

  private add(s: Step): void {
    this.view.take(s);
    this.pending.push(s);
  }

  makeFolder(path: string, why: string): void {
    this.add({ kind: 'folder', op: 'make', path, why });
  }

  removeFolder(path: string, why: string): void {
    this.add({ kind: 'folder', op: 'remove', path, why });
  }

  /** Writes `after` unless the file holds it already (and `mode` is not asked for). */
  write(
    path: string,
    after: string,
    why: string,
    opts: { kind?: 'file' | 'record'; mode?: number; how?: 'in-place' | 'append' } = {},
  ): void {
    const before = this.view.read(path);
    if (before === after && opts.mode === undefined) return;
    const s: Step = { kind: opts.kind ?? 'file', op: 'write', path, before, after, why };
    if (opts.mode !== undefined) s.mode = opts.mode;
    if (opts.how && opts.mode === undefined) s.how = opts.how;
    this.add(s);
  }

  removeFile(path: string, why: string, kind: 'file' | 'record' = 'file'): void {
    const before = this.view.read(path);
    if (before === null) return;
    this.add({ kind, op: 'remove', path, before, why });
  }

  rename(path: string, to: string, why: string): void {
    this.add({ kind: 'file', op: 'rename', path, to, over: this.view.read(to), why });
  }

  /** Whether steps were collected since the last change. */
  get open(): boolean {
    return this.pending.length > 0;
  }

  /** Ends a change: the steps collected since the last one, under its line. */
  change(did: string, would: string): void {
    this.plan.changes.push({ did, would, steps: this.pending });
    this.pending = [];
  }
}

/** A step's undo, as steps. */
export function undoOf(s: Step, mode?: number): Step[] {
  const why = `undo: ${s.why}`;
  switch (s.op) {
    case 'make':
      return [{ kind: 'folder', op: 'remove', path: s.path, why }];
    case 'write':
      if (s.before === null) return [{ kind: s.kind, op: 'remove', path: s.path, before: s.after, why }];
      // An append or in-place write is undone by a truncation (which needs no free space).
      return [
        {
          kind: s.kind,
          op: 'write',
          path: s.path,
          before: s.after,
          after: s.before,
          ...(mode !== undefined ? { mode } : {}),
          ...(s.how ? { how: 'in-place' as const } : {}),
          why,
        },
      ];
    case 'remove':
      if (s.kind === 'folder') return [{ kind: 'folder', op: 'make', path: s.path, why }];
      return [{ kind: s.kind, op: 'write', path: s.path, before: null, after: s.before, ...(mode !== undefined ? { mode } : {}), why }];
    case 'rename': {
      const back: Step[] = [{ kind: 'file', op: 'rename', path: s.to, to: s.path, over: null, why }];
      if (s.over !== null)
        back.push({ kind: 'file', op: 'write', path: s.to, before: null, after: s.over, ...(mode !== undefined ? { mode } : {}), why });
      return back;
    }
  }
}

/** The mode a step's undo must give back: that of a file it replaces with another mode, removes, or renames another over. */
function modeToKeep(s: Step): number | undefined {
  const path =
    s.op === 'rename'
      ? s.over !== null
        ? s.to
        : null
      : (s.op === 'write' && s.mode !== undefined && s.before !== null) || (s.op === 'remove' && s.kind !== 'folder')
        ? s.path
        : null;
  if (path === null) return undefined;
  try {
    return lstatSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Carries out one step. */
export function doStep(s: Step): void {
  switch (s.op) {
    case 'make':
      mkdirSync(s.path);
      return;
    case 'remove':
      if (s.kind === 'folder') rmdirSync(s.path);
      else unlinkSync(s.path);
      return;
    case 'write':
      // A step planned as a creation (before null) creates: a name that appeared since (a link, say) fails it, and it is undone.
      if (s.how === 'append') appendWhole(s.path, s.after.slice(s.before?.length ?? 0), s.before === null);
      else if (s.how === 'in-place' && s.before !== null) writeInPlace(s.path, s.after, s.before);
      else writeAtomic(s.path, s.after, { mode: s.mode, current: s.before, create: s.before === null });
      return;
    case 'rename':
      renameSync(s.path, s.to);
  }
}

/**
 * Carries out a plan, step by step. When a step fails, the steps done are
 * undone, newest first (an undo that fails does not stop the others), and the
 * error is thrown: the repository is left as it was.
 */
export function applyPlan(plan: Plan): Outcome {
  const undo: Step[][] = [];
  try {
    for (const c of plan.changes) {
      for (const s of c.steps) {
        const mode = modeToKeep(s);
        doStep(s);
        undo.push(undoOf(s, mode));
      }
    }
  } catch (e) {
    for (const steps of undo.reverse()) {
      for (const s of steps) {
        try {
          doStep(s);
        } catch {
          /* keep undoing the rest */
        }
      }
    }
    throw e;
  }
  return outcomeOf(plan);
}

/** A plan's lines, as the command prints them once it is done. */
export function outcomeOf(plan: Plan): Outcome {
  return { path: plan.path, changes: plan.changes.map((c) => c.did), notes: plan.notes, info: plan.info };
}

/** A step as --dry-run --json prints it. */
export function stepJson(s: Step): Record<string, unknown> {
  const j: Record<string, unknown> = { kind: s.kind, op: s.op, path: s.path };
  if (s.op === 'rename') j.to = s.to;
  if (s.op === 'write') {
    j.before = s.before;
    j.after = s.after;
    if (s.mode !== undefined) j.mode = s.mode.toString(8);
    if (s.how) j.how = s.how;
  }
  if (s.op === 'remove' && s.kind !== 'folder') j.before = s.before;
  j.why = s.why;
  return j;
}

/** A plan as --dry-run --json prints it. */
export function planJson(plan: Plan) {
  return {
    path: plan.path,
    changes: plan.changes.map((c) => ({ would: c.would, steps: c.steps.map(stepJson) })),
    notes: plan.notes,
    info: plan.info,
  };
}
