import { Option } from 'clipanion';
import { operands, valueOption } from './options.js';
import { runContext } from '../core/repo/context.js';
import { actOnRepo } from '../core/repo/repo-lock.js';
import { locateRepo } from '../git/repo.js';
import { EXIT, FleetCommand, InputError, type ExitCodes } from './base.js';
import { printOutcome, printPlan, resolveRepos, saveTrust } from './report.js';
import { planJson } from '../core/repo/plan.js';
import type { RepoState } from '../core/repo/state.js';
import { TrustEdit, trustRoots } from '../copilot/trust.js';
import { removeUserHooks } from '../core/setup/user-hooks.js';

export class DisableCommand extends FleetCommand {
  static paths = [['disable']];
  static exits: ExitCodes = {
    0: 'fleet-git taken out, or nothing of it was there',
    1: 'something was left alone or failed: a symbolic link on the way, a folder it cannot write, trustedFolders that could not be written',
    2: 'bad input: not a repository, one git refuses to work in (in its own words), a path to a file, --json without --dry-run, --dry-run with --user, --yes without --under (with --under: as remove)',
  };
  static usage = FleetCommand.Usage({
    description: 'take fleet-git out of repositories, leaving them as they were',
    details: `
      Undoes exactly what \`fleet-git enable\` did, in the main worktree and every linked one: removes the hook file where fleet-git wrote it (a file someone else made stays), the info/exclude block and the post-checkout hook, puts back a hook that fleet-git had kept running before its own, and removes folders only when fleet-git created them and they are empty.

      --under ROOT, the way back from \`enable --under ROOT\`, is \`fleet-git remove ROOT\`: every repository under ROOT, the upstream fleet hook file included, asking first on a terminal (--yes: without asking), its output and exit codes those of remove.
    `,
    examples: [
      ['Disable the repository of the current folder', '$0 disable'],
      ['Disable every repository under ~/code, without a question', '$0 disable --under ~/code --yes'],
    ],
  });

  user = Option.Boolean('--user', false, {
    description:
      'remove the user-level hook file ($COPILOT_HOME/hooks/fleet.json) if fleet-git wrote it; with no repository given, only that',
  });
  under = valueOption('--under', 'ROOT', 'disable every repository found under this folder: fleet-git remove ROOT');
  yes = Option.Boolean('--yes', false, { description: 'with --under: act on every repository found without asking' });
  quiet = Option.Boolean('-q,--quiet', false, { description: 'print only what failed or was left alone (with --under: and the summary)' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'print what disable would change, change nothing' });
  json = Option.Boolean('--json', false, { description: 'with --dry-run: print the plans as one JSON document' });
  repos = operands('repo');

  async run(): Promise<number> {
    if (this.json && !this.dryRun) throw new InputError('--json goes with --dry-run (the plans as JSON)');
    if (this.dryRun && this.user) throw new InputError('--dry-run plans repositories: leave out --user');
    const ctx = runContext(this.context.env, this.context.home);
    if (this.user) {
      const { change, note } = removeUserHooks(ctx);
      if (note) this.err(note);
      else if (!this.quiet) this.out(change ?? 'the user-level hook file is not installed, nothing changed');
      if (!this.repos.length && this.under === undefined) return note ? EXIT.partial : EXIT.ok;
    }
    if (this.under !== undefined) return this.runUnder(this.under);
    if (this.yes) throw new InputError('--yes goes with --under ROOT');
    const repos = resolveRepos(this.repos, this.context.cwd).map(locateRepo);
    // Copilot's config.json: one edit, written once after all the repositories.
    const edit = new TrustEdit(ctx.user);
    if (this.dryRun) {
      const acted = repos.map((repo) => actOnRepo(repo, ctx, { do: 'disable', upstream: false }, true));
      const untrust = (state: RepoState) => trustRoots(state).filter((root) => edit.remove(root));
      if (this.json) {
        this.out(JSON.stringify({ repos: acted.map(({ state, plan }) => ({ ...planJson(plan), untrust: untrust(state) })) }, null, 2));
        return EXIT.ok;
      }
      for (const { state, plan } of acted)
        printPlan(
          this,
          plan,
          'disabled',
          untrust(state).map((root) => `take ${root} out of trustedFolders in ${edit.file} (fleet-git had added it)`),
        );
      this.out('--dry-run: nothing was changed');
      return EXIT.ok;
    }
    let code: number = EXIT.ok;
    for (const repo of repos) {
      const { state, outcome } = actOnRepo(repo, ctx, { do: 'disable', upstream: false });
      for (const root of trustRoots(state)) {
        if (edit.remove(root)) outcome.changes.push(`removed ${root} from trustedFolders in ${edit.file} (fleet-git had added it)`);
      }
      if (printOutcome(this, outcome, 'disabled', this.quiet)) code = EXIT.partial;
    }
    return saveTrust(this, edit) ? code : EXIT.partial;
  }

  /** --under ROOT: what remove ROOT does, as clipanion would run it (a RemoveCommand given the options). */
  private async runUnder(under: string): Promise<number> {
    if (this.repos.length) throw new InputError(`disable takes either repositories or --under ROOT, not both (${this.repos.join(' ')})`);
    const { RemoveCommand } = await import('./remove.js');
    const { dryRun, json, yes, quiet } = this;
    return RemoveCommand.runFor(this, { roots: [under], dryRun, json, yes, quiet });
  }
}
