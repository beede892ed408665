// The command line: the Cli, its command list and main(), which runs one
// command line in a context (its cwd, env, home and streams) and touches no
// process: src/main.ts starts it for the process, tests run it in-process.
import { Builtins, Cli, Command, type CommandClass, type Definition, type Usage } from 'clipanion';
import pkg from '../../package.json' with { type: 'json' }; // bundled: --version is package.json's
import { definedOptions, EXIT, type Context, type ExitCodes } from './base.js';
import { colourInArgv, colourMode, useColour, type ColourMode } from '../colour.js';
import { named, operandsOf } from './options.js';
import { misuse, type KnownCommand } from './misuse.js';
import { commandHelp, commandList, helpWidth } from './help.js';

type Load = () => Promise<CommandClass<Context>>;

/**
 * The commands by the first word of their path, in the order help lists them.
 * Each module is loaded only when its command runs (or for help), so a run
 * reads and compiles one command, not all of them.
 */
const COMMANDS: Record<string, Load> = {
  enable: async () => (await import('./enable.js')).EnableCommand,
  disable: async () => (await import('./disable.js')).DisableCommand,
  status: async () => (await import('./status.js')).StatusCommand,
  setup: async () => (await import('./setup.js')).SetupCommand,
  config: async () => (await import('./config.js')).ConfigCommand,
  scan: async () => (await import('./scan.js')).ScanCommand,
  remove: async () => (await import('./remove.js')).RemoveCommand,
  run: async () => (await import('./run.js')).RunCommand,
  model: async () => (await import('./model-list.js')).ModelListCommand,
  doctor: async () => (await import('./doctor.js')).DoctorCommand,
  uninstall: async () => (await import('./uninstall.js')).UninstallCommand,
  completion: async () => (await import('./completion.js')).CompletionCommand,
};

/**
 * The command line with `--depth -1` written as `--depth=-1` (up to a `--`, after which the words are
 * another program's), for every option in `definitions` that takes a value: a negative number after
 * one is its value, which the command then judges, not an option clipanion would say is missing its
 * argument. No option can be spelled `-1` (clipanion's names start with a letter), so for any option
 * that takes a value the word can only be that value; the options are read from the commands' own
 * definitions, so a new numeric option is covered without being listed anywhere.
 */
function negativeValuesJoined(argv: string[], definitions: Definition[]): string[] {
  const takesValue = new Set(
    definitions.flatMap((d) =>
      definedOptions(d)
        .filter((o) => o.value)
        .map((o) => o.name),
    ),
  );
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') return out.concat(argv.slice(i));
    if (takesValue.has(argv[i]) && /^-\d/.test(argv[i + 1] ?? '')) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

class FleetCli extends Cli<Context> {
  /** The command classes registered, whose operands help names (options.ts). */
  readonly classes: CommandClass<Context>[] = [];
  /** The width help is laid out for (help.ts's helpWidth). */
  width = 80;

  register(cls: CommandClass<Context>): void {
    this.classes.push(cls);
    super.register(cls);
  }

  /**
   * Help as help.ts lays it out, to the terminal's width: the list of commands (no command) and one
   * command's help (detailed); a command's usage line alone as clipanion writes it, its values named.
   */
  usage(...args: Parameters<Cli<Context>['usage']>): string {
    const [command = null, opts = {}] = args;
    const cls = (command instanceof Command ? command.constructor : command) as (CommandClass<Context> & { exits?: ExitCodes }) | null;
    const layout = { width: this.width, colour: opts.colored ?? this.enableColors ?? false };
    if (!cls && opts.prefix === undefined)
      return commandList(
        this.binaryVersion ?? '',
        this.classes
          .filter((c) => c.usage)
          .map((c) => ({ synopsis: this.usage(c, { colored: false }).trim(), description: c.usage!.description ?? '' })),
        layout,
      );
    if (cls?.usage && opts.detailed) return commandHelp({ definition: this.definitionOf(cls), usage: cls.usage, exits: cls.exits }, layout);
    return named(super.usage(...args), this.classes);
  }

  /** A registered command's definition as clipanion gives it, its values and operands named. */
  definitionOf(cls: CommandClass<Context>): Definition {
    const path = `fleet-git ${cls.paths![0]!.join(' ')}`;
    const d = this.definitions().find((x) => x.path === path);
    if (!d) throw new Error(`no definition for ${path}`);
    return { ...d, usage: named(d.usage, this.classes), options: d.options.map((o) => ({ ...o, definition: named(o.definition) })) };
  }
}

/** The nearest of `names` to `typed` (edit distance at most a third of its length, and 2), or null. */
export function nearest(typed: string, names: string[]): string | null {
  const dist = (a: string, b: string) => {
    let prev = Array.from({ length: b.length + 1 }, (_v, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row;
    }
    return prev[b.length];
  };
  let best: string | null = null;
  let bestD = Math.min(2, Math.ceil(typed.replace(/^-+/, '').length / 3));
  for (const n of names) {
    const d = n.startsWith(typed) ? 0 : dist(typed, n);
    if (d <= bestD && (best === null || d < bestD)) {
      best = n;
      bestD = d;
    }
  }
  return best;
}

/** The commands registered in `cli`, with their options and operands, for misuse(). */
function knownCommands(cli: FleetCli, definitions: Definition[]): KnownCommand[] {
  return cli.classes
    .filter((c) => c.paths?.[0]?.length && !c.paths[0][0]!.startsWith('-'))
    .map((c) => {
      const words = c.paths![0]!;
      const d = definitions.find((x) => x.path === `fleet-git ${words.join(' ')}`);
      return { words, options: d ? definedOptions(d) : [], operands: operandsOf(c) };
    });
}

/** The Cli for one command line: only the command its first word names, or every command when it names none. */
async function makeCli(argv: string[], colours: boolean): Promise<FleetCli> {
  const cli = new FleetCli({ binaryLabel: 'fleet-git', binaryName: 'fleet-git', binaryVersion: pkg.version, enableColors: colours });
  // completion describes every command, so it loads them all.
  const named = Object.hasOwn(COMMANDS, argv[0] ?? '') && argv[0] !== 'completion' ? [COMMANDS[argv[0]]] : Object.values(COMMANDS);
  for (const c of await Promise.all(named.map((load) => load()))) cli.register(c);
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  return cli;
}

/** The command line without its --color option. */
function withoutColour(argv: string[]): string[] {
  return argv.filter((a, i) => !a.startsWith('--color=') && a !== '--color' && argv[i - 1] !== '--color');
}

/** Runs one command line; a malformed one gets one line on stderr and exit code 2. */
export async function main(argv: string[], context: Context): Promise<number> {
  // `fleet-git help [COMMAND...]` is `fleet-git [COMMAND...] --help`, as with gh and git.
  const typed = argv;
  if (argv[0] === 'help') argv = [...argv.slice(1), '--help'];
  // clipanion's help and errors are coloured as the commands' output is (src/colour.ts); a bad --color is reported by the command.
  let mode: ColourMode = 'auto';
  try {
    mode = colourMode(colourInArgv(argv));
  } catch {
    /* the command says so */
  }
  const cli = await makeCli(argv, useColour(mode, context.stdout, context.env));
  cli.width = helpWidth(context.stdout);
  const definitions = cli.definitions();
  argv = negativeValuesJoined(argv, definitions);
  // The list of commands takes --color too (clipanion's own help command has no options).
  if (argv.some((a) => a === '--help' || a === '-h') && withoutColour(argv).length === 1) argv = withoutColour(argv);
  let command;
  try {
    command = cli.process(argv, context);
  } catch (e) {
    // clipanion's errors about the command line carry its ErrorMeta; what is wrong is found from the
    // commands' definitions (misuse.ts), not from its message.
    const ours = typeof e === 'object' && e !== null && 'clipanion' in e;
    const what = ours ? misuse(argv, typed, knownCommands(cli, definitions), nearest) : String((e as Error)?.message ?? e).split('\n')[0];
    context.stderr.write(`fleet-git: ${what}\n`);
    return EXIT.usage;
  }
  return cli.run(command, context).then((code) => (command.help ? EXIT.ok : code));
}

/** Every command's definition, as clipanion gives them (help, completion and the command line read them). */
export async function commandDefinitions(): Promise<Definition[]> {
  return (await makeCli([], false)).definitions();
}

/** Every command of fleet-git in help's order: what scripts/docs.ts makes docs/commands.md and the man page of. */
export async function commandReference(): Promise<CommandDoc[]> {
  const cli = await makeCli([], false);
  const classes = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  return classes.map((c) => {
    const definition = cli.definitionOf(c);
    return {
      path: definition.path,
      synopsis: cli.usage(c, { colored: false }).replace(/^\$ /, '').trim(),
      definition,
      usage: c.usage ?? {},
      exits: (c as unknown as { exits: ExitCodes }).exits,
    };
  });
}

/** One command as the reference shows it. */
export interface CommandDoc {
  path: string;
  /** Its usage line, each option's value named: `fleet-git scan [--json] [--depth N] [root...]`. */
  synopsis: string;
  /** clipanion's definition (option definitions with their values named). */
  definition: Definition;
  /** The command's own usage as written (its details not yet wrapped). */
  usage: Usage;
  exits: ExitCodes;
}
