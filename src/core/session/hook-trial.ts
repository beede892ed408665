// One hook event run in isolation, as Copilot runs it, and what came of it:
// fleet-git's hook command for a test sessionStart, run by /bin/bash with the
// user's environment (or, `vscode`, as VS Code's agent runs it: /bin/sh -c in
// the home folder, without VSCODE_*, GITHUB_*, COPILOT_*, a VS Code payload),
// its event spooled, forwarded and sent to an observer's
// socket of the trial's own, all in a temporary folder removed after. Only an
// event that arrived there, normalized as the observer reads it, is a success;
// otherwise the cause, and what to do. `fleet-git doctor` reports it. Nothing is
// written in the data folder (the spool is the temporary folder's, whatever
// XDG_RUNTIME_DIR is) and nothing reaches the user's observer.
import { describeError } from '../../errors.js';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readText } from '../../fs/read.js';
import { FORWARD_FLAG, IDLE_MS_VAR, leaseHeld, readLease } from '../../copilot/forwarder.js';
import { PROBE_VAR } from '../../copilot/normalize.js';
import { VSCODE_SHELL, vscodeHookEnv } from '../../copilot/vscode.js';
import { EventListener, socketTempDir, type Received } from '../../fleet/listener.js';
import { HOOK_SCRIPT, OBSERVER_DIR_VAR, userPaths, type Env } from '../../paths.js';
import { hookCommand, NODE_FILE } from '../repo/hook-file.js';
import { clientInUse } from '../repo/kit.js';
import { isExecutableFile } from './run.js';

/**
 * The longest the trial waits for its test event while the forwarder the hook
 * command started still runs (its cold start is about 0.3 s on a quiet machine,
 * seconds on a loaded one): only a forwarder that hangs meets it.
 */
export const TRIAL_WAIT_MS = 20_000;
/**
 * How long an event the forwarder sent before it left may take to be read here
 * (it is in this process's socket already: only this event loop's turn).
 */
const SENT_MS = 1000;
/** How long its forwarder may take to leave after it (it stays 50 ms after its last event here). */
const LEAVE_MS = 3000;

/** Which node the hook command runs the hook client with (path null: none it can run). */
export interface NodeFound {
  path: string | null;
  onPath: boolean;
  recorded: string | null;
  usable: boolean;
}

/** The node the hook command runs the hook client with: `command -v node` on its PATH, else the one enable recorded. */
export function nodeFor(env: Env, dataDir: string): NodeFound {
  const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', 'command -v node'], { env, encoding: 'utf8', timeout: 5000 });
  const found = r.status === 0 ? (r.stdout ?? '').trim() : '';
  const recorded = readText(join(dataDir, NODE_FILE))?.trim() || null;
  const usable = found !== '' || (recorded !== null && isExecutableFile(recorded));
  return { path: found || (usable ? recorded : null), onPath: found !== '', recorded, usable };
}

/** The oldest Node major fleet-git runs on: the first of package.json's `engines` (test/units.test.ts holds them equal). */
export const OLDEST_NODE = 20;

/** What to do about it (the same words for doctor and doctor --live). */
export const NO_NODE_FIX = `install Node ${OLDEST_NODE} or later (or put it on PATH), then run fleet-git enable`;

/** Why the hook does nothing for want of a node (the same words for doctor and doctor --live). */
export function noNodeMessage(node: { recorded: string | null }): string {
  return `no node on the PATH Copilot runs hooks with${node.recorded ? `, and the node fleet-git enable recorded (${node.recorded}) is gone` : ''}, so the hook does nothing`;
}

/** The /bin/sh VS Code's agent runs hooks with, as a user knows it: `/bin/sh (dash, /usr/bin/dash)`. */
export function vscodeShell(): string {
  let real: string;
  try {
    real = realpathSync(VSCODE_SHELL);
  } catch {
    return `${VSCODE_SHELL} (missing)`;
  }
  const name = basename(real);
  const kind = name === 'bash' ? 'bash as sh' : name === 'busybox' ? 'BusyBox ash' : name;
  return real === VSCODE_SHELL ? `${VSCODE_SHELL}${kind === 'sh' ? '' : ` (${kind})`}` : `${VSCODE_SHELL} (${kind}, ${real})`;
}

export type TrialCause = 'no-bash' | 'hook-failed' | 'client-missing' | 'no-node' | 'client-broken' | 'nothing-arrived' | 'incomplete';

export type HookTrial = { ok: true; event: Received; ms: number } | { ok: false; cause: TrialCause; message: string; fix?: string };

/** What a SessionStart needs for the observer to make a card of it and follow its process (fleet-observer-protocol.md). */
function missingFields(e: Received, want: { sessionId: string; cwd: string; vscode: boolean }): string[] {
  const missing: string[] = [];
  const shown = (v: unknown) => JSON.stringify(v) ?? 'none';
  if (e.event !== 'SessionStart') missing.push(`event (${shown(e.event)}, not "SessionStart")`);
  if (e.cwd !== want.cwd) missing.push(`cwd (${shown(e.cwd)}, not ${JSON.stringify(want.cwd)})`);
  if (typeof e.timestamp !== 'number') missing.push('timestamp');
  // The hook's parent here is this process, no Copilot CLI: the event names no process (src/copilot/copilot-process.ts).
  if (e.pid !== null || e.ppid !== null)
    missing.push(`pid and ppid (${shown(e.pid)} and ${shown(e.ppid)}, not null: a hook whose parent is no Copilot CLI names no process)`);
  if (e._tool !== 'copilot' || e.tool !== 'copilot') missing.push('_tool and tool ("copilot")');
  if (want.vscode && e.term_program !== 'vscode') missing.push(`term_program (${shown(e.term_program)}, not "vscode")`);
  return missing;
}

/**
 * The test event, once it arrived; 'gone' when the forwarder that was to send it
 * has left (or never started) and it still did not come; 'late' when the
 * forwarder still ran after `ms`. It waits on what happens, not on a fixed time:
 * as long as the forwarder runs, however slowly a loaded machine starts it.
 */
async function arrival(
  listener: EventListener,
  mine: () => Received | undefined,
  spool: string,
  ms: number,
): Promise<Received | 'gone' | 'late'> {
  const deadline = Date.now() + ms;
  while (leaseHeld(spool)) {
    if (await listener.waitUntil(() => mine() !== undefined, Math.min(100, deadline - Date.now()))) return mine()!;
    if (Date.now() >= deadline) return 'late';
  }
  return (await listener.waitUntil(() => mine() !== undefined, SENT_MS)) ? mine()! : 'gone';
}

/**
 * Waits (up to `ms`) for the trial's forwarder to leave (it removes its lease
 * as it goes), then stops what is left of it with SIGTERM, the signal it stops
 * on and is not started again after.
 */
async function forwarderGone(spool: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (leaseHeld(spool) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const pid = leaseHeld(spool) ? readLease(spool)!.pid : 0;
  if (pid > 1)
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
}

/**
 * Runs fleet-git's hook command for one test sessionStart (session id
 * `fleet-git-doctor-…`, in `cwd`) as Copilot runs it, with `env`, and tells
 * whether its normalized event reached the trial's own socket (waiting while
 * its forwarder runs, up to `waitMs`), and if not, why.
 */
export async function tryHookEvent(o: {
  dataDir: string;
  env: Env;
  home: string;
  cwd: string;
  waitMs?: number;
  /** nodeFor(env, dataDir), when the caller has it already. */
  node?: NodeFound;
  /** Run it as VS Code's agent does (VSCODE_SHELL), not as the Copilot CLI does. */
  vscode?: boolean;
}): Promise<HookTrial> {
  const waitMs = o.waitMs ?? TRIAL_WAIT_MS;
  const client = clientInUse(o.dataDir);
  const sessionId = `fleet-git-doctor-${randomUUID()}`;
  const tmp = socketTempDir('fleet-git-doctor-', join('observer', 'fleet.sock'));
  const run = join(tmp, 'run');
  const env: Record<string, string | undefined> = {
    ...o.env,
    XDG_RUNTIME_DIR: run,
    [OBSERVER_DIR_VAR]: join(tmp, 'observer'),
    [IDLE_MS_VAR]: '50',
  };
  // Not a repository's hook file (which the user-level one may silence) and not a doctor --live probe.
  delete env.COPILOT_HOOK_DIR;
  delete env[PROBE_VAR];
  let listener: EventListener | null = null;
  try {
    mkdirSync(run, { mode: 0o700 });
    listener = await EventListener.start(userPaths(env, o.home).fleetSocket);
    const started = Date.now();
    const command = hookCommand('sessionStart', { dataDir: o.dataDir });
    const shell = o.vscode ? VSCODE_SHELL : '/bin/bash';
    const r = o.vscode
      ? spawnSync(command, [], {
          shell,
          cwd: o.home,
          env: vscodeHookEnv(env),
          input: JSON.stringify({
            timestamp: new Date(started).toISOString(),
            hook_event_name: 'SessionStart',
            session_id: sessionId,
            // Where VS Code keeps its transcripts (a folder that is not there: no model to wait for).
            transcript_path: join(tmp, 'GitHub.copilot-chat', 'transcripts', `${sessionId}.jsonl`),
            cwd: o.cwd,
            source: 'new',
          }),
          encoding: 'utf8',
          timeout: 10_000,
        })
      : spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', command], {
          cwd: o.cwd,
          env,
          input: JSON.stringify({ sessionId, timestamp: started, cwd: o.cwd, source: 'new', initialPrompt: 'fleet-git doctor' }),
          encoding: 'utf8',
          timeout: 10_000,
        });
    const as = o.vscode ? 'as VS Code runs it' : 'as Copilot runs it';
    // A hook command that exits without reading its payload (the client gone, say) is normal: Copilot
    // ignores the broken pipe too, and bash ran. Only an error in starting it means bash cannot run.
    const epipe = (r.error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
    if (r.error && !epipe)
      return {
        ok: false,
        cause: 'no-bash',
        message: `cannot run ${shell}: ${describeError(r.error)}; ${o.vscode ? 'VS Code' : 'Copilot'} runs hooks with it`,
      };
    if (r.status !== 0 || r.stdout !== '') {
      // VS Code reads exit 2 as a blocking error shown to the model, which stops the request; another, a warning.
      const read =
        !o.vscode || r.status === 0
          ? ''
          : r.status === 2
            ? ', which VS Code reads as a blocking error: it stops the request'
            : ', a warning VS Code shows';
      return {
        ok: false,
        cause: 'hook-failed',
        message: `the hook command, run ${as}, exited ${r.status ?? r.signal}${read}${r.stdout ? ' and printed to stdout' : ''}${r.stderr.trim() ? ` (${r.stderr.trim().split('\n')[0]})` : ''}`,
        fix: 'fleet-git enable',
      };
    }
    // Without the data folder's script, the client or a node the hook command does nothing (tested in the hook's own tests): no wait.
    const script = join(o.dataDir, HOOK_SCRIPT);
    if (!existsSync(script))
      return {
        ok: false,
        cause: 'client-missing',
        message: `the data folder's hook script ${script} is missing, so enabled repositories report nothing`,
        fix: 'fleet-git enable',
      };
    if (!existsSync(client))
      return {
        ok: false,
        cause: 'client-missing',
        message: `the hook client ${client} is missing, so enabled repositories report nothing`,
        fix: 'fleet-git enable',
      };
    const node = o.node ?? nodeFor(env, o.dataDir);
    if (!node.usable)
      return {
        ok: false,
        cause: 'no-node',
        message: `${noNodeMessage(node)}: ${NO_NODE_FIX}`,
      };
    const mine = () => listener!.events.find((e) => e.session_id === sessionId);
    const arrived = await arrival(listener, mine, join(run, 'fleet-git'), waitMs);
    const ms = Date.now() - started;
    if (typeof arrived === 'object') {
      const missing = missingFields(arrived, { sessionId, cwd: o.cwd, vscode: o.vscode ?? false });
      if (missing.length === 0) return { ok: true, event: arrived, ms };
      return {
        ok: false,
        cause: 'incomplete',
        message: `the hook client's test event arrived without what the observer needs: ${missing.join('; ')}`,
        fix: 'fleet-git enable',
      };
    }
    // Whether that node loads the client at all: given no spool, the forwarder returns at once.
    const load = spawnSync(node.path!, [client, FORWARD_FLAG, join(tmp, 'none')], { env, encoding: 'utf8', timeout: 10_000 });
    if (load.error || load.status !== 0) {
      const lines = (load.stderr ?? '').split('\n').map((l) => l.trim());
      // Node's own words: the error's line (`SyntaxError: …`, `node: bad option: …`), not the source it quotes.
      const said = lines.find((l) => /^(?:[A-Z]\w*(?:Error|Exception)\b|Error:|node: )/.test(l)) ?? lines.find((l) => l !== '');
      const why = load.error ? (load.error as NodeJS.ErrnoException).code : said || `exit ${load.status ?? load.signal}`;
      return {
        ok: false,
        cause: 'client-broken',
        message: `${node.path} cannot run the hook client ${client} (${why}), so the hook does nothing`,
        fix: 'fleet-git enable',
      };
    }
    const why =
      arrived === 'gone' ? (epipe ? 'exited without reading it' : 'its forwarder left without sending it') : `within ${waitMs / 1000} s`;
    return {
      ok: false,
      cause: 'nothing-arrived',
      message: `the hook command ran, but its test event did not reach doctor's socket (${why}; node: ${node.path}${node.onPath ? ', on PATH' : ', recorded by fleet-git enable'}; client: ${client})`,
      fix: 'fleet-git enable',
    };
  } finally {
    await forwarderGone(join(run, 'fleet-git'), LEAVE_MS);
    await listener?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
