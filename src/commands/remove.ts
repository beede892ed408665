import { Option } from 'clipanion';
import { operands } from './options.js';
import { EXIT, FleetCommand, InputError, type ExitCodes } from './base.js';
import {
  ask,
  BulkReport,
  countsLine,
  isTty,
  LineBuffer,
  loadBulk,
  rootsOf,
  wayOutConfig,
  withApplyProgress,
  withProgress,
} from './report.js';
import { TrustEdit, trustRoots } from '../copilot/trust.js';
import type { Row } from '../core/bulk/bulk.js';
import { planDisable, type Plan } from '../core/repo/actions.js';
import { planJson } from '../core/repo/plan.js';

export class RemoveCommand extends FleetCommand {
  static paths = [['remove']];
  static exits: ExitCodes = {
    0: 'done: every repository with anything of fleet-git taken back, none had any, or the answer to the question was no',
    1: 'a repository failed or was left partly alone (the others go on), or trustedFolders could not be written',
    2: 'bad input: a root that does not exist, --json without --dry-run, more than one repository off a terminal without --yes',
  };
  static usage = FleetCommand.Usage({
    description: 'take fleet-git (and the upstream fleet hook file) out of every repository under some folders',
    details: `
      Finds the repositories under the folders as \`fleet-git scan\` does and, in each one (and its worktrees) that has anything of fleet-git or a hook file written by the upstream \`fleet hooks install\`, does what \`fleet-git disable\` does: the user's own files and hooks stay, a hook fleet-git had kept comes back byte for byte.

      --dry-run prints the plan and changes nothing; with --json, as one JSON document: {"roots", "repos": [{"path", "steps": [what disable would do, in words], "untrust": [trustedFolders entries fleet-git added that would go]} or {"path", "reason"} for one it cannot act on], "counts": {"targets", "untouched"}}. Off a terminal it acts on more than one repository only with --yes; on a terminal it asks first. A repository that fails (a read-only folder, a git process holding a lock, an unreadable file) is reported with the reason and the others go on; the exit code is then 1. On a terminal, one line on stderr counts the folders read, then the repositories done out of the total and the failures so far, replaced in place and cleared before the summary; never off a terminal.
    `,
    examples: [
      ['See what would be removed under ~/code', '$0 remove ~/code --dry-run'],
      ['The plan as JSON', '$0 remove ~/code --dry-run --json'],
      ['Remove it, without a question', '$0 remove ~/code --yes'],
    ],
  });

  dryRun = Option.Boolean('--dry-run', false, { description: 'print the plan, change nothing' });
  yes = Option.Boolean('--yes', false, { description: 'act on every repository found without asking' });
  quiet = Option.Boolean('-q,--quiet', false, { description: 'print only what failed or was left alone, and the summary' });
  json = Option.Boolean('--json', false, { description: 'with --dry-run: print the plan as one JSON document' });
  roots = operands('root', 1);
  /** Set by uninstall, which gives the recorded repositories as the roots: where they are, in words, for the summary (default: under the roots). */
  where: string | undefined = undefined;

  /** remove run by another command (disable --under, uninstall), as clipanion would run it with `opts`: made outside clipanion, it has its options' markers as values, so each is set. */
  static runFor(by: FleetCommand, opts: Partial<RemoveCommand> & { roots: string[] }): Promise<number> {
    const { context, cli, color } = by;
    const options = { dryRun: false, json: false, yes: false, quiet: false };
    return Object.assign(new RemoveCommand(), { context, cli, color, ...options, ...opts }).run();
  }

  async run(): Promise<number> {
    if (this.json && !this.dryRun)
      throw new InputError('--json goes with --dry-run (the plan as JSON); remove itself prints one line per repository');
    const roots = await rootsOf(this.roots, this.context.cwd);
    const ignore = wayOutConfig(this).config.scan.ignore; // an invalid file: said once, the defaults used
    const [bulk, { runContext }] = await Promise.all([loadBulk(), import('../core/repo/context.js')]);
    const ctx = runContext(this.context.env, this.context.home);
    // With --yes nothing is asked or printed before the run: the survey only finds the repositories, and each is read
    // by a helper thread, once without its lock to learn whether it has anything to remove, then under it (bulk-apply.ts).
    const lazy = this.yes && !this.dryRun;
    const s = await withProgress(this.context, (onProgress) => bulk.survey(roots, ctx, { ignore, onProgress }, !lazy));
    // Copilot's trustedFolders entries that fleet-git added go too (one write at the end).
    const edit = new TrustEdit(ctx.user);
    // The folders of a repository (and its worktrees) that fleet-git listed in trustedFolders.
    const listedOf = (where: Parameters<typeof trustRoots>[0]) => trustRoots(where).filter((root) => edit.listed(root));
    // disable's plan for each repository as the survey read it: what --dry-run prints, and (unless the
    // repository is enabled) whether there is anything to remove; the real run plans again under the lock.
    const plans = new Map<Row, Plan>();
    const planOf = (r: Row): Plan => {
      let p = plans.get(r);
      if (!p) plans.set(r, (p = planDisable(r.state!, { upstream: true })));
      return p;
    };
    const ours = (r: Row) => r.state !== null && (bulk.hasFleetState(r.state, () => planOf(r)) || listedOf(r.state).length > 0);
    // A repository whose state cannot be read is a target too: it fails with its reason.
    const targets: Row[] = [];
    let untouched = 0;
    for (const r of s.rows) {
      if (r.unread || ours(r) || r.unreadable) targets.push(r);
      else if (r.state) untouched++;
    }
    const out = new LineBuffer(this.context.stdout);
    const err = new LineBuffer(this.context.stderr);
    const foundLine = (n: number, of: number) =>
      `${n} of ${of} repositor${of === 1 ? 'y' : 'ies'} ${this.where ?? `under ${s.roots.join(', ')}`} ha${n === 1 ? 's' : 've'} fleet-git or upstream fleet files`;
    const found = foundLine(targets.length, targets.length + untouched);

    if (this.dryRun && this.json) {
      const repos = targets.map((r) => {
        if (!r.state) return { path: r.path, reason: r.reason };
        const p = planOf(r);
        return {
          path: r.path,
          steps: p.changes.map((c) => c.would),
          untrust: listedOf(r.state),
          changes: planJson(p).changes,
          notes: p.notes,
          info: p.info,
        };
      });
      this.out(JSON.stringify({ roots: s.roots, repos, counts: { targets: targets.length, untouched } }, null, 2));
      return EXIT.ok;
    }
    if (this.dryRun) {
      for (const r of targets) {
        if (!r.state) {
          out.push(`${r.path}: cannot act here: ${r.reason}`);
          continue;
        }
        const p = planOf(r);
        out.push(`${r.path}: would`);
        for (const c of p.changes) out.push(`  ${c.would}`);
        for (const root of listedOf(r.state))
          out.push(`  take ${root === r.path ? 'it' : root} out of Copilot's trustedFolders in ${edit.file} (fleet-git had added it)`);
        for (const n of p.info) out.push(`  note: ${n}`);
        for (const n of p.notes) out.push(`  ${n}`);
      }
      out.push(`${found}; --dry-run: nothing was changed`);
      out.flush();
      return EXIT.ok;
    }
    if (targets.length > 1 && !this.yes) {
      if (!isTty(this.context.stdin) || !isTty(this.context.stderr)) {
        throw new InputError(
          `remove would change ${targets.length} repositories and asks first: add --yes to go ahead (--dry-run shows the plan)`,
        );
      }
      // Anything but y or yes is no.
      if (!/^\s*y(es)?\s*$/i.test((await ask(this.context, `${found}. Remove it from all ${targets.length}? [y/N] `)) ?? '')) {
        this.err('fleet-git: nothing was changed');
        return EXIT.ok;
      }
    }
    let trustError: string | null = null;
    let untrusted = 0;
    const { applyAll } = await import('../core/bulk/bulk-apply.js');
    const report = new BulkReport(out, err, 'removed', this.quiet);
    const applied = await withApplyProgress(this.context, 'remove', [out, err], (onProgress) =>
      applyAll(
        targets,
        ctx,
        { do: 'disable', upstream: true },
        {
          onProgress,
          ...(lazy ? { pick: { listed: edit.recorded() } } : {}),
          after: (o, where) => {
            for (const root of trustError === null ? listedOf(where) : []) {
              try {
                if (edit.remove(root)) {
                  untrusted++;
                  o.changes.push(
                    `${root === o.path ? '' : `its worktree ${root} `}taken out of Copilot's trustedFolders (fleet-git had added it)`,
                  );
                }
              } catch (e) {
                trustError = bulk.reasonOf(e); // config.json cannot be rewritten: said once, below
              }
            }
          },
          onResult: (r) => report.add(r),
        },
      ),
    );
    report.finish();
    const counts = applied.counts;
    untouched += applied.untouched; // rows not read by the survey, found to have nothing to remove
    counts.unchanged += untouched;
    if (trustError === null) {
      try {
        edit.save();
        if (untrusted)
          out.push(`took ${untrusted} entr${untrusted === 1 ? 'y' : 'ies'} fleet-git had added out of trustedFolders in ${edit.file}`);
      } catch (e) {
        trustError = `could not write ${edit.file} (${bulk.reasonOf(e)}): the ${untrusted} entr${untrusted === 1 ? 'y' : 'ies'} fleet-git added stay in trustedFolders; run this again`;
      }
    } else trustError = `${trustError}; the entries fleet-git added stay in trustedFolders`;
    if (trustError !== null) err.push(`fleet-git: ${trustError}`);
    out.push(
      `remove: ${countsLine(counts)} (${foundLine(targets.length - applied.untouched, targets.length - applied.untouched + untouched)})`,
    );
    out.flush();
    err.flush();
    return trustError !== null || counts.failed > 0 || counts.leftAlone > 0 ? EXIT.partial : EXIT.ok;
  }
}
