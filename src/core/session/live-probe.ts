// `fleet-git doctor --live`: one real, offline Copilot session in a repository,
// and what the observer would have seen of it. The user's own copilot runs in
// -p mode against a scripted model server on loopback (a bash call, a view,
// then a final answer), with the user's trust and hook levels: a temporary
// COPILOT_HOME holds a copy of config.json and the user-level hook files that
// run fleet-git's hook client (no other is run: they are listed), the hook
// client reports to a socket of the probe's own (FLEET_GIT_OBSERVER_DIR), and
// each event says which hook file sent it (FLEET_GIT_PROBE). Everything else
// is the user's: PATH, HOME (so version-manager shims and git config behave as
// in a real session), the environment, the repository's hook files.
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { parentOf } from '../../fs/process.js';
import { readText } from '../../fs/read.js';
import { locateRepo } from '../../git/repo.js';
import { HOOK_SCRIPT, isUnder, OBSERVER_DIR_VAR, type Env } from '../../paths.js';
import { copilotConfigFile, fixFirst, FolderIndex, readTrust } from '../../copilot/trust.js';
import { startModelServer, type Script } from '../../copilot/model-server.js';
import { PROBE_VAR } from '../../copilot/normalize.js';
import {
  copilotVersion,
  killTagged,
  readLogFacts,
  readTranscriptFacts,
  runSession,
  type HookRun,
  type SessionRun,
} from '../../copilot/live-session.js';
import { EventListener, socketTempDir, type Received } from '../../fleet/listener.js';
import { runContext } from '../repo/context.js';
import { kitClient, readStamp } from '../repo/kit.js';
import { classifyHookFile } from '../repo/hook-file.js';
import { HOOK_MARK, hookCommands, userHookFile, userHooksDir } from '../../copilot/hook-mark.js';
import { findOnPath, INSTALL_HINT, isExecutableFile } from './run.js';
import { nodeFor, NO_NODE_FIX, noNodeMessage } from './hook-trial.js';

/** The whole probe ends within this (the issue's promise is 60 s). */
const BUDGET_MS = 57_000;
/** Copilot's share of it, at most (--timeout). */
export const MAX_SESSION_S = 50;
/** After Copilot exits: how long to wait for events still on their way (the agentStop waiter polls the transcript up to 3 s). */
const AFTER_EXIT_MS = 4_000;
/** After Copilot exits without a sessionEnd having arrived: how long to wait for one. */
const NO_END_MS = 1_500;
/** Once every expected event is in: how long to wait for a second copy. */
const SETTLE_MS = 300;
const MODEL = 'gpt-4.1';
const PROMPT = 'fleet-git doctor --live: run one shell command, view this folder, then answer.';
const SESSION_END_REASONS = new Set(['complete', 'error', 'abort', 'timeout', 'user_exit']);

export const EXPECTED = ['sessionStart', 'postToolUse:bash', 'postToolUse:view', 'agentStop', 'sessionEnd'] as const;
export type ExpectedId = (typeof EXPECTED)[number];
export type Level = 'repo' | 'user' | 'unknown';

export interface Cause {
  code:
    | 'session-failed'
    | 'not-enabled'
    | 'invalid-json'
    | 'timeout'
    | 'not-trusted'
    | 'repo-not-loaded'
    | 'no-node'
    | 'client-missing'
    | 'both-levels'
    | 'no-message'
    | 'unknown';
  message: string;
  /** The command (or step) that fixes it; null when fleet-git knows none. */
  fix: string | null;
}

export interface EventReport {
  id: ExpectedId;
  status: 'once' | 'missing' | 'twice';
  count: number;
  /** The level of each copy received, in arrival order. */
  levels: Level[];
  /** How long Copilot waited on this event's hooks (every hook file's entries for it), from its transcript. */
  waitedMs: number | null;
  cause: Cause | null;
}

export interface HookFileReport {
  path: string;
  level: 'repo' | 'user';
  /** Runs fleet-git's hook client. */
  fleetGit: boolean;
  /** For user-level files: copied into the probe's COPILOT_HOME (only fleet-git's are). */
  run: boolean;
  /** Copilot's reason for rejecting it (not valid JSON, ...), or null. */
  invalid: string | null;
}

export interface LiveReport {
  repo: string;
  copilot: { path: string; version: string | null };
  ok: boolean;
  events: EventReport[];
  ppid: { ppid: number | null; copilotPid: number; isCopilot: boolean | null };
  hookFiles: HookFileReport[];
  /** Causes of every miss or repeat, each once. */
  causes: Cause[];
  /** What is worth knowing and is not a fault. */
  notes: string[];
  /** `output`: what Copilot printed (the first 2,000 characters), when the session failed. */
  session: { exitCode: number | null; signal: string | null; timedOut: boolean; interrupted: boolean; ms: number; output: string | null };
}

export interface ProbeOptions {
  /** The folder named (or the current one), relative to cwd. */
  path: string;
  cwd: string;
  copilot?: string;
  env: Env;
  home: string;
  /** Copilot's own share of the budget, at most BUDGET_MS. */
  timeoutMs?: number;
  /** Told what the probe is doing as it starts each step, for a progress line. */
  onStep?: (what: string) => void;
}

function findCopilotBin(opts: ProbeOptions): string {
  if (opts.copilot !== undefined) {
    const p = resolve(opts.cwd, opts.copilot);
    if (!isExecutableFile(p))
      throw new UsageError(`--copilot ${opts.copilot}: not an executable file (install Copilot with ${INSTALL_HINT})`);
    return p;
  }
  const p = findOnPath('copilot', opts.env);
  if (!p)
    throw new UsageError(`no Copilot CLI found (no copilot on PATH): install it with ${INSTALL_HINT}, or name it with --copilot PATH`);
  return p;
}

/** Every *.json under `dir`, sorted (Copilot reads subfolders of .github/hooks too). */
function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  (function walk(d: string) {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.json')) out.push(p);
    }
  })(dir);
  return out.sort();
}

export interface SeenFile {
  path: string;
  text: string | null;
  fleetGit: boolean;
  allFleetGit: boolean;
  parseError: string | null;
}

/** A hook file as the probe sees it: whether its commands run fleet-git's hook client (its mark, or its data folder). */
export function seeFile(path: string, dataDir: string): SeenFile {
  const text = readText(path);
  if (text === null) return { path, text, fleetGit: false, allFleetGit: false, parseError: 'cannot be read' };
  const ours = (c: string) => c.includes(HOOK_MARK) || c.includes(dataDir);
  let parseError: string | null = null;
  try {
    JSON.parse(text);
  } catch (e) {
    parseError = `not valid JSON (${(e as Error).message})`;
  }
  const commands = hookCommands(text);
  if (commands === null) {
    const mentions = ours(text);
    return { path, text, fleetGit: mentions, allFleetGit: mentions, parseError };
  }
  const mine = commands.filter(ours);
  return { path, text, fleetGit: mine.length > 0, allFleetGit: mine.length > 0 && mine.length === commands.length, parseError };
}

/** Which expected event a received one is (null: none). */
function expectedOf(e: Received): ExpectedId | null {
  if (e.event === 'SessionStart') return 'sessionStart';
  if (e.event === 'PostToolUse') return e.tool_name === 'Bash' ? 'postToolUse:bash' : e.tool_name === 'Read' ? 'postToolUse:view' : null;
  if (e.event === 'Stop') return SESSION_END_REASONS.has(String(e.message)) ? 'sessionEnd' : 'agentStop';
  return null;
}

function hookRunFor(id: ExpectedId, runs: HookRun[]): HookRun | null {
  const [type, tool] = id.split(':') as [string, string | undefined];
  return (
    runs.find((r) =>
      tool ? (r.hookType === 'postToolUse' || r.hookType === 'postToolUseFailure') && r.toolName === tool : r.hookType === type,
    ) ?? null
  );
}

export async function liveProbe(opts: ProbeOptions): Promise<LiveReport> {
  const started = Date.now();
  const root = locateRepo(resolve(opts.cwd, opts.path)).root;
  const bin = findCopilotBin(opts);
  const ctx = runContext(opts.env, opts.home);
  const realHome = ctx.user.copilotHome;
  const dataDir = ctx.user.dataDir;

  // The hook files as Copilot would find them.
  const repoFiles = jsonFiles(join(root, '.github', 'hooks')).map((p) => seeFile(p, dataDir));
  const userFiles = jsonFiles(userHooksDir(ctx.user)).map((p) => seeFile(p, dataDir));
  const carried = userFiles.filter((f) => f.allFleetGit);

  // The listener's socket must fit a Unix socket's path: under a long TMPDIR, in /tmp.
  const tmp = socketTempDir('fleet-git-live-', join('observer', 'fleet.sock'));
  const probeHome = join(tmp, 'copilot');
  const observerDir = join(tmp, 'observer');
  const runtimeDir = join(tmp, 'run');
  const token = randomUUID();
  let listener: EventListener | null = null;
  let server: Awaited<ReturnType<typeof startModelServer>> | null = null;
  try {
    opts.onStep?.('starting an observer and a scripted model');
    mkdirSync(probeHome, { recursive: true, mode: 0o700 });
    mkdirSync(runtimeDir, { mode: 0o700 });
    const config = copilotConfigFile(ctx.user);
    if (existsSync(config)) copyFileSync(config, join(probeHome, 'config.json'));
    for (const f of carried) {
      const to = join(probeHome, 'hooks', relative(userHooksDir(ctx.user), f.path));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(f.path, to);
    }
    // The ppid's parent is read as the SessionStart arrives, while Copilot still runs.
    let ppidParent: number | null = null;
    listener = await EventListener.start(join(observerDir, 'fleet.sock'), {
      onEvent: (e) => {
        if (e.event === 'SessionStart' && typeof e.ppid === 'number' && ppidParent === null) ppidParent = parentOf(e.ppid);
      },
    });
    const script: Script = { command: 'echo fleet-git doctor --live', viewPath: root, finalText: 'fleet-git doctor --live: done.' };
    server = await startModelServer({ model: MODEL, script });

    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined && !k.startsWith('COPILOT_PROVIDER_')) env[k] = v;
    Object.assign(env, {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: server.baseUrl,
      COPILOT_PROVIDER_API_KEY: 'fleet-git-live',
      COPILOT_MODEL: MODEL,
      COPILOT_HOME: probeHome,
      [OBSERVER_DIR_VAR]: observerDir,
      [PROBE_VAR]: token,
      // The hook command spools each event there for its forwarder: the probe's
      // events go through a forwarder of their own, which the token sweep ends
      // without touching one that serves the user's real sessions.
      XDG_RUNTIME_DIR: runtimeDir,
      NO_PROXY: [opts.env.NO_PROXY, '127.0.0.1', 'localhost'].filter(Boolean).join(','),
    });
    const budget = Math.min(opts.timeoutMs ?? MAX_SESSION_S * 1000, MAX_SESSION_S * 1000, started + BUDGET_MS - AFTER_EXIT_MS - Date.now());
    opts.onStep?.(`running one Copilot session in ${root}`);
    const run = await runSession(bin, ['-p', PROMPT, '--allow-all', '--no-auto-update', '--log-level', 'debug'], {
      cwd: root,
      env,
      timeoutMs: budget,
    });
    // Events still on their way: until every expected one is in (then a moment for
    // second copies), or the session's end and its agentStop are, or, with no
    // sessionEnd at all, a short while.
    const exited = Date.now();
    opts.onStep?.("waiting for the session's last events");
    const has = (id: ExpectedId) => listener!.events.some((e) => expectedOf(e) === id);
    const settled = () =>
      EXPECTED.every(has) || (has('sessionEnd') && has('agentStop')) || (!has('sessionEnd') && Date.now() - exited >= NO_END_MS);
    const waitLeft = run.interrupted ? 0 : Math.max(0, Math.min(AFTER_EXIT_MS, started + BUDGET_MS - Date.now()));
    if (await listener.waitUntil(settled, waitLeft)) await new Promise((r) => setTimeout(r, SETTLE_MS));
    killTagged(PROBE_VAR, token);
    const received = [...listener.events];

    const sid = received.find((e) => e.event === 'SessionStart')?.session_id;
    const transcript = readTranscriptFacts(probeHome, typeof sid === 'string' ? sid : null);
    const log = readLogFacts(join(probeHome, 'logs'));
    const version =
      transcript.copilotVersion ??
      log.copilotVersion ??
      (run.spawnError || run.timedOut || run.interrupted ? null : copilotVersion(bin, env, 5_000));
    const node = nodeFor(env, dataDir);
    const trust = readTrust(ctx.user);
    const trusted =
      opts.env.COPILOT_ALLOW_ALL === 'true' ||
      opts.env.GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS === 'true' ||
      new FolderIndex(trust.folders).by(root) !== null;
    const clients = new Set([...repoFiles, ...carried].filter((x) => x.fleetGit).flatMap((x) => classifyHookFile(x.text, '').clients));
    // A shim runs the data folder's hook.sh, which runs its kit's client: both must be there.
    const kits = [...clients].filter((c) => basename(c) === HOOK_SCRIPT).map((c) => dirname(c));
    for (const d of kits) {
      const id = readStamp(d).id;
      if (id) clients.add(kitClient(d, id));
    }
    const missingClients = [...clients].filter((c) => !existsSync(c));
    const settingsHooks = /"hooks"\s*:/.test(readText(join(realHome, 'settings.json')) ?? '');
    return judge({
      root,
      bin,
      version,
      run,
      received,
      transcript: transcript.hookRuns,
      log,
      node,
      trusted,
      trustFix: trust.problem ? fixFirst(trust.problem) : undefined,
      repoFiles,
      userFiles,
      carried,
      probeHome,
      realHome,
      finalText: script.finalText,
      userFleetJson: userHookFile(ctx.user),
      ppidParent,
      missingClients,
      settingsHooks,
    });
  } finally {
    killTagged(PROBE_VAR, token);
    await listener?.close();
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export interface Facts {
  root: string;
  bin: string;
  version: string | null;
  run: SessionRun;
  received: Received[];
  transcript: HookRun[];
  log: ReturnType<typeof readLogFacts>;
  /** Which node the hook command would run (its path is not judged). */
  node: Omit<ReturnType<typeof nodeFor>, 'path'>;
  trusted: boolean;
  /** What to do first when Copilot's config.json is one enable --trust would refuse (not valid JSON, ...). */
  trustFix?: string;
  repoFiles: SeenFile[];
  userFiles: SeenFile[];
  carried: SeenFile[];
  probeHome: string;
  realHome: string;
  finalText: string;
  userFleetJson: string;
  /** The parent of the SessionStart's ppid, read while Copilot ran (null: unknown). */
  ppidParent: number | null;
  /** Hook clients that fleet-git's hook files name and that do not exist. */
  missingClients: string[];
  /** $COPILOT_HOME/settings.json has hooks (not run in the probe). */
  settingsHooks: boolean;
}

function levelOf(e: Received, f: Facts): Level {
  const dir = typeof e.probe_hook_dir === 'string' ? e.probe_hook_dir : null;
  if (!dir) return 'unknown';
  if (isUnder(dir, f.probeHome)) return 'user';
  if (isUnder(dir, f.root)) return 'repo';
  return 'unknown';
}

/** Copilot's rejection of a file, from its log or our own parse. */
function invalidOf(file: SeenFile, f: Facts): string | null {
  const inLog = f.log.invalid.find((i) => i.file === file.path);
  return inLog?.error ?? file.parseError;
}

/** The report, from what the probe saw: pure. */
export function judge(f: Facts): LiveReport {
  const sessionOk = !f.run.timedOut && !f.run.interrupted && f.run.spawnError === null && f.run.code === 0;
  const repoSources = f.repoFiles.filter((x) => x.fleetGit && x.parseError === null);
  const userSources = f.carried.filter((x) => x.parseError === null);
  const brokenSources = [...f.repoFiles, ...f.carried].filter((x) => x.fleetGit && x.parseError !== null);
  const home = (p: string) => (isUnder(p, f.realHome) ? `$COPILOT_HOME/${relative(f.realHome, p)}` : p);
  const rel = (p: string) => (isUnder(p, f.root) ? relative(f.root, p) : home(p));

  function missingCause(run: HookRun | null): Cause {
    if (!sessionOk && !run) {
      const why = f.run.spawnError
        ? `could not be started (${f.run.spawnError})`
        : f.run.interrupted
          ? 'was stopped by a signal to fleet-git'
          : f.run.timedOut
            ? `did not finish within ${Math.round(f.run.limitMs / 1000)} s and was stopped`
            : `exited with ${f.run.code ?? f.run.signal}`;
      const said =
        f.run.output
          .split('\n')
          .map((l) => l.trim())
          .find((l) => l) ?? '';
      return {
        code: 'session-failed',
        message: `Copilot ${why} before this event${said ? ` (it said: ${said.slice(0, 200)})` : ''}`,
        fix: `${f.bin} -p "hello" to see Copilot's own error`,
      };
    }
    if (repoSources.length === 0 && userSources.length === 0) {
      if (brokenSources.length) {
        const b = brokenSources[0]!;
        return {
          code: 'invalid-json',
          message: `${rel(b.path)} runs fleet-git's hook client but is ${b.parseError}, so Copilot ignores all of it`,
          fix: `fix ${rel(b.path)}, or move it away and run fleet-git enable`,
        };
      }
      return {
        code: 'not-enabled',
        message: "no hook file here runs fleet-git's hook client",
        fix: 'fleet-git enable (or fleet-git enable --user for every folder)',
      };
    }
    const ours = [...repoSources, ...userSources].map((x) => x.path);
    const timedOut =
      run?.error && /timed out/i.test(run.error.message) && (run.error.source === null || ours.includes(resolve(f.root, run.error.source)))
        ? run.error
        : null;
    if (timedOut)
      return {
        code: 'timeout',
        message: `Copilot stopped waiting for the hook (${timedOut.message}${timedOut.source ? `, in ${timedOut.source}` : ''})`,
        fix: 'fleet-git doctor (node and the hook client, run as Copilot runs them)',
      };
    if (userSources.length === 0) {
      if (!f.trusted)
        return {
          code: 'not-trusted',
          message: `Copilot does not trust ${f.root}, so copilot -p skips the repository's hook files (interactive sessions ask once)`,
          fix: f.trustFix ?? 'fleet-git enable --trust',
        };
      if (f.log.repoHooksLoaded === false || !run)
        return {
          code: 'repo-not-loaded',
          message:
            "Copilot trusts the folder but did not run the repository's hook for this event (a known Copilot issue on some versions and platforms)",
          fix: 'fleet-git enable --user',
        };
    }
    if (!f.node.usable) {
      return {
        code: 'no-node',
        message: noNodeMessage(f.node),
        fix: NO_NODE_FIX,
      };
    }
    const gone = f.missingClients[0];
    if (gone)
      return {
        code: 'client-missing',
        message: `the ${basename(gone) === HOOK_SCRIPT ? "data folder's hook script" : 'hook client'} ${gone} is missing`,
        fix: 'fleet-git enable',
      };
    return {
      code: 'unknown',
      message: run ? "Copilot ran the hook, but nothing reached the probe's socket" : 'Copilot did not run a hook for this event',
      fix: 'fleet-git doctor',
    };
  }

  function repeatCause(levels: Level[]): Cause {
    const files = [...repoSources, ...userSources];
    if (levels.includes('repo') && levels.includes('user')) {
      const userOurs = userSources.some((x) => x.path === f.userFleetJson && x.text?.includes(HOOK_MARK));
      const extras = userSources.filter((x) => x.path !== f.userFleetJson || !userOurs).map((x) => home(x.path));
      return {
        code: 'both-levels',
        message: `the repository's hook file and ${extras.join(', ')} both run fleet-git's hook client, and without fleet-git's own $COPILOT_HOME/hooks/fleet.json the repository's file does not step aside`,
        fix: `move ${extras.join(', ')} away, then run fleet-git enable --user (one user-level file that reports every folder once)`,
      };
    }
    return {
      code: 'both-levels',
      message: `${files.length} hook files run fleet-git's hook client: ${files.map((x) => rel(x.path)).join(', ')}`,
      fix: `keep one: move the others away, then run fleet-git enable`,
    };
  }

  const events: EventReport[] = EXPECTED.map((id) => {
    const copies = f.received.filter((e) => expectedOf(e) === id);
    const levels = copies.map((e) => levelOf(e, f));
    const run = hookRunFor(id, f.transcript);
    const waitedMs = run && run.endedAt !== null ? run.endedAt - run.startedAt : null;
    const status = copies.length === 0 ? 'missing' : copies.length === 1 ? 'once' : 'twice';
    let cause: Cause | null = status === 'missing' ? missingCause(run) : status === 'twice' ? repeatCause(levels) : null;
    if (!cause && id === 'agentStop' && copies[0]!.last_assistant_message !== f.finalText) {
      cause = {
        code: 'no-message',
        message: `the agentStop arrived without the final message (got ${JSON.stringify(copies[0]!.last_assistant_message)})`,
        fix: 'fleet-git doctor',
      };
    }
    return { id, status, count: copies.length, levels, waitedMs, cause };
  });

  const start = f.received.find((e) => e.event === 'SessionStart');
  const ppid = typeof start?.ppid === 'number' ? start.ppid : null;
  // The process started, or (an npm install) the native binary its loader started.
  const isCopilot = ppid === null ? null : ppid === f.run.pid ? true : f.ppidParent === null ? null : f.ppidParent === f.run.pid;

  const hookFiles: HookFileReport[] = [
    ...f.repoFiles.map((x) => ({ path: x.path, level: 'repo' as const, fleetGit: x.fleetGit, run: true, invalid: invalidOf(x, f) })),
    ...f.userFiles.map((x) => ({
      path: x.path,
      level: 'user' as const,
      fleetGit: x.fleetGit,
      run: f.carried.includes(x),
      invalid: invalidOf(x, f),
    })),
  ];
  const notes: string[] = [];
  for (const h of hookFiles) {
    if (h.level === 'repo' && !h.fleetGit)
      notes.push(
        h.invalid
          ? `${rel(h.path)}: Copilot ignores this hook file of the repository, silently, in every session (${h.invalid})`
          : `${rel(h.path)}: another hook file of this repository; the probe loads it as every session here does`,
      );
    if (h.level === 'user' && !h.run)
      notes.push(
        `${home(h.path)}: a user-level hook file that is not fleet-git's, not run in the probe${h.invalid ? ` (Copilot ignores it anyway: ${h.invalid})` : ''}`,
      );
  }
  if (f.settingsHooks) notes.push('$COPILOT_HOME/settings.json has hooks of its own: not run in the probe');
  if (!f.node.onPath && f.node.usable)
    notes.push(`no node on the PATH Copilot runs hooks with: the hook used the one fleet-git enable recorded (${f.node.recorded})`);

  const causes: Cause[] = [];
  for (const e of events)
    if (e.cause && !causes.some((c) => c.code === e.cause!.code && c.message === e.cause!.message)) causes.push(e.cause);
  const ok = events.every((e) => e.status === 'once' && e.cause === null) && isCopilot !== false;
  return {
    repo: f.root,
    copilot: { path: f.bin, version: f.version },
    ok,
    events,
    ppid: { ppid, copilotPid: f.run.pid, isCopilot },
    hookFiles,
    causes,
    notes,
    session: {
      exitCode: f.run.code,
      signal: f.run.signal,
      timedOut: f.run.timedOut,
      interrupted: f.run.interrupted,
      ms: f.run.ms,
      output: sessionOk ? null : f.run.output.slice(0, 2000),
    },
  };
}
