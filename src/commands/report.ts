// What the commands share: printing outcomes (a bulk run's lines buffered in
// large chunks, and its summary), repository and root arguments, the terminal
// checks and the progress line of a walk.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Outcome, Plan } from '../core/repo/actions.js';
import type { BulkCounts, BulkResult } from '../core/bulk/bulk-apply.js';
import type { Context, FleetCommand } from './base.js';
import type { TrustEdit } from '../copilot/trust.js';
import { describeError, unreachableReason, UsageError } from '../errors.js';
import { loadUserConfigOrDefaults, type LoadedConfig } from '../core/setup/user-config.js';

/** The stderr streams that were told already that the config file was ignored (uninstall runs remove with its own). */
const toldIgnored = new WeakSet<object>();

/**
 * The config file for a command that takes fleet-git away (remove, uninstall):
 * an invalid one is ignored, said once on stderr, and the defaults are used.
 */
export function wayOutConfig(cmd: FleetCommand): LoadedConfig {
  const { ignored, ...loaded } = loadUserConfigOrDefaults(cmd.context.env, cmd.context.home);
  if (ignored && !toldIgnored.has(cmd.context.stderr)) {
    toldIgnored.add(cmd.context.stderr);
    cmd.err(`fleet-git: ignored the config file, using the defaults: ${ignored.message}`);
  }
  return loaded;
}

/** The repositories named on the command line, or the current folder's. */
export function resolveRepos(args: string[], cwd: string): string[] {
  return args.length ? args.map((a) => resolve(cwd, a)) : [cwd];
}

/**
 * Writes the run's trustedFolders edit; when config.json cannot be written, says
 * so in one line (the trust lines printed above did not happen) and returns false.
 */
export function saveTrust(cmd: FleetCommand, edit: TrustEdit | null): boolean {
  if (!edit) return true;
  try {
    edit.save();
    return true;
  } catch (e) {
    cmd.err(
      `fleet-git: could not write ${edit.file} (${e instanceof Error ? e.message : String(e)}): the trustedFolders changes above were not made`,
    );
    return false;
  }
}

/** Prints one repository's outcome (quiet: only what was left undone, each line with the path); returns true when something was. */
export function printOutcome(cmd: FleetCommand, o: Outcome, verb: string, quiet = false): boolean {
  if (quiet) {
    for (const n of o.notes) cmd.err(`${o.path}: ${n}`);
    return o.notes.length > 0;
  }
  if (o.changes.length === 0 && o.notes.length === 0) cmd.out(`${o.path}: already ${verb}, nothing changed`);
  else cmd.out(`${o.path}:`);
  // What was done, then what was left alone, then the notes that explain it: in reading order on a terminal, where both streams show.
  for (const c of o.changes) cmd.out(`  ${c}`);
  for (const n of o.notes) cmd.err(`  ${n}`);
  for (const n of o.info) cmd.out(`  note: ${n}`);
  return o.notes.length > 0;
}

/**
 * Prints one repository's plan, for --dry-run: what the real run would change
 * (`extra`: more lines of it, such as trustedFolders entries), as printOutcome
 * prints what it changed.
 */
export function printPlan(cmd: FleetCommand, p: Plan, verb: string, extra: string[] = []): void {
  const would = [...p.changes.map((c) => c.would), ...extra];
  if (would.length === 0 && p.notes.length === 0) cmd.out(`${p.path}: already ${verb}, nothing would change`);
  else cmd.out(`${p.path}: would`);
  for (const c of would) cmd.out(`  ${c}`);
  for (const n of p.notes) cmd.err(`  ${n}`);
  for (const n of p.info) cmd.out(`  note: ${n}`);
}

/**
 * A bulk run's report: one line per repository that changed or failed (what
 * failed or was left alone goes to stderr), and each note once, with the number
 * of repositories it applies to, at the end (2,000 repositories under husky got
 * 2,000 copies of the same note). Quiet: failures only (the caller prints the summary).
 */
export class BulkReport {
  /** Each note with the repository's path taken out, and the repositories it came from. */
  private readonly notes = new Map<string, { text: string; paths: string[] }>();

  constructor(
    private readonly out: LineBuffer,
    private readonly err: LineBuffer,
    private readonly verb: string,
    private readonly quiet = false,
  ) {}

  add(r: BulkResult): void {
    if (r.error !== undefined) {
      this.err.push(`${r.row.path}: failed: ${r.error}`);
      return;
    }
    const o = r.outcome!;
    if (o.changes.length && !this.quiet) this.out.push(`${o.path}: ${this.verb}`);
    for (const n of o.notes) this.err.push(`${o.path}: ${n}`);
    if (this.quiet) return;
    for (const n of o.info) {
      const key = n.split(o.path).join('\0');
      const seen = this.notes.get(key);
      if (seen) seen.paths.push(o.path);
      else this.notes.set(key, { text: n, paths: [o.path] });
    }
  }

  /** Prints the notes, each once: with its repository when it is one, else with their number. */
  finish(): void {
    for (const [key, { text, paths }] of this.notes) {
      if (paths.length === 1) this.out.push(`${paths[0]}: note: ${text}`);
      else this.out.push(`note, for ${paths.length} repositories (${paths[0]}, ...): ${key.split('\0').join('<repository>')}`);
    }
    this.notes.clear();
  }
}

/** A bulk run's summary counts, as its last line prints them. */
export function countsLine(c: BulkCounts): string {
  return `${c.changed} changed, ${c.unchanged} unchanged${c.leftAlone ? `, ${c.leftAlone} left partly alone` : ''}, ${c.failed} failed`;
}

// The bulk and discovery modules are loaded when a bulk command runs, not at start-up.
export const loadBulk = () => import('../core/bulk/bulk.js');

/** The roots as absolute paths (the current folder when none); a missing one is a usage error (exit 2). */
export async function rootsOf(args: string[], cwd: string): Promise<string[]> {
  return checkRoots(args, cwd); // a RootError is a UsageError: one line, exit 2
}

/** The roots as absolute paths; throws with one line for one that is missing or not a folder. */
export function checkRoots(args: string[], cwd: string): string[] {
  const roots = (args.length ? args : ['.']).map((a) => resolve(cwd, a));
  for (const r of roots) {
    let st;
    try {
      st = statSync(r);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new RootError(`${r}: ${code === 'ENOENT' ? 'no such folder' : code === 'EACCES' ? unreachableReason(r) : describeError(err)}`);
    }
    if (!st.isDirectory()) throw new RootError(`${r}: not a folder`);
  }
  return roots;
}

export class RootError extends UsageError {}

/** Lines written in large chunks: thousands of repositories make thousands of lines. */
export class LineBuffer {
  private lines: string[] = [];
  /** Called before each chunk is written (a progress line on the terminal clears itself first). */
  beforeWrite?: () => void;
  constructor(private readonly stream: { write(s: string): unknown }) {}
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= 512) this.flush();
  }
  flush(): void {
    if (this.lines.length) {
      this.beforeWrite?.();
      this.stream.write(`${this.lines.join('\n')}\n`);
    }
    this.lines = [];
  }
}

export function isTty(stream: unknown): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * Asks one question on stderr and reads one line of the answer from stdin;
 * null when the input ends first (Ctrl-D, which ends no line: what follows
 * then starts on a line of its own).
 */
export async function ask(context: Context, question: string): Promise<string | null> {
  const rl = createInterface({ input: context.stdin, output: context.stderr, terminal: false });
  context.stderr.write(question);
  const answer = await new Promise<string | null>((done) => {
    rl.once('line', done);
    rl.once('close', () => done(null));
  });
  rl.close();
  if (answer === null) context.stderr.write('\n');
  return answer;
}

/** Runs a walk with a progress line on stderr (see StatusLine), cleared however the walk ends. */
export async function withProgress<T>(context: Context, walk: (onProgress?: (n: number) => void) => Promise<T>): Promise<T> {
  const line = StatusLine.on(context, 0);
  try {
    return await walk(line ? (n) => line.show(`looking for repositories: ${n} folders read`) : undefined);
  } finally {
    line?.clear();
  }
}

/**
 * Runs a bulk run's changes (applyAll) with a progress line on stderr, `fleet-git: enable: 120 of 2000
 * repositories done, 1 failed`, redrawn at most every 100 ms, cleared before each chunk of the run's own
 * lines (`buffers`) and however the run ends. Only on a terminal, as the walk's line.
 */
export async function withApplyProgress<T>(
  context: Context,
  verb: string,
  buffers: LineBuffer[],
  run: (onProgress?: (done: number, failed: number, total: number) => void) => Promise<T>,
): Promise<T> {
  const line = StatusLine.on(context, 100);
  if (!line) return run();
  for (const b of buffers) b.beforeWrite = () => line.clear();
  try {
    return await run((done, failed, total) => line.show(`${verb}: ${done} of ${total} repositories done, ${failed} failed`));
  } finally {
    line.clear();
    for (const b of buffers) b.beforeWrite = undefined;
  }
}

/** One line on stderr replaced in place: only on a terminal, only once the work has taken 300 ms, at most every `gapMs`. */
export class StatusLine {
  private readonly start = Date.now();
  private last = 0;
  private shown = false;

  private constructor(
    private readonly stderr: Context['stderr'],
    private readonly gapMs: number,
  ) {}

  /** The line for this command's stderr, or null off a terminal. */
  static on(context: Context, gapMs: number): StatusLine | null {
    return isTty(context.stderr) ? new StatusLine(context.stderr, gapMs) : null;
  }

  show(text: string): void {
    const now = Date.now();
    if (now - this.start < 300 || (this.shown && now - this.last < this.gapMs)) return;
    this.last = now;
    this.shown = true;
    this.stderr.write(`\rfleet-git: ${text}\x1b[K`);
  }

  clear(): void {
    if (this.shown) this.stderr.write('\r\x1b[K');
    this.shown = false;
  }
}
