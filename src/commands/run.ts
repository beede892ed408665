import { resolve } from 'node:path';
import { valueOption, operands } from './options.js';
import { CopilotAdapter } from '../core/adapter.js';
import type { ModelProfile } from '../copilot/profiles.js';
import { runContext } from '../core/repo/context.js';
import { chooseProfile, findCopilot, prepareRepo, runCopilot } from '../core/session/run.js';
import { FleetCommand, type ExitCodes } from './base.js';
import { ask, isTty } from './report.js';

export class RunCommand extends FleetCommand {
  static paths = [['run']];
  static exits: ExitCodes = {
    0: "Copilot's own exit code, whatever it is, is fleet-git's (128 + the signal's number when a signal ended it)",
    2: 'bad input: no Copilot on PATH, no Copilot profile in models.json or several and none chosen, an invalid models.json',
  };
  static usage = FleetCommand.Usage({
    description: 'start a Copilot session under a fleet model profile, visible in the fleet observer',
    details: `
      Reads the Copilot profiles of fleet's models.json (~/.config/claude-code-fleet/models.json, entries with "tool": "copilot"), makes sure the repository of the working folder is enabled and trusted by Copilot (so that copilot -p sessions run its hooks too), then starts \`copilot --allow-all\` with the profile's arguments and environment (FLEET_MODEL_NAME, COPILOT_MODEL, COPILOT_GITHUB_TOKEN, the profile's env). Arguments after -- go to copilot. The session owns the terminal; fleet-git passes SIGINT, SIGTERM and SIGHUP on and exits with Copilot's exit code.

      With several Copilot profiles and no --model, a terminal user picks one from a list; elsewhere that is an error naming them.
    `,
    examples: [
      ['Start the only Copilot profile', '$0 run'],
      ['A named profile, one prompt', '$0 run --model work-gpt -- -p "list the files"'],
    ],
  });

  model = valueOption('--model', 'NAME', 'the profile to run (its name in models.json)');
  cwd = valueOption('--cwd', 'DIR', 'the folder to start Copilot in (default: the current one)');
  proxy = valueOption('--proxy', 'URL', 'an HTTP(S) proxy URL for Copilot (sets HTTP_PROXY and HTTPS_PROXY)');
  rest = operands('copilot-args');

  async run(): Promise<number> {
    const ctx = runContext(this.context.env, this.context.home);
    const cwd = resolve(this.context.cwd, this.cwd ?? '.');
    const passthrough = this.rest;
    const bin = findCopilot(this.context.env);
    const stdin = this.context.stdin as NodeJS.ReadStream;
    const onTty = isTty(stdin);
    const profile = await chooseProfile(ctx.user.fleetModels, this.model, onTty ? (list) => this.pick(list) : null);
    for (const line of prepareRepo(ctx, cwd, this.kit)) this.err(`fleet-git: ${line}`);
    const adapter = new CopilotAdapter({ env: this.context.env });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(adapter.buildEnv(profile, this.context.env))) if (v !== undefined) env[k] = v;
    const proxy = this.proxy ?? profile.proxy;
    if (proxy) env.HTTP_PROXY = env.HTTPS_PROXY = proxy;
    return runCopilot(bin, [...adapter.buildArgs(profile), ...passthrough], env, cwd, !onTty);
  }

  private async pick(list: ModelProfile[]): Promise<ModelProfile | null> {
    this.err('Copilot model profiles:');
    list.forEach((p, i) => this.err(`  ${i + 1}. ${p.name}${p.model ? ` (${p.model})` : ''}`));
    const t = ((await ask(this.context, `Pick one [1-${list.length}]: `)) ?? '').trim();
    const n = Number(t);
    return (Number.isInteger(n) && n >= 1 && n <= list.length ? list[n - 1] : list.find((p) => p.name === t)) ?? null;
  }
}
