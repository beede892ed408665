import { Option } from 'clipanion';
import { runContext } from '../core/context.js';
import { actOnRepo } from '../core/repo-lock.js';
import { locateRepo } from '../git/repo.js';
import { EXIT, FleetCommand } from './base.js';
import { printOutcome, resolveRepos, saveTrust } from './report.js';
import { TrustEdit, trustRoots } from '../copilot/trust.js';
import { removeUserHooks } from '../core/user-hooks.js';

export class DisableCommand extends FleetCommand {
  static paths = [['disable']];
  static usage = FleetCommand.Usage({
    description: 'take fleet-git out of repositories, leaving them as they were',
    details: `
      Undoes exactly what \`fleet-git enable\` did, in the main worktree and every linked one: removes the hook file where fleet-git wrote it (a file someone else made stays), the info/exclude block and the post-checkout hook, puts back a hook that fleet-git had kept running before its own, and removes folders only when fleet-git created them and they are empty.
    `,
    examples: [['Disable the repository of the current folder', '$0 disable']],
  });

  user = Option.Boolean('--user', false, { description: 'remove the user-level hook file ($COPILOT_HOME/hooks/fleet.json) if fleet-git wrote it; with no repository given, only that' });
  repos = Option.Rest({ name: 'repo' });

  async run(): Promise<number> {
    const ctx = runContext(this.context.env, this.context.home);
    if (this.user) {
      const { change, note } = removeUserHooks(ctx);
      if (note) this.err(note);
      else this.out(change ?? 'the user-level hook file is not installed, nothing changed');
      if (!this.repos.length) return note ? EXIT.partial : EXIT.ok;
    }
    const repos = resolveRepos(this.repos, this.context.cwd).map(locateRepo);
    // Copilot's config.json: one edit, written once after all the repositories.
    const edit = new TrustEdit(ctx.user);
    let code: number = EXIT.ok;
    for (const repo of repos) {
      const { state, outcome } = actOnRepo(repo, ctx, { do: 'disable', upstream: false });
      for (const root of trustRoots(state)) {
        if (edit.remove(root)) outcome.changes.push(`removed ${root} from trustedFolders in ${edit.file} (fleet-git had added it)`);
      }
      if (printOutcome(this, outcome, 'disabled')) code = EXIT.partial;
    }
    return saveTrust(this, edit) ? code : EXIT.partial;
  }
}
