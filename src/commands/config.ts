import { Option } from 'clipanion';
import { valueOption } from './options.js';
import { isCloneIncluded } from '../core/repo/clone-rules.js';
import { physical } from '../fs/read.js';
import { CONFIG_KEYS, configValue, loadUserConfig } from '../core/setup/user-config.js';
import { expandHome } from '../paths.js';
import { resolve } from 'node:path';
import { EXIT, FleetCommand, type ExitCodes } from './base.js';

export class ConfigCommand extends FleetCommand {
  static paths = [['config']];

  static refreshesKit = false; // it only reads: the kit is left as it is (a command that changes things replaces it)
  static exits: ExitCodes = {
    0: 'the configuration shown, or --test answered',
    2: 'the config file is invalid (one line: the file, the line and what is wrong)',
  };
  static usage = FleetCommand.Usage({
    description: 'show the effective user configuration and where each value comes from',
    details: `
      Reads \${XDG_CONFIG_HOME:-~/.config}/fleet-git/config.json5 (JSON5: comments allowed). Keys: \`include\` and \`exclude\`, globs on a new clone's absolute path deciding which clones \`fleet-git setup\` provisions (default: every clone); \`scan.roots\`, the folders \`fleet-git scan\` walks when given none (~ is the home folder; when the file does not set it, scan with no folder lists the repositories fleet-git recorded); \`scan.ignore\`, globs for folders that scan, enable --under and remove skip, besides node_modules and what --ignore or --exclude name; \`trust\`, true or false (default false): when true, \`fleet-git enable\` (one repository or --under ROOT) also lists each repository in Copilot's trustedFolders, as --trust does, so that copilot -p sessions run its hooks (new worktrees and clones provisioned by git hooks are not added). \`vscode\`, true or false (default true): VS Code's agent runs the same hook files, and its sessions show as cards marked VSCode; false keeps them out (the forwarder reads it at each VS Code event, so it takes effect at once).

      Clone globs (include, exclude) are picomatch globs, as --include, --exclude and --ignore are, on the clone's absolute path: \`~/\` is the home folder, \`*\` stays within one folder name, \`**\` spans folders, \`[a-z]\` and \`{a,b}\` work, and a glob covers the folder it matches and everything below it. A glob not starting with \`/\`, \`~/\` or \`**/\` is refused. Exactly what a pattern matches: docs/how-it-works.md, Patterns.

      An invalid file is reported in one line (file, line, what is wrong), the same by every command that reads it: config, enable, scan, setup and status stop there (exit 2), doctor counts it a failed check, and the way out (remove, uninstall) uses the defaults, saying so once. --test PATH tells whether a clone at PATH would be provisioned.
    `,
    examples: [
      ['Show the configuration', '$0 config'],
      ['As JSON', '$0 config --json'],
      ['Would a clone in ~/code/work/api be provisioned?', '$0 config --test ~/code/work/api'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'print one JSON document' });
  test = valueOption('--test', 'PATH', 'tell whether a clone at this path would be provisioned');

  async run(): Promise<number> {
    const { env, home } = this.context;
    const loaded = loadUserConfig(env, home);
    if (this.test !== undefined) {
      const p = physical(resolve(this.context.cwd, expandHome(this.test, physical(home)))); // as it is: a clone not made yet
      const yes = isCloneIncluded(loaded.config, p, home);
      if (this.json) this.out(JSON.stringify({ path: p, included: yes }));
      else
        this.out(`${p}: ${yes ? 'included: a new clone here gets fleet-git' : 'not included: a new clone here is left as git makes it'}`);
      return EXIT.ok;
    }
    if (this.json) {
      const doc: Record<string, unknown> = { file: loaded.file, exists: loaded.exists, values: {} };
      for (const k of CONFIG_KEYS)
        (doc.values as Record<string, unknown>)[k] = { value: configValue(loaded.config, k), from: loaded.from[k] };
      this.out(JSON.stringify(doc, null, 2));
      return EXIT.ok;
    }
    this.out(`config file: ${loaded.file}${loaded.exists ? '' : ' (not found: the defaults apply)'}`);
    for (const k of CONFIG_KEYS) {
      const v = configValue(loaded.config, k);
      const shown = v === null ? 'every clone' : JSON.stringify(v);
      this.out(`${k.padEnd(12)} ${shown}  (${loaded.from[k] === 'file' ? 'from the file' : 'default'})`);
    }
    return EXIT.ok;
  }
}
