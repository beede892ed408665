import { Option } from 'clipanion';
import { enableRepo } from '../core/actions.js';
import { ensureUserFiles, runContext } from '../core/context.js';
import { assessRepo } from '../core/state.js';
import { locateRepo } from '../git/repo.js';
import { EXIT, FleetCommand } from './base.js';
import { printOutcome, resolveRepos } from './report.js';

export class EnableCommand extends FleetCommand {
  static paths = [['enable']];
  static usage = FleetCommand.Usage({
    description: 'make Copilot sessions in repositories visible in the fleet observer',
    details: `
      Writes .github/hooks/fleet.json into the repository and every worktree of it, keeps that file out of commits with the repository's info/exclude, and installs a git post-checkout hook so that new worktrees get it too. Running it again repairs whatever is missing or stale and otherwise changes nothing.

      A hook file that fleet-git did not write, or one that git tracks, is left alone (exit code 1); --force replaces an untracked one and keeps a copy that \`fleet-git disable\` puts back.
    `,
    examples: [
      ['Enable the repository of the current folder', '$0 enable'],
      ['Enable two repositories', '$0 enable ~/code/api ~/code/web'],
    ],
  });

  force = Option.Boolean('--force', false, { description: 'replace a hook file that fleet-git did not write (a copy is kept and restored by disable)' });
  repos = Option.Rest({ name: 'repo' });

  async run(): Promise<number> {
    const ctx = runContext(this.context.env, this.context.home);
    const repos = resolveRepos(this.repos, this.context.cwd).map(locateRepo);
    for (const line of ensureUserFiles(ctx)) this.out(line);
    let code: number = EXIT.ok;
    for (const repo of repos) {
      const outcome = enableRepo(assessRepo(repo, ctx), ctx, { force: this.force });
      if (printOutcome(this, outcome, 'enabled')) code = EXIT.partial;
    }
    return code;
  }
}
