// The built hook client (dist/hook-client.cjs, from `npm run build`) run as a
// real process, the way Copilot runs it, without blocking the event loop (an
// observer may live in the test's own process).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXCLUDE_BEGIN, EXCLUDE_END } from '../src/core/repo/exclude.js';
import { readLease } from '../src/copilot/forwarder.js';
import { userPaths } from '../src/paths.js';
import { ROOT, sandbox } from './helpers.js';
import type { Received } from './observer-server.js';
import { run } from './spawn.js';

export const CLIENT = join(ROOT, 'dist', 'hook-client.cjs');

/**
 * A sandbox with an enabled repository, the hook command of each event as its
 * hook file says, and the spool: the pid its forwarder's lease names and the
 * events waiting there. `idleMs`: how long a forwarder stays after its last event.
 */
export function enabledHooks(prefix: string, idleMs: number) {
  const sb = sandbox(prefix);
  const env: Record<string, string> = { ...sb.env, FLEET_GIT_FORWARDER_IDLE_MS: String(idleMs) };
  const paths = userPaths(env, sb.home);
  const repo = sb.repo('proj');
  assert.equal(sb.cli(repo, 'enable').status, 0);
  const doc = JSON.parse(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8')) as {
    hooks: Record<string, Array<{ bash: string }>>;
  };
  const cmd = (event: string) => doc.hooks[event]![0]!.bash;
  const spool = join(paths.dataDir, 'spool');
  const forwarderPid = () => readLease(spool)?.pid ?? 0;
  const waiting = () => (existsSync(spool) ? readdirSync(spool).filter((n) => n.endsWith('.ev')) : []);
  return { sb, env, paths, repo, cmd, spool, forwarderPid, waiting };
}

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

/** A postToolUse payload of session `sid` whose bash command names `step` (stepOf reads it back from the event). */
export const tool = (sid: string, step: number) =>
  JSON.stringify({
    sessionId: sid,
    timestamp: Date.now(),
    cwd: '/w',
    toolName: 'bash',
    toolArgs: { command: `echo step-${step}` },
    toolResult: { resultType: 'success', textResultForLlm: `step-${step}` },
  });
/** The step of an event made from tool(). */
export const stepOf = (e: Received) => Number(/step-(\d+)/.exec(String((e.tool_input as { command?: string } | null)?.command))?.[1]);

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

const V010 = join(ROOT, 'test', 'fixtures', 'fleet-git-0.1.0');
const shQuoted = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

/**
 * The hook file fleet-git 0.1.0 wrote for a data folder (hook format 1: each
 * command the whole hook, one line, running the data folder's hook client),
 * rendered as 0.1.0 rendered it from its templates, kept in test/fixtures/fleet-git-0.1.0.
 */
export function hookFileOf010(dataDir: string): string {
  const line = readFileSync(join(V010, 'hook-command.sh'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .join(' ');
  const doc = JSON.parse(readFileSync(join(V010, 'fleet.json'), 'utf8')) as { hooks: Record<string, { bash: string }[]> };
  for (const [event, entries] of Object.entries(doc.hooks))
    for (const e of entries) e.bash = line.replace('{{data}}', shQuoted(dataDir)).replace('{{event}}', event);
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The post-checkout hook fleet-git 0.1.0's enable wrote (hook format 1: the whole 251-line script), for a data folder. */
export function gitHookOf010(dataDir: string): string {
  const values: Record<string, string> = {
    canonical: shQuoted(join(dataDir, 'fleet.json')),
    decide: ':',
    begin: shQuoted(EXCLUDE_BEGIN),
    end: shQuoted(EXCLUDE_END),
    pattern: shQuoted('/.github/hooks/fleet.json'),
    mark: shQuoted('claude-code-fleet fleet-git'),
    ours: '--ours',
    lock: shQuoted('fleet-git.lock'),
  };
  return readFileSync(join(V010, 'post-checkout'), 'utf8').replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k]!);
}

/** Waits until `cond` holds, looking every 20 ms; throws after `ms`, a limit that only stops a hung test. */
export async function until(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
