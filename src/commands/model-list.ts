import { Option } from 'clipanion';
import { copilotProfiles, readProfiles } from '../copilot/profiles.js';
import { userPaths } from '../paths.js';
import { EXIT, FleetCommand, type ExitCodes } from './base.js';

export class ModelListCommand extends FleetCommand {
  static paths = [['model', 'list']];
  static exits: ExitCodes = {
    0: 'the profiles listed (none is not an error)',
    2: 'an invalid models.json',
  };
  static usage = FleetCommand.Usage({
    description: "list the Copilot profiles of fleet's models.json",
    details: `
      The entries of ~/.config/claude-code-fleet/models.json with "tool": "copilot": their names, models and whether a token is set (never the token). \`fleet-git run --model NAME\` starts one.
    `,
    examples: [['List the profiles', '$0 model list']],
  });

  json = Option.Boolean('--json', false, { description: 'print one JSON document' });

  async run(): Promise<number> {
    const file = userPaths(this.context.env, this.context.home).fleetModels;
    const all = readProfiles(file); // a ProfilesError: one line, exit 2
    const mine = copilotProfiles(all);
    const rows = mine.map((p) => ({ name: p.name, model: p.model, token: p.apiKey !== null, proxy: p.proxy !== null }));
    if (this.json) {
      this.out(JSON.stringify(rows, null, 2));
      return EXIT.ok;
    }
    if (rows.length === 0) {
      this.out(`no Copilot model profiles in ${file}${all.length ? ` (${all.length} for other tools)` : ''}`);
      return EXIT.ok;
    }
    const w = Math.max(4, ...rows.map((r) => r.name.length));
    const m = Math.max(5, ...rows.map((r) => (r.model ?? '-').length));
    this.out(`${'NAME'.padEnd(w)}  ${'MODEL'.padEnd(m)}  TOKEN`);
    for (const r of rows) this.out(`${r.name.padEnd(w)}  ${(r.model ?? '-').padEnd(m)}  ${r.token ? 'set' : 'not set'}`);
    const others = all.length - mine.length;
    if (others) this.out(`(${others} profile${others > 1 ? 's' : ''} for other tools not shown)`);
    return EXIT.ok;
  }
}
