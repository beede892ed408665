// What clipanion 3 cannot say, said here and nowhere else: the name of an
// option's value (its help prints `--under #0`) and of a command's operands (a
// bare `...`). The commands declare such options through valueOption,
// listOption and operands, which give clipanion the option and keep the name;
// named() writes the names into clipanion's usage lines and option
// definitions (`--under #0`, `fleet-git enable ...`), the notation of
// clipanion 3's definitions() and usage(), which help.test pins: help.ts lays
// out the rest.
import { Option } from 'clipanion';

/** A command class, as much of it as named() reads: its paths, and its options once made. */
type CommandLike = { paths?: string[][]; new (): object };

/** Each option's value name (`--under` → `ROOT`), as the option was declared. */
const valueNames = new Map<string, string>();
/** Marks the operands option of a command with its name. */
const OPERANDS = Symbol('operands');

/** The values an option takes, for those that take one of a few (`--color` → auto, always, never): what completion offers. */
const optionChoices = new Map<string, readonly string[]>();

/** An option that takes one value, shown as `name VALUE`; `choices`, when given, are the values it takes. */
export function valueOption(name: string, value: string, description: string, choices?: readonly string[]): string | undefined {
  valueNames.set(name, value);
  if (choices) optionChoices.set(name, choices);
  return Option.String(name, { description });
}

/** The values an option takes (valueOption's `choices`), or undefined when any value goes. */
export function choicesOf(name: string): readonly string[] | undefined {
  return optionChoices.get(name);
}

/** An option that takes one value and may be given more than once, shown as `name VALUE`. */
export function listOption(name: string, value: string, description: string): string[] {
  valueNames.set(name, value);
  return Option.Array(name, [], { description });
}

/** What a command's operands are: their name, and how many it takes (`max` Infinity: any number, shown as `[name...]`). */
export interface Operands {
  name: string;
  min: number;
  max: number;
}

/** The command's operands, any number of them (at least `required`), shown as `[name...]`. */
export function operands(name: string, required = 0): string[] {
  return Object.assign(Option.Rest({ name, required }), { [OPERANDS]: { name, min: required, max: Infinity } satisfies Operands });
}

/** The command's one operand, shown as `<name>` when required, `[name]` otherwise. */
export function operand(name: string, required: true): string;
export function operand(name: string, required?: false): string | undefined;
export function operand(name: string, required = false): string | undefined {
  const option = required ? Option.String({ name, required: true }) : Option.String({ name, required: false });
  return Object.assign(option as unknown as object, {
    [OPERANDS]: { name, min: required ? 1 : 0, max: 1 } satisfies Operands,
  }) as unknown as string;
}

/** A command's operands (operands() or operand()), or null when it takes none. */
export function operandsOf(cls: CommandLike): Operands | null {
  for (const v of Object.values(new cls()))
    if (typeof v === 'object' && v !== null && OPERANDS in v) return (v as { [OPERANDS]: Operands })[OPERANDS];
  return null;
}

/**
 * A usage line or option definition with each option's value named (`--under ROOT`), not
 * numbered, and each command's operands named (`[repo...]`, for the commands in `commands`).
 */
export function named(text: string, commands: readonly CommandLike[] = []): string {
  const rest = new Map(commands.map((c) => [c.paths?.[0]?.[0] ?? '', operandsOf(c)?.name]));
  return text
    .replace(
      /(--?[A-Za-z][\w-]*)((?: #\d+)+)/g,
      (_m, name: string, args: string) => `${name}${args.replace(/ #\d+/g, ` ${valueNames.get(name) ?? 'VALUE'}`)}`,
    )
    .replace(/^(\s*(?:\$ )?fleet-git ([a-z]+)\b.*) \.\.\.$/gm, (m, line: string, command: string) => {
      const name = rest.get(command);
      return name ? `${line} [${name}...]` : m;
    });
}
