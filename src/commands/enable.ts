import { Option } from 'clipanion';
import { valueOption, listOption, operands } from './options.js';
import { ensureUserFiles, runContext, type RunContext } from '../core/repo/context.js';
import { actOnRepo } from '../core/repo/repo-lock.js';
import type { Plan } from '../core/repo/actions.js';
import { planJson } from '../core/repo/plan.js';
import type { RepoState } from '../core/repo/state.js';
import type { Row } from '../core/bulk/bulk.js';
import { GitRefusedError, locateRepo } from '../git/repo.js';
import { EXIT, FleetCommand, InputError, type ExitCodes } from './base.js';
import {
  BulkReport,
  countsLine,
  LineBuffer,
  loadBulk,
  printOutcome,
  printPlan,
  resolveRepos,
  rootsOf,
  saveTrust,
  withApplyProgress,
  withProgress,
} from './report.js';
import { fixFirst, TrustEdit, trustFolders, trustRoots } from '../copilot/trust.js';
import { loadUserConfig } from '../core/setup/user-config.js';
import { copilotView, installUserHooks } from '../core/setup/user-hooks.js';

export class EnableCommand extends FleetCommand {
  static paths = [['enable']];
  static exits: ExitCodes = {
    0: 'every repository enabled, or it already was (nothing changed)',
    1: 'something was left alone or failed: a hook file fleet-git did not write or one git tracks (--force replaces an untracked one), a symbolic link on the way, a folder it cannot write, a repository that failed in a --under run (the others go on), trustedFolders that could not be written',
    2: 'bad input: not a repository, a bare repository, one git refuses to work in (in its own words), a path to a file, a root that does not exist, --json without --dry-run, repositories and --under together, an invalid config file',
  };
  static usage = FleetCommand.Usage({
    description: 'make Copilot sessions in repositories visible in the fleet observer',
    details: `
      Writes .github/hooks/fleet.json into the repository and every worktree of it, keeps that file out of commits with the repository's info/exclude, and installs a git post-checkout hook so that new worktrees get it too. Running it again repairs whatever is missing or stale and otherwise changes nothing.

      A hook file that fleet-git did not write, or one that git tracks, is left alone, and so is the rest of the repository: no exclude line that would hide it from git status, no git hook (exit code 1); --force replaces an untracked one and keeps a copy that \`fleet-git disable\` puts back.

      --trust (or \`trust: true\` in the config file, see \`fleet-git config\`) also lists each repository in Copilot's trustedFolders ($COPILOT_HOME/config.json), keeping every other key and value of that file; with --under, in one write for the whole run. \`fleet-git disable\` and \`fleet-git remove\` take out only the entries fleet-git added.

      With --under, on a terminal, one line on stderr counts the folders read while it looks for repositories, then the repositories done out of the total and the failures so far while it changes them, each replaced in place and cleared before the summary; never off a terminal.
    `,
    examples: [
      ['Enable the repository of the current folder, trusted by Copilot so that copilot -p sessions run its hooks', '$0 enable --trust'],
      ['Enable it, leaving Copilot to ask whether you trust the folder', '$0 enable'],
      ['Enable two repositories', '$0 enable ~/code/api ~/code/web'],
      ['Enable every repository under ~/code but the archived ones', "$0 enable --under ~/code --exclude 'archive'"],
      ['Enable and trust every repository under ~/code', '$0 enable --under ~/code --trust'],
    ],
  });

  force = Option.Boolean('--force', false, {
    description: 'replace a hook file that fleet-git did not write (a copy is kept and restored by disable)',
  });
  under = valueOption('--under', 'ROOT', 'enable every repository found under this folder (as fleet-git scan finds them)');
  include = listOption(
    '--include',
    'GLOB',
    "with --under: only repositories whose path below it (or folder name) matches this glob (picomatch's: docs/how-it-works.md, Patterns)",
  );
  exclude = listOption('--exclude', 'GLOB', "with --under: skip folders matching this glob (picomatch's: docs/how-it-works.md, Patterns)");
  trust = Option.Boolean('--trust', false, {
    description:
      "also list the repository in Copilot's trustedFolders, so that copilot -p sessions run its hooks (disable takes it out again; the config file's trust: true does the same)",
  });
  quiet = Option.Boolean('-q,--quiet', false, {
    description: 'print only what failed or was left alone (and, with --under, the summary)',
  });
  user = Option.Boolean('--user', false, {
    description:
      'install the user-level hook file ($COPILOT_HOME/hooks/fleet.json): every folder reports; with no repository given, only that',
  });
  dryRun = Option.Boolean('--dry-run', false, { description: 'print what enable would change, change nothing' });
  json = Option.Boolean('--json', false, { description: 'with --dry-run: print the plans as one JSON document' });
  repos = operands('repo');

  async run(): Promise<number> {
    if (this.json && !this.dryRun) throw new InputError('--json goes with --dry-run (the plans as JSON)');
    if (this.dryRun && this.user) throw new InputError('--dry-run plans repositories: leave out --user');
    const ctx = runContext(this.context.env, this.context.home);
    if (this.user) {
      for (const line of ensureUserFiles(ctx, this.kit)) if (!this.quiet) this.out(line);
      const installed = installUserHooks(ctx);
      if (!this.quiet) this.out(installed ?? `the user-level hook file is already installed, nothing changed`);
      if (!this.repos.length && this.under === undefined) return EXIT.ok;
    }
    // The config file, read once, when its trust or scan.ignore counts (an invalid file: its one line, exit 2).
    const config = !this.trust || this.under !== undefined ? loadUserConfig(this.context.env, this.context.home).config : null;
    const trust = this.trust || config!.trust;
    if (this.under !== undefined) return this.runUnder(this.under, trust, ctx, config!.scan.ignore);
    if (this.include.length || this.exclude.length) throw new InputError('--include and --exclude go with --under ROOT');
    const repos = resolveRepos(this.repos, this.context.cwd).map(locateRepo);
    if (this.dryRun)
      return this.dry(
        repos.map((repo) => actOnRepo(repo, ctx, { do: 'enable', force: this.force }, true)),
        trust ? new TrustEdit(ctx.user) : null,
      );
    if (!this.user) for (const line of ensureUserFiles(ctx, this.kit)) if (!this.quiet) this.out(line);
    // Copilot's config.json: one edit, written once after all the repositories.
    const edit = trust ? new TrustEdit(ctx.user) : null;
    edit?.load(); // read before anything changes: one it cannot rewrite stops here, as with --under
    let code: number = EXIT.ok;
    const enabled: string[][] = [];
    for (const repo of repos) {
      const { state, outcome } = actOnRepo(repo, ctx, { do: 'enable', force: this.force });
      if (edit) outcome.changes.push(...trustFolders(edit, trustRoots(state)));
      if (printOutcome(this, outcome, 'enabled', this.quiet)) code = EXIT.partial;
      else enabled.push(trustRoots(state));
    }
    if (!edit && !this.quiet) this.untrustedNote(ctx, enabled, 'fleet-git enable --trust');
    return saveTrust(this, edit) ? code : EXIT.partial;
  }

  /**
   * One line, once, when Copilot does not trust some of the repositories just
   * enabled (`roots`: the folders of each): copilot -p sessions skip their hooks
   * with nothing said. Nothing when the user-level hook file reports them anyway.
   */
  private untrustedNote(ctx: RunContext, roots: string[][], how: string): void {
    if (!roots.length) return;
    const view = copilotView(ctx);
    if (view.userLevel) return;
    const untrusted = roots.filter((rs) => rs.some((r) => view.trusted.by(r) === null)).map((rs) => rs[0]);
    if (!untrusted.length) return;
    const which =
      untrusted.length === 1 && roots.length === 1
        ? 'this repository'
        : `${untrusted.length} of these repositories (${untrusted[0]}${untrusted.length > 1 ? ', ...' : ''})`;
    const then = view.configProblem
      ? fixFirst(view.configProblem, how)
      : `${how} lists ${untrusted.length === 1 ? 'it' : 'them'} in Copilot's trustedFolders`;
    this.out(
      `note: Copilot does not trust ${which} yet: copilot -p sessions skip its hooks, saying nothing, and interactive ones ask once; ${then}`,
    );
  }

  /** --dry-run: each repository's plan, and the trustedFolders entries it would add; nothing is written. */
  private dry(acted: { state: RepoState; plan: Plan }[], edit: TrustEdit | null, root?: string): number {
    edit?.load();
    const trustLines = (state: RepoState) =>
      edit
        ? trustRoots(state)
            .filter((r) => edit.add(r))
            .map((r) => `list ${r} in Copilot's trustedFolders in ${edit.file}`)
        : [];
    if (this.json) {
      const repos = acted.map(({ state, plan }) => ({
        ...planJson(plan),
        trust: edit ? trustRoots(state).filter((r) => edit.add(r)) : [],
      }));
      this.out(JSON.stringify({ ...(root !== undefined ? { roots: [root] } : {}), repos }, null, 2));
      return EXIT.ok;
    }
    for (const { state, plan } of acted) {
      const extra = trustLines(state);
      // A bulk run prints only the repositories it would change or leave alone.
      if (root === undefined || plan.changes.length || plan.notes.length || extra.length) printPlan(this, plan, 'enabled', extra);
    }
    this.out(
      `${root !== undefined ? `enable --under ${root}: ${acted.filter((a) => a.plan.changes.length).length} of ${acted.length} repositories would change; ` : ''}--dry-run: nothing was changed`,
    );
    return EXIT.ok;
  }

  /** Bulk enable: every repository under a folder, each on its own (a failure in one is reported and the rest go on), the per-user files put in place once. */
  private async runUnder(under: string, trust: boolean, ctx: RunContext, configIgnore: string[]): Promise<number> {
    if (this.repos.length) throw new InputError(`enable takes either repositories or --under ROOT, not both (${this.repos.join(' ')})`);
    const [root] = await rootsOf([under], this.context.cwd);
    const bulk = await loadBulk();
    const { ignoreMatcher } = await import('../core/bulk/discover.js');
    const hits = new Set<string>();
    // The real run reads each repository only under its lock (bulk-apply.ts): the survey finds them, and reads them for --dry-run.
    const s = await withProgress(this.context, (onProgress) =>
      bulk.survey([root], ctx, { ignore: [...configIgnore, ...this.exclude], ignoreHits: hits, onProgress }, this.dryRun),
    );
    const include = ignoreMatcher(this.include, hits);
    const exclude = ignoreMatcher(this.exclude, hits);
    const usable = (r: Row) => r.state || r.unread || r.unreadable;
    const wanted = s.rows.filter((r) => {
      if (!usable(r)) return false;
      const rel = r.path.startsWith(`${root}/`) ? r.path.slice(root.length + 1) : r.path;
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      // --exclude prunes the walk; it also drops a repository reached through a worktree elsewhere.
      if (exclude?.(rel, name)) return false;
      return !include || include(rel, name);
    });
    // A pattern that matched nothing is most likely a mistake: said once, the run goes on.
    for (const [opt, globs] of [
      ['--include', this.include],
      ['--exclude', this.exclude],
    ] as const) {
      for (const g of globs) if (!hits.has(g)) this.err(`fleet-git: ${opt} ${JSON.stringify(g)} matched nothing under ${root}`);
    }
    if (this.dryRun) {
      const { assessRepo } = await import('../core/repo/state.js');
      const { planAction } = await import('../core/repo/repo-lock.js');
      const acted = wanted
        .map((r) => {
          if (!r.state) {
            this.err(`${r.path}: cannot be read: ${r.reason}`);
            return null;
          }
          let state;
          try {
            state = assessRepo(r.state.repo, ctx);
          } catch (e) {
            if (!(e instanceof GitRefusedError)) throw e;
            this.err(`${r.path}: ${e.reason}`); // as the run would fail it
            return null;
          }
          return { state, plan: planAction(state, ctx, { do: 'enable', force: this.force }) };
        })
        .filter((a) => a !== null);
      return this.dry(acted, trust ? new TrustEdit(ctx.user) : null, root);
    }
    // Copilot's config.json is read before anything changes (one it cannot rewrite stops the run here) and written once, at the end.
    const edit = trust ? new TrustEdit(ctx.user) : null;
    edit?.load();
    const out = new LineBuffer(this.context.stdout);
    const err = new LineBuffer(this.context.stderr);
    for (const line of this.user ? [] : ensureUserFiles(ctx, this.kit)) if (!this.quiet) out.push(line);
    const report = new BulkReport(out, err, 'enabled', this.quiet);
    let trusted = 0;
    const enabledRoots: string[][] = [];
    const { applyAll } = await import('../core/bulk/bulk-apply.js');
    const { counts } = await withApplyProgress(this.context, 'enable', [out, err], (onProgress) =>
      applyAll(
        wanted,
        ctx,
        { do: 'enable', force: this.force },
        {
          onProgress,
          after: (o, where) => {
            if (!o.notes.length) enabledRoots.push(trustRoots(where));
            for (const root of edit ? trustRoots(where) : []) {
              if (edit!.add(root)) {
                trusted++;
                o.changes.push(
                  root === o.path ? `listed in Copilot's trustedFolders` : `listed its worktree ${root} in Copilot's trustedFolders`,
                );
              }
            }
          },
          onResult: (r) => report.add(r),
        },
      ),
    );
    report.finish();
    let trustFailed = false;
    if (edit && trusted) {
      try {
        edit.save();
        out.push(
          `Copilot now trusts ${trusted} more folder${trusted === 1 ? '' : 's'} (repositories and worktrees outside them; added to trustedFolders in ${edit.file})`,
        );
      } catch (e) {
        trustFailed = true;
        err.push(
          `fleet-git: could not write ${edit.file} (${bulk.reasonOf(e)}): none of the ${trusted} repositories was added to trustedFolders; run this again`,
        );
      }
    }
    out.flush(); // the note goes through this.out, after the lines so far
    if (!edit && !this.quiet) this.untrustedNote(ctx, enabledRoots, `fleet-git enable --under ${root} --trust`);
    const unusable = s.rows.filter((r) => !usable(r)).length;
    out.push(
      `enable: ${countsLine(counts)} (${wanted.length} repositor${wanted.length === 1 ? 'y' : 'ies'} under ${root}${unusable ? `; ${unusable} not usable, see fleet-git scan` : ''})`,
    );
    out.flush();
    err.flush();
    return trustFailed || counts.failed > 0 || counts.leftAlone > 0 ? EXIT.partial : EXIT.ok;
  }
}
