import { Option } from 'clipanion';
import { setup, undoSetup, type SetupOutcome } from '../core/setup/setup.js';
import { EXIT, FleetCommand, type ExitCodes } from './base.js';

export class SetupCommand extends FleetCommand {
  static paths = [['setup']];
  static exits: ExitCodes = {
    0: 'done (or undone)',
    1: 'something could not be done or was left as it was; the lines on stderr say what',
    2: 'an invalid config file',
  };
  static usage = FleetCommand.Usage({
    description: 'make every new clone get fleet-git, with no step at all (--undo takes that back)',
    details: `
      With git 2.54 or later (which runs hooks named in config), sets hook.fleet-git-clone.event and hook.fleet-git-clone.command in the global git config, running the data folder's clone-hook on every clone: no template folder, and whatever core.hooksPath says. With an older git, uses git's template mechanism (init.templateDir). Without one, fleet-git makes its own template folder in its data folder (a copy of git's default template, so new clones keep git's usual info/exclude) and points init.templateDir at it; with one, fleet-git's post-checkout hook is added to it, keeping a post-checkout hook already there running first.

      New clones that the user config includes (fleet-git config) then arrive with .github/hooks/fleet.json, excluded from commits, and the hook that provisions their future worktrees; other clones are left as git makes them. With a global core.hooksPath and a git older than 2.54, git never runs template hooks: setup then changes nothing and says what to do instead.

      --undo puts the global git configuration and the template folder back exactly as they were; repositories already enabled stay enabled, and the copies of its hook that git made meanwhile from the template stay but provision nothing (fleet-git remove FOLDER takes them out). Running setup again changes nothing, or repairs what is missing.
    `,
    examples: [
      ['Set up', '$0 setup'],
      ['Undo it', '$0 setup --undo'],
    ],
  });

  undo = Option.Boolean('--undo', false, { description: 'put the global git configuration and the template folder back as they were' });
  quiet = Option.Boolean('-q,--quiet', false, { description: 'print only what failed or was left alone' });

  async run(): Promise<number> {
    const { env, home } = this.context;
    const o: SetupOutcome = this.undo ? undoSetup(env, home) : setup(env, home, this.kit);
    for (const c of this.quiet ? [] : o.changes) this.out(c);
    for (const i of this.quiet ? [] : o.info) this.out(`note: ${i}`);
    for (const n of o.notes) this.err(n);
    if (this.quiet) return o.notes.length ? EXIT.partial : EXIT.ok;
    if (!o.changes.length && !o.notes.length) this.out(this.undo ? 'nothing to undo' : 'already set up, nothing changed');
    else if (!o.notes.length) this.out(this.undo ? 'setup undone' : 'set up: new clones that the config includes get fleet-git');
    return o.notes.length ? EXIT.partial : EXIT.ok;
  }
}
