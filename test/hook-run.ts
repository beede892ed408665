// The built hook client (dist/hook-client.cjs, from `npm run build`) run as a
// real process, the way Copilot runs it, without blocking the event loop (an
// observer may live in the test's own process).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

export const CLIENT = join(ROOT, 'dist', 'hook-client.cjs');

export interface Ran { code: number | null; stdout: string; stderr: string; ms: number }

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
