#!/usr/bin/env node
// The command line: the Cli and its command list. Only this file touches process.
import { homedir } from 'node:os';
import { Builtins, Cli } from 'clipanion';
import { EXIT, type Context } from './commands/base.js';
import { DisableCommand } from './commands/disable.js';
import { EnableCommand } from './commands/enable.js';
import { StatusCommand } from './commands/status.js';
import { ConfigCommand } from './commands/config.js';
import { SetupCommand } from './commands/setup.js';
import { ScanCommand } from './commands/scan.js';
import { RemoveCommand } from './commands/remove.js';
import { RunCommand } from './commands/run.js';
import { ModelListCommand } from './commands/model-list.js';
import { DoctorCommand } from './commands/doctor.js';

export function makeCli(): Cli<Context> {
  const cli = new Cli<Context>({ binaryLabel: 'fleet-git', binaryName: 'fleet-git', binaryVersion: '0.1.0', enableColors: !!process.stdout.isTTY && !process.env.NO_COLOR });
  for (const c of [EnableCommand, DisableCommand, StatusCommand, SetupCommand, ConfigCommand, ScanCommand, RemoveCommand, RunCommand, ModelListCommand, DoctorCommand, Builtins.HelpCommand, Builtins.VersionCommand]) cli.register(c);
  return cli;
}

/** Runs one command line; a malformed one gets one line on stderr and exit code 2. */
export async function main(argv: string[], context: Context): Promise<number> {
  const cli = makeCli();
  let command;
  try {
    command = cli.process(argv, context);
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n').find((l) => l.trim()) ?? 'invalid command line';
    const what = first.trim().replace(/[;:]? *did you mean.*$/i, '');
    context.stderr.write(`fleet-git: ${what}: ${argv.join(' ')} (fleet-git --help lists the commands)\n`);
    return EXIT.usage;
  }
  return cli.run(argv, context).then((code) => (command.help ? EXIT.ok : code));
}

// A closed pipe (fleet-git status | head) ends the output, not the program with a stack.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});
const env = process.env;
process.exitCode = await main(process.argv.slice(2), {
  ...Cli.defaultContext,
  cwd: process.cwd(),
  env,
  home: env.HOME || homedir(),
});
