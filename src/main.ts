// The fleet-git process: runs the command line (src/commands/command-line.ts)
// with the process's cwd, environment and streams, and exits with its code.
// Only this file (and the loader that starts it, cli.ts) touches process.
// Bundled into dist/cli-main.cjs.
import { homedir } from 'node:os';
import { Cli } from 'clipanion';
import { main } from './commands/command-line.js';

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
