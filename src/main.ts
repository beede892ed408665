// The command line: the Cli and its command list. Only this file (and the
// loader that starts it, cli.ts) touches process. Bundled into dist/cli-main.cjs.
import { homedir } from 'node:os';
import { Builtins, Cli, type CommandClass } from 'clipanion';
import pkg from '../package.json' with { type: 'json' }; // bundled: --version is package.json's
import { EXIT, type Context } from './commands/base.js';

type Load = () => Promise<CommandClass<Context>>;

/**
 * The commands by the first word of their path, in the order help lists them.
 * Each module is loaded only when its command runs (or for help), so a run
 * reads and compiles one command, not all of them.
 */
const COMMANDS: Record<string, Load> = {
  enable: async () => (await import('./commands/enable.js')).EnableCommand,
  disable: async () => (await import('./commands/disable.js')).DisableCommand,
  status: async () => (await import('./commands/status.js')).StatusCommand,
  setup: async () => (await import('./commands/setup.js')).SetupCommand,
  config: async () => (await import('./commands/config.js')).ConfigCommand,
  scan: async () => (await import('./commands/scan.js')).ScanCommand,
  remove: async () => (await import('./commands/remove.js')).RemoveCommand,
  run: async () => (await import('./commands/run.js')).RunCommand,
  model: async () => (await import('./commands/model-list.js')).ModelListCommand,
  doctor: async () => (await import('./commands/doctor.js')).DoctorCommand,
};

/** The Cli for one command line: only the command its first word names, or every command when it names none. */
async function makeCli(argv: string[] = []): Promise<Cli<Context>> {
  const cli = new Cli<Context>({ binaryLabel: 'fleet-git', binaryName: 'fleet-git', binaryVersion: pkg.version, enableColors: !!process.stdout.isTTY && !process.env.NO_COLOR });
  const named = Object.hasOwn(COMMANDS, argv[0] ?? '') ? [COMMANDS[argv[0]]] : Object.values(COMMANDS);
  for (const c of await Promise.all(named.map((load) => load()))) cli.register(c);
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  return cli;
}

/** Runs one command line; a malformed one gets one line on stderr and exit code 2. */
export async function main(argv: string[], context: Context): Promise<number> {
  const cli = await makeCli(argv);
  let command;
  try {
    command = cli.process(argv, context);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const first = message.split('\n').find((l) => l.trim()) ?? 'invalid command line';
    const what = first.trim().replace(/[;:]? *did you mean.*$/i, '').replace(/\.$/, '');
    // clipanion names one command it thinks was meant on a line of its own: "$ fleet-git model list".
    const meant = /did you mean:\s*\n\s*\$ (.+?)\s*$/m.exec(message)?.[1]?.replace(/ \[[^\]]*\]| \.\.\./g, '');
    context.stderr.write(`fleet-git: ${what}: ${argv.join(' ')} (${meant ? `did you mean ${meant}?` : 'fleet-git --help lists the commands'})\n`);
    return EXIT.usage;
  }
  return cli.run(command, context).then((code) => (command.help ? EXIT.ok : code));
}

// A closed pipe (fleet-git status | head) ends the output, not the program with a stack.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});
const env = process.env;
// Exit as soon as the output is out: letting node wind down on its own took
// some 10 ms more after a large scan. (stdout is written synchronously to files,
// pipes and terminals on Linux; elsewhere this waits for it to drain.)
const drained = (s: NodeJS.WriteStream) => (s.writableLength === 0 ? Promise.resolve() : new Promise((r) => s.once('drain', r)));
void main(process.argv.slice(2), { ...Cli.defaultContext, cwd: process.cwd(), env, home: env.HOME || homedir() }).then(async (code) => {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
});
