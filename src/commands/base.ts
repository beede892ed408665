// What every command shares: the context it runs in (so tests run commands
// in-process with their own cwd, env and streams), one-line errors, exit codes.
import { Command, type BaseContext, type Definition } from 'clipanion';
import { choicesOf, valueOption } from './options.js';
import { COLOUR_MODES, colourMode, painter, useColour } from '../colour.js';
import { errorLine, UsageError } from '../errors.js';
import { userPaths, type Env } from '../paths.js';
import { refreshKit, type KitFound } from '../core/repo/kit.js';

export type Context = BaseContext & { cwd: string; env: Env; home: string };

/** Exit codes (EXITS says what they mean). */
export const EXIT = { ok: 0, partial: 1, usage: 2 } as const;

/** What a command's exit codes mean: its help ends with them, and scripts/docs.ts writes them into docs/commands.md and man/fleet-git.1. */
export type ExitCodes = Readonly<Record<number, string>>;

/** What the exit codes mean for any command; a command's own `exits` say it for that command. */
export const EXITS: ExitCodes = {
  [EXIT.ok]: 'done',
  [EXIT.partial]:
    'something was left alone or failed (a file fleet-git did not write, one git tracks, a folder it cannot write); the line on stderr says what and what to do',
  [EXIT.usage]:
    'bad input (not a repository, a folder that does not exist, an unknown command or option, an option without its value, more or fewer operands than the command takes, an invalid config file)',
};

/** A mistake in what the user asked for on the command line: one line, exit code 2. */
export class InputError extends UsageError {}

/** One option of a command as clipanion's definition of it says: a name, whether it takes a value, what it does. */
export interface DefinedOption {
  name: string;
  value: boolean;
  description: string;
  /** The values it takes, when it takes one of a few (`--color`: auto, always, never). */
  choices?: readonly string[];
}

/**
 * The options of a command from its definition (`cli.definitions()`), one per name (`-q,--quiet` is
 * two); an option takes a value when its definition numbers one (`--depth #0`). What completion
 * completes, what an unknown option is matched against, which options a `-1` after is the value of.
 */
export function definedOptions(d: Definition): DefinedOption[] {
  return d.options.flatMap((o) => {
    const [names, ...values] = o.definition.split(' ');
    return names.split(',').map((name) => {
      const choices = choicesOf(name);
      return { name, value: values.length > 0, description: o.description ?? '', ...(choices ? { choices } : {}) };
    });
  });
}

export abstract class FleetCommand extends Command<Context> {
  /** What this command's exit codes mean (see ExitCodes). */
  static exits: ExitCodes = EXITS;

  color = valueOption(
    '--color',
    'WHEN',
    'auto (the default: on a terminal, unless NO_COLOR is set or FORCE_COLOR says otherwise), always or never',
    COLOUR_MODES,
  );

  abstract run(): Promise<number>;

  /** What this run found of the data folder's kit before the command ran (refreshKit), when it refreshes it. */
  kit: KitFound | undefined;

  /**
   * Whether this command first refreshes a data folder's kit of another build
   * (after an upgrade of fleet-git): every command but those that set it false
   * (those that only read: status, scan, doctor, config; uninstall, which
   * removes the data folder; completion), and not for a --dry-run, which
   * changes nothing.
   */
  static refreshesKit = true;
  /** Set by the commands that take --dry-run. */
  declare dryRun?: boolean;

  /** Paints text for `stream` (stdout by default) as --color, FORCE_COLOR, NO_COLOR and the stream say (src/colour.ts). */
  paint(stream: unknown = this.context.stdout) {
    return painter(useColour(colourMode(this.color), stream, this.context.env));
  }

  async execute(): Promise<number> {
    try {
      colourMode(this.color); // a bad --color is bad input, whatever the command prints
      if ((this.constructor as typeof FleetCommand).refreshesKit && !this.dryRun)
        this.kit = refreshKit(userPaths(this.context.env, this.context.home));
      return await this.run();
    } catch (e) {
      if (e instanceof UsageError) {
        this.context.stderr.write(`fleet-git: ${e.message}\n`);
        return EXIT.usage;
      }
      const msg = errorLine(e);
      this.context.stderr.write(`fleet-git: ${msg}\n`);
      return EXIT.partial;
    }
  }

  out(line = ''): void {
    this.context.stdout.write(`${line}\n`);
  }

  err(line: string): void {
    this.context.stderr.write(`${line}\n`);
  }
}
