import { Option } from 'clipanion';
import { disableRepo } from '../core/actions.js';
import { runContext } from '../core/context.js';
import { assessRepo } from '../core/state.js';
import { locateRepo } from '../git/repo.js';
import { EXIT, FleetCommand } from './base.js';
import { printOutcome, resolveRepos } from './report.js';

export class DisableCommand extends FleetCommand {
  static paths = [['disable']];
  static usage = FleetCommand.Usage({
    description: 'take fleet-git out of repositories, leaving them as they were',
    details: `
      Undoes exactly what \`fleet-git enable\` did, in the main worktree and every linked one: removes the hook file where fleet-git wrote it (a file someone else made stays), the info/exclude block and the post-checkout hook, puts back a hook that fleet-git had kept running before its own, and removes folders only when fleet-git created them and they are empty.
    `,
    examples: [['Disable the repository of the current folder', '$0 disable']],
  });

  repos = Option.Rest({ name: 'repo' });

  async run(): Promise<number> {
    const ctx = runContext(this.context.env, this.context.home);
    const repos = resolveRepos(this.repos, this.context.cwd).map(locateRepo);
    let code: number = EXIT.ok;
    for (const repo of repos) {
      if (printOutcome(this, disableRepo(assessRepo(repo, ctx)), 'disabled')) code = EXIT.partial;
    }
    return code;
  }
}
