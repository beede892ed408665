// The built hook client (dist/hook-client.cjs, from `npm run build`) run as a
// real process, the way Copilot runs it, without blocking the event loop (an
// observer may live in the test's own process).
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';
import { run } from './spawn.js';

export const CLIENT = join(ROOT, 'dist', 'hook-client.cjs');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the client with `args` and `input` on stdin; `shell`: through bash, as a hook command line would; killed after `limitMs` (code null). */
export async function runClient(
  env: Record<string, string>,
  args: string[],
  input: string | Buffer,
  shell = false,
  limitMs?: number,
): Promise<Ran> {
  const r = shell
    ? await run('/bin/bash', ['--norc', '--noprofile', '-c', `"$0" "$@"; exit 0`, process.execPath, CLIENT, ...args], {
        env,
        input,
        limitMs,
      })
    : await run(process.execPath, [CLIENT, ...args], { env, input, limitMs });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, ms: r.ms };
}

let inputs = 0;

export interface HookRan {
  code: number | null;
  stdout: string;
  stderr: string;
  returned: boolean;
  /** From the start to the exit and the end of its output. */
  ms: number;
}

/**
 * Runs a hook command as Copilot runs it (`/bin/bash --norc --noprofile -c`),
 * `input` on its stdin: a socket (node's own stdio) or, with `pipe`, a real
 * pipe as Copilot gives it (`cat FILE | bash`, FILE holding the input).
 * `returned` is false when it had not exited and closed its output within
 * `limitMs` (as Copilot waits: exit and stdio closed).
 */
export async function runHook(
  cmd: string,
  input: string | Buffer,
  env: Record<string, string>,
  opts: { pipe?: boolean; cwd?: string; limitMs?: number } = {},
): Promise<HookRan & { pid: number }> {
  const file = join(tmpdir(), `fleet-git-hook-input-${process.pid}-${++inputs}`);
  if (opts.pipe) writeFileSync(file, input);
  const limitMs = opts.limitMs ?? 10_000;
  const r = opts.pipe
    ? await run('/bin/sh', ['-c', 'cat "$0" | /bin/bash --norc --noprofile -c "$1"', file, cmd], { env, cwd: opts.cwd, limitMs })
    : await run('/bin/bash', ['--norc', '--noprofile', '-c', cmd], { env, cwd: opts.cwd, input, limitMs });
  if (opts.pipe && !r.timedOut) rmSync(file, { force: true });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, returned: !r.timedOut, pid: r.pid, ms: r.ms };
}
