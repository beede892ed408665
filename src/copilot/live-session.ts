// Running one `copilot -p` session for `doctor --live`, and reading what it
// left in its (temporary) COPILOT_HOME: the transcript's hook.start/hook.end
// records and the log lines about hook files. The session runs in a process
// group of its own, so that a hung one is ended with everything it started;
// processes that left the group (the hook's forwarder, or the detached
// agentStop waiter of hook files written before it) are found by the probe's
// token in their environment (Linux).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SessionRun {
  /** The process started (the loader, for an npm install, whose child is the native binary). */
  pid: number;
  code: number | null;
  signal: string | null;
  /** It was still running at the deadline and was killed. */
  timedOut: boolean;
  /** The time it was given (the deadline, from its start). */
  limitMs: number;
  /** fleet-git got SIGINT, SIGTERM or SIGHUP meanwhile, and stopped it. */
  interrupted: boolean;
  /** Could not be started at all (the error's code). */
  spawnError: string | null;
  /** stdout and stderr, the first 64 KiB. */
  output: string;
  ms: number;
}

const OUTPUT_MAX = 64 * 1024;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const PIPE_GRACE_MS = 200;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* gone */
  }
}

/**
 * Runs `bin args` in `cwd` in a process group of its own and resolves when it
 * exits, or `timeoutMs` after the start, having killed the group (TERM, then
 * KILL a second later). Whatever the group still holds once it exited is killed too.
 */
export function runSession(
  bin: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<SessionRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const take = (d: Buffer) => {
      if (output.length < OUTPUT_MAX) output += d.toString('utf8').slice(0, OUTPUT_MAX - output.length);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let timedOut = false;
    let interrupted = false;
    let hard: NodeJS.Timeout | undefined;
    const stop = () => {
      killGroup(child.pid!, 'SIGTERM');
      hard ??= setTimeout(() => killGroup(child.pid!, 'SIGKILL'), 1000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    // In a group of its own, the session does not get the terminal's Ctrl-C: pass it on.
    const onSignal = () => {
      interrupted = true;
      stop();
    };
    for (const sig of STOP_SIGNALS) process.on(sig, onSignal);
    let settled = false;
    const done = (r: Omit<SessionRun, 'pid' | 'output' | 'ms' | 'timedOut' | 'limitMs' | 'interrupted'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(hard);
      for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
      if (child.pid) killGroup(child.pid, 'SIGKILL');
      resolve({ pid: child.pid ?? 0, output, ms: Date.now() - started, timedOut, limitMs: opts.timeoutMs, interrupted, ...r });
    };
    child.on('error', (e: NodeJS.ErrnoException) => done({ code: null, signal: null, spawnError: e.code ?? e.message }));
    // Not 'close': a process that left the group may hold the output pipes open.
    // What is still buffered has a moment to arrive, then the pipes are let go.
    child.on('exit', (code, signal) => {
      if (child.pid) killGroup(child.pid, 'SIGKILL'); // what it left in its group
      const finish = () => {
        child.stdout.destroy();
        child.stderr.destroy();
        done({ code, signal, spawnError: null });
      };
      const t = setTimeout(finish, PIPE_GRACE_MS);
      child.once('close', () => {
        clearTimeout(t);
        finish();
      });
    });
  });
}

/** Kills every process whose environment holds `name=value` (Linux; elsewhere none is found). Returns how many. */
export function killTagged(name: string, value: string): number {
  const entry = `${name}=${value}\0`;
  const first = Buffer.from(entry);
  const later = Buffer.from(`\0${entry}`);
  let n = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return 0;
  }
  for (const p of pids) {
    try {
      const environ = readFileSync(`/proc/${p}/environ`);
      if (!environ.subarray(0, first.length).equals(first) && !environ.includes(later)) continue;
      process.kill(Number(p), 'SIGKILL');
      n++;
    } catch {
      /* gone, or not ours */
    }
  }
  return n;
}

/** `copilot --version`'s number, or null. */
export function copilotVersion(bin: string, env: Record<string, string>, timeoutMs: number): string | null {
  const r = spawnSync(bin, ['--version'], { env, encoding: 'utf8', timeout: timeoutMs });
  return r.status === 0 ? (/\d+\.\d+\.\d+[\w.-]*/.exec(r.stdout ?? '')?.[0]?.replace(/\.$/, '') ?? null) : null;
}

/** One hook event as Copilot ran it (all the entries of every file for that event), from the transcript. */
export interface HookRun {
  hookType: string;
  toolName: string | null;
  startedAt: number;
  endedAt: number | null;
  success: boolean | null;
  /** For a failed run: Copilot's message and the hook file it names (repository files relative to the root). */
  error: { message: string; source: string | null } | null;
}

/** What one session's transcript says: the Copilot version, the model, and each hook run. */
export interface TranscriptFacts {
  sessionId: string | null;
  copilotVersion: string | null;
  hookRuns: HookRun[];
}

/** Reads the session's events.jsonl under `copilotHome` (the only session there, or `sessionId`'s). */
export function readTranscriptFacts(copilotHome: string, sessionId: string | null): TranscriptFacts {
  const facts: TranscriptFacts = { sessionId, copilotVersion: null, hookRuns: [] };
  const dir = join(copilotHome, 'session-state');
  let id = sessionId;
  if (!id) {
    try {
      id = readdirSync(dir, { withFileTypes: true }).find((e) => e.isDirectory() && !e.name.startsWith('.'))?.name ?? null;
    } catch {
      /* none */
    }
  }
  if (!id) return facts;
  facts.sessionId = id;
  let text: string;
  try {
    text = readFileSync(join(dir, id, 'events.jsonl'), 'utf8');
  } catch {
    return facts;
  }
  const open = new Map<string, HookRun>();
  for (const line of text.split('\n')) {
    if (!line.includes('"session.start"') && !line.includes('"hook.')) continue;
    let e: { type?: string; timestamp?: string; data?: Record<string, any> };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    const d = e.data ?? {};
    const at = Date.parse(e.timestamp ?? '');
    if (e.type === 'session.start' && typeof d.copilotVersion === 'string') facts.copilotVersion = d.copilotVersion;
    else if (e.type === 'hook.start' && typeof d.hookInvocationId === 'string') {
      const run: HookRun = {
        hookType: String(d.hookType),
        toolName: typeof d.input?.toolName === 'string' ? d.input.toolName : null,
        startedAt: at,
        endedAt: null,
        success: null,
        error: null,
      };
      open.set(d.hookInvocationId, run);
      facts.hookRuns.push(run);
    } else if (e.type === 'hook.end' && typeof d.hookInvocationId === 'string') {
      const run = open.get(d.hookInvocationId);
      if (!run) continue;
      run.endedAt = at;
      run.success = d.success === true;
      if (d.error && typeof d.error.message === 'string')
        run.error = { message: d.error.message, source: typeof d.error.source === 'string' ? d.error.source : null };
    }
  }
  return facts;
}

/** What Copilot's log says about hook files (its debug level; lines of 1.0.x). */
export interface LogFacts {
  /** The repository's hook files were loaded (true), or the line saying so is missing (false); null without a log. */
  repoHooksLoaded: boolean | null;
  /** Hook files Copilot rejected, with its reason. */
  invalid: Array<{ file: string; error: string }>;
  copilotVersion: string | null;
}

export function readLogFacts(logDir: string): LogFacts {
  const facts: LogFacts = { repoHooksLoaded: null, invalid: [], copilotVersion: null };
  let names: string[];
  try {
    names = readdirSync(logDir).filter((n) => n.endsWith('.log'));
  } catch {
    return facts;
  }
  if (names.length === 0) return facts;
  facts.repoHooksLoaded = false;
  for (const name of names) {
    let text: string;
    try {
      text = readFileSync(join(logDir, name), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (line.includes('loaded repo hooks')) facts.repoHooksLoaded = true;
      const bad = /Invalid hook configuration in (.+?): (.*)$/.exec(line);
      if (bad && !facts.invalid.some((i) => i.file === bad[1])) facts.invalid.push({ file: bad[1]!, error: bad[2]! });
      const v = /Starting Copilot CLI: (\S+)/.exec(line);
      if (v) facts.copilotVersion = v[1]!;
    }
  }
  return facts;
}
