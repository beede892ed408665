// The one way tests run a real process (the built CLI, the hook client, a hook
// command, git, a tool): start() for one the event loop waits on (an observer or
// another run may live in the test's own process), runSync() where nothing needs
// to run meanwhile. test/hook-run.ts (hook commands as Copilot runs them),
// test/pty.ts (a terminal) and helpers.ts's sandbox (git, the built CLI) are
// thin layers on these.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams, type SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';

/** The built command line (`npm run build`). */
export const CLI = join(import.meta.dirname, '..', 'dist', 'cli.cjs');

export interface SpawnOptions {
  cwd?: string;
  env: Record<string, string>;
  /** Written to its stdin, which is then closed (default: closed at once). */
  input?: string | Buffer;
  /** Leave its stdin open, to write to as it runs (`child.stdin`). */
  typing?: boolean;
  /** Kill it (SIGKILL) after this long: `timedOut` says so (default: no limit). */
  limitMs?: number;
  /** Run `cmd` as one command line with this shell (`SHELL -c CMD`, node's `shell` option: VS Code's hook executor). */
  shell?: string;
  /** Its argv[0], when not `cmd` (a stand-in named as the process it plays). */
  argv0?: string;
}

export interface Exited {
  /** The exit code; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From the start to the exit and the end of its output. */
  ms: number;
  /** Killed at `limitMs`, before it had exited and closed its output. */
  timedOut: boolean;
  pid: number;
  /** It could not be started (e.g. ENOENT). */
  error?: Error;
}

export interface Started {
  /** The running process (its stdout and stderr may be listened to as well). */
  child: ChildProcessWithoutNullStreams;
  /** Once it has exited and closed its output (or was killed at the limit, or could not start). */
  done: Promise<Exited>;
}

/** Starts `cmd` with `args` (no shell), collecting its output. */
export function start(cmd: string, args: string[], opts: SpawnOptions): Started {
  const started = performance.now();
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, shell: opts.shell, argv0: opts.argv0 });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (stdout += d));
  child.stderr.on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => {
    /* it has ended or closed its stdin: nothing more to write */
  });
  if (!opts.typing) child.stdin.end(opts.input ?? '');
  const done = new Promise<Exited>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null, timedOut: boolean, error?: Error) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started, timedOut, pid: child.pid ?? 0, error });
    };
    const timer =
      opts.limitMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
            end(null, 'SIGKILL', true);
          }, opts.limitMs);
    child.on('error', (e) => end(null, null, false, e));
    child.on('close', (code, signal) => end(code, signal, false));
  });
  return { child, done };
}

/** Runs `cmd` with `args` (no shell) to its end, without blocking the event loop. */
export const run = (cmd: string, args: string[], opts: SpawnOptions): Promise<Exited> => start(cmd, args, opts).done;

/** Runs the built fleet-git CLI as a process, without blocking the event loop. */
export const runCli = (args: string[], opts: SpawnOptions): Promise<Exited> => run(process.execPath, [CLI, ...args], opts);

/** Runs `cmd` with `args` (no shell) to its end, blocking: for git and tools where nothing else needs to run meanwhile. */
export function runSync(cmd: string, args: string[], opts: Omit<SpawnOptions, 'limitMs' | 'typing'>): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env, input: opts.input, encoding: 'utf8' });
}
