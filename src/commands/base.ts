// What every command shares: the context it runs in (so tests run commands
// in-process with their own cwd, env and streams), one-line errors, exit codes.
import { Command, Option, type BaseContext, type Definition } from 'clipanion';
import { colourMode, painter, useColour } from '../colour.js';
import { permissionLine, UsageError } from '../errors.js';
import type { Env } from '../paths.js';

export type Context = BaseContext & { cwd: string; env: Env; home: string };

/** Exit codes, as the README documents them. */
export const EXIT = { ok: 0, partial: 1, usage: 2 } as const;

/** A mistake in what the user asked for on the command line: one line, exit code 2. */
export class InputError extends UsageError {}

/** One option of a command as clipanion's definition of it says: a name, whether it takes a value, what it does. */
export interface DefinedOption {
  name: string;
  value: boolean;
  description: string;
}

/**
 * The options of a command from its definition (`cli.definitions()`), one per name (`-q,--quiet` is
 * two); an option takes a value when its definition numbers one (`--depth #0`). What completion
 * completes, what an unknown option is matched against, which options a `-1` after is the value of.
 */
export function definedOptions(d: Definition): DefinedOption[] {
  return d.options.flatMap((o) => {
    const [names, ...values] = o.definition.split(' ');
    return names.split(',').map((name) => ({ name, value: values.length > 0, description: o.description ?? '' }));
  });
}

export abstract class FleetCommand extends Command<Context> {
  color = Option.String('--color', {
    description: 'auto (the default: on a terminal, unless NO_COLOR is set or FORCE_COLOR says otherwise), always or never',
  });

  abstract run(): Promise<number>;

  /** Paints text for `stream` (stdout by default) as --color, FORCE_COLOR, NO_COLOR and the stream say (src/colour.ts). */
  paint(stream: unknown = this.context.stdout) {
    return painter(useColour(colourMode(this.color), stream, this.context.env));
  }

  async execute(): Promise<number> {
    try {
      colourMode(this.color); // a bad --color is bad input, whatever the command prints
      return await this.run();
    } catch (e) {
      if (e instanceof UsageError) {
        this.context.stderr.write(`fleet-git: ${e.message}\n`);
        return EXIT.usage;
      }
      const msg = permissionLine(e) ?? (e instanceof Error ? e.message : String(e));
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
