import { Option } from 'clipanion';
import { operand } from './options.js';
import { runContext } from '../core/repo/context.js';
import { LEGACY_SUFFIX } from '../core/repo/git-hook.js';
import { setupState } from '../core/setup/setup.js';
import { loadUserConfig } from '../core/setup/user-config.js';
import { assessRepo, isHealthy, provisioningLine, stateJson, type RepoState } from '../core/repo/state.js';
import { locateRepo } from '../git/repo.js';
import { EXIT, FleetCommand, type ExitCodes } from './base.js';
import { resolveRepos } from './report.js';
import { trustLine } from '../copilot/trust.js';
import { copilotJson, copilotView, userLevelLine, vscodeLine } from '../core/setup/user-hooks.js';

export class StatusCommand extends FleetCommand {
  static paths = [['status']];

  static refreshesKit = false; // it only reads: the kit is left as it is (a command that changes things replaces it)
  static exits: ExitCodes = {
    0: 'whatever it found (the problems are in the output)',
    1: "the repository's .git cannot be read (the line says what to check)",
    2: 'not a repository, one git refuses to work in (in its own words), a path to a file, an invalid config file (one line: the file, the line and what is wrong)',
  };
  static usage = FleetCommand.Usage({
    description: "show a repository's fleet state and what is wrong with it",
    details: `
      For the repository and each of its worktrees: whether it is enabled, the hook file (present, fleet-git's, current or stale), the info/exclude entry, the post-checkout hook (installed, missing, displaced by another tool, or unable to run because of core.hooksPath) and whether git tracks the hook file; then whether Copilot trusts the repository (copilot -p sessions skip an untrusted repository's hooks silently) and which fleet hook file reports it: the repository's, the user-level one, both (each event is still sent once) or none. Last, whether VS Code's agent sessions show (VS Code runs the same hook files; the config file's \`vscode: false\` keeps them out). --json adds the first two as "copilot": {"trusted", "hooks": "repo"|"user"|"both"|"none"} (doctor --json has the third, its check "vscode").
    `,
    examples: [
      ['The repository of the current folder', '$0 status'],
      ['As JSON', '$0 status --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'print one JSON document' });
  repo = operand('repo');

  async run(): Promise<number> {
    // The config file (its vscode key shows below): an invalid one stops here with its one line, as with enable and scan.
    loadUserConfig(this.context.env, this.context.home);
    const ctx = runContext(this.context.env, this.context.home);
    const [path] = resolveRepos(this.repo ? [this.repo] : [], this.context.cwd);
    const state = assessRepo(locateRepo(path), ctx);
    const copilot = copilotView(ctx);
    if (this.json) this.out(JSON.stringify({ ...stateJson(state), copilot: copilotJson(copilot, state) }, null, 2));
    else {
      this.printText(state);
      this.out(`  ${userLevelLine(ctx, copilot.userHook)}`);
      this.out(`  ${trustLine(copilot, state.path)}`);
      this.out(`  ${vscodeLine(ctx, copilot)}`);
    }
    return EXIT.ok;
  }

  private printText(s: RepoState): void {
    const verdict = isHealthy(s) ? 'enabled' : s.enabled ? 'enabled, with problems' : 'not enabled';
    this.out(`${s.path}: ${verdict}`);
    for (const p of s.problems) this.out(`  - ${p.message}`);
    for (const w of s.worktrees) {
      this.out(`  worktree ${w.path}: ${w.enabled ? (w.problems.length ? 'enabled, with problems' : 'enabled') : 'not enabled'}`);
      for (const p of w.problems) this.out(`    - ${p.message}`);
    }
    if (s.enabled && s.gitHook?.kind === 'ours' && s.gitHook.spot.endsWith(LEGACY_SUFFIX))
      this.out(`  the post-checkout hook is pre-commit's: fleet-git's is ${s.gitHook.spot}, which pre-commit's runs first`);
    const provisioning = s.enabled ? provisioningLine(s) : null;
    if (provisioning) this.out(`  ${provisioning}`);
    if (!s.enabled) this.out('  run fleet-git enable to make its Copilot sessions visible in the fleet observer');
    this.out(`  new clones (fleet-git setup): ${setupState(this.context.env, this.context.home).message}`);
  }
}
