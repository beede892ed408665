// Printing shared by the commands: outcomes of actions, repository arguments.
import { resolve } from 'node:path';
import type { Outcome } from '../core/actions.js';
import type { LineBuffer } from '../core/bulk.js';
import type { BulkResult } from '../core/bulk-apply.js';
import type { FleetCommand } from './base.js';

/** The repositories named on the command line, or the current folder's. */
export function resolveRepos(args: string[], cwd: string): string[] {
  return args.length ? args.map((a) => resolve(cwd, a)) : [cwd];
}

/** Prints one repository's outcome; returns true when something was left undone. */
export function printOutcome(cmd: FleetCommand, o: Outcome, verb: string): boolean {
  if (o.changes.length === 0 && o.notes.length === 0) cmd.out(`${o.path}: already ${verb}, nothing changed`);
  else cmd.out(`${o.path}:`);
  for (const c of o.changes) cmd.out(`  ${c}`);
  for (const n of o.info) cmd.out(`  note: ${n}`);
  for (const n of o.notes) cmd.err(`  ${n}`);
  return o.notes.length > 0;
}

/** Prints one repository's result in a bulk run: only what changed, failed or was left alone. */
export function printBulkResult(out: LineBuffer, err: LineBuffer, r: BulkResult, verb: string): void {
  if (r.error !== undefined) {
    err.push(`${r.row.path}: failed: ${r.error}`);
    return;
  }
  const o = r.outcome!;
  if (o.changes.length) out.push(`${o.path}: ${verb}`);
  for (const c of o.changes) out.push(`  ${c}`);
  for (const n of o.info) out.push(`  note: ${n}`);
  for (const n of o.notes) err.push(`${o.path}: ${n}`);
}
