// The built hook client (dist/hook-client.cjs, from `npm run build`) run as a
// real process, the way Copilot runs it, without blocking the event loop (an
// observer may live in the test's own process).
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

export const CLIENT = join(ROOT, 'dist', 'hook-client.cjs');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the client with `args` and `input` on stdin; `shell`: through bash, as a hook command line would. */
export function runClient(env: Record<string, string>, args: string[], input: string | Buffer, shell = false): Promise<Ran> {
  const started = Date.now();
  const child = shell
    ? spawn('/bin/bash', ['--norc', '--noprofile', '-c', `"$0" "$@"; exit 0`, process.execPath, CLIENT, ...args], { env })
    : spawn(process.execPath, [CLIENT, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.on('error', () => {});
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
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
export function runHook(
  cmd: string,
  input: string | Buffer,
  env: Record<string, string>,
  opts: { pipe?: boolean; cwd?: string; limitMs?: number } = {},
): Promise<HookRan & { pid: number }> {
  const file = join(tmpdir(), `fleet-git-hook-input-${process.pid}-${++inputs}`);
  if (opts.pipe) writeFileSync(file, input);
  const started = performance.now();
  const child = opts.pipe
    ? spawn('/bin/sh', ['-c', 'cat "$0" | /bin/bash --norc --noprofile -c "$1"', file, cmd], { env, cwd: opts.cwd })
    : spawn('/bin/bash', ['--norc', '--noprofile', '-c', cmd], { env, cwd: opts.cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.on('error', () => {});
  if (opts.pipe) child.stdin.end();
  else child.stdin.end(input);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, stdout, stderr, returned: false, pid: child.pid ?? 0, ms: performance.now() - started });
    }, opts.limitMs ?? 10_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (opts.pipe) rmSync(file, { force: true });
      resolve({ code, stdout, stderr, returned: true, pid: child.pid ?? 0, ms: performance.now() - started });
    });
  });
}
