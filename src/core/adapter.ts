// CopilotAdapter: the fleet observer's adapter contract (upstream
// src/adapters/base.js, see fleet-observer-protocol.md) for GitHub Copilot CLI,
// as a library export that fleet can register in place of its own. Launch
// arguments and environment for a model profile, the repository hook file
// (for fleet-git's hook client or fleet's own), payload normalization, the
// action summary and the failure classes of fleet's load balancer.
import { homedir } from 'node:os';
import * as nodeFs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ensureUserFiles, runContext } from './repo/context.js';
import { actOnRepo } from './repo/repo-lock.js';
import { HOOK_FILE_PATH, classifyHookFile, renderClientHookFile, renderHookFile } from './repo/hook-file.js';
import { findOnPath } from './session/run.js';
import { locateRepo, type Repo } from '../git/repo.js';
import { lastMessage, summarizeToolUse } from '../copilot/normalize.js';
import type { FleetEvent } from '../fleet/event.js';
import type { ProfileEntry } from '../copilot/profiles.js';
import { waitForFinalMessage } from '../copilot/transcript.js';
import { hookEventOf, routeAlone, stopWaitMs } from '../copilot/hook-event.js';
import { CLIENT_FILE, userPaths, type Env } from '../paths.js';

/**
 * The file-system calls of the hook-file operations (installHooks, removeHooks,
 * isHookInstalled): Node's fs, or a stand-in such as an in-memory file system.
 * `lstatSync`, when there, lets them refuse a symbolic link on the way.
 */
export interface AdapterFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding: 'utf8'): string | { toString(): string };
  writeFileSync(path: string, data: string): void;
  mkdirSync(path: string, options: { recursive: true }): unknown;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  lstatSync?(path: string): { isSymbolicLink(): boolean };
}

export interface AdapterOptions {
  /** Where the hook-file operations read and write (default: Node's fs, the real disk). */
  fs?: AdapterFs;
  /** Where PATH, HOME, COPILOT_HOME, COPILOT_MODEL, FLEET_MODEL_NAME, TERM_PROGRAM and the event hint are read (default: this process's). */
  env?: Env;
}

/** One entry of the observer's models.json, as the adapter contract takes it. */
export type ModelProfile = ProfileEntry;

/** What the observer's launcher knows about a failed run. */
export interface RunResult {
  code?: number | null;
  stderrSnippet?: string | null;
}

export interface FailureClass {
  /** failover-safe: another profile may be tried; terminal: it would fail the same way. */
  kind: 'failover-safe' | 'terminal';
  reason: string;
}

// Failures worth retrying with another profile, from Copilot's stderr, in the
// words fleet's own adapters key them on; the first match wins (a hang-up
// during start-up is start-up's, "temporarily unavailable" after a 503 the upstream's).
const TRANSIENT: ReadonlyArray<[RegExp, string]> = [
  [/\b429\b|rate.?limit|too many requests/i, 'rate_limited'],
  [/quota|usage limit|premium requests/i, 'quota_exhausted'],
  [/tls handshake|handshake failed|socket hang up before start-?up|proxy connect(ion)? (was )?abort/i, 'startup_transient_error'],
  [
    /econnrefused|econnreset|etimedout|enotfound|socket hang up|network error|fetch failed|upstream connect error|\b50[234]\b|service unavailable|bad gateway/i,
    'upstream_unreachable',
  ],
  [/temporarily unavailable|try again later|auth\w*\b[^\n]{0,60}\btemporar/i, 'auth_temporarily_unusable'],
];

export class CopilotAdapter {
  readonly name = 'copilot';
  readonly displayName = 'GitHub Copilot';
  readonly binary = 'copilot';
  readonly hookEvents: readonly string[] = ['SessionStart', 'PostToolUse', 'Stop'];
  private readonly env: Env;
  private readonly fs: AdapterFs;
  /** Whether the hook-file operations reach the real disk, where a repository's git side (exclude, git hook) can be read and written too. */
  private readonly onDisk: boolean;

  /** `new CopilotAdapter()`, `new CopilotAdapter({ fs })` as fleet's tests make theirs, `{ env }` for another environment. */
  constructor(options: AdapterOptions = {}) {
    this.env = options.env ?? process.env;
    this.fs = options.fs ?? nodeFs;
    this.onDisk = this.fs.writeFileSync === nodeFs.writeFileSync && this.fs.renameSync === nodeFs.renameSync;
  }

  /** Whether `copilot` is an executable file on PATH. */
  isInstalled(): boolean {
    return findOnPath(this.binary, this.env) !== null;
  }

  /** Copilot has no --model flag: the model goes in the environment (buildEnv). */
  buildArgs(entry: ModelProfile): string[] {
    return ['--allow-all', ...(entry.args ?? [])];
  }

  /** A new environment for a profile; `baseEnv` is never changed. */
  buildEnv(entry: ModelProfile, baseEnv: Env): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = { ...baseEnv, FLEET_MODEL_NAME: entry.name };
    if (entry.model) env.COPILOT_MODEL = entry.model;
    if (entry.apiKey) env.COPILOT_GITHUB_TOKEN = entry.apiKey;
    for (const [k, v] of Object.entries(entry.env ?? {})) {
      if (v !== undefined && v !== null) env[k] = String(v);
    }
    return env;
  }

  /**
   * The hook file at the root of the worktree holding `cwd` (Copilot reads it
   * there), for the hook client at `hookClientPath`:
   * - fleet-git's own (a file named hook-client.cjs), on the real disk:
   *   `fleet-git enable` (the hook file, the exclude entry, the post-checkout
   *   hook); throws outside a repository;
   * - any other client (fleet's `hook-client.js`), or any client through a
   *   given `fs`: the hook file only, each command naming its event for a
   *   client that passes none on (renderClientHookFile).
   * Throws, changing nothing, over a hook file neither fleet nor fleet-git
   * wrote, a tracked one, or a symbolic link on the way.
   */
  installHooks(hookClientPath: string, cwd: string = process.cwd()): void {
    const client = resolve(hookClientPath);
    const own = basename(client) === CLIENT_FILE;
    if (own && this.onDisk) {
      const ctx = this.context(dirname(client));
      ensureUserFiles(ctx);
      actOnRepo(locateRepo(cwd), ctx, { do: 'enable', force: false });
      return;
    }
    const { root, repo } = this.where(cwd);
    const text = own ? renderHookFile({ dataDir: dirname(client) }) : renderClientHookFile(client);
    if (repo) {
      // In a repository, as enable writes its own: under the lock fleet-git's commands take turns on, kept out of commits by the
      // exclude block, its folders recorded for disable and remove.
      const { outcome } = actOnRepo(repo, this.context(), { do: 'client-hook-file', root, text });
      if (outcome.notes.length) throw new Error(outcome.notes[0]);
    } else this.writeHookFile(root, text);
  }

  /**
   * Takes out what installHooks put in. On the real disk in a repository:
   * `fleet-git disable` that also removes fleet's own hook files (as `fleet-git
   * remove` does). Otherwise: the hook file, when fleet or fleet-git wrote it.
   * Anyone else's file stays.
   */
  removeHooks(cwd: string = process.cwd()): void {
    const { root, repo } = this.where(cwd);
    if (repo) {
      actOnRepo(repo, this.context(), { do: 'disable', upstream: true });
      return;
    }
    const file = join(root, HOOK_FILE_PATH);
    this.refuseLinks(root);
    const text = this.read(file);
    if (text === null) return;
    const kind = classifyHookFile(text, '').kind;
    if (kind === 'ours' || kind === 'upstream') this.fs.unlinkSync(file);
  }

  /** Whether the worktree holding `cwd` has a hook file whose events reach the observer: fleet-git's, or installHooks' for fleet's client. */
  isHookInstalled(cwd: string = process.cwd()): boolean {
    try {
      const info = classifyHookFile(this.read(join(this.where(cwd).root, HOOK_FILE_PATH)), '');
      return info.kind === 'ours' || (info.kind === 'upstream' && info.hinted === true);
    } catch {
      return false;
    }
  }

  private context(dataDir?: string) {
    return runContext(this.env, this.env.HOME || homedir(), dataDir);
  }

  /** The worktree root holding `cwd` and its repository (on the real disk, when there is one); else `cwd` itself. */
  private where(cwd: string): { root: string; repo: Repo | null } {
    if (this.onDisk) {
      try {
        const repo = locateRepo(cwd);
        return { root: repo.root, repo };
      } catch {
        /* not in a repository: the folder itself, as Copilot reads it */
      }
    }
    return { root: resolve(cwd), repo: null };
  }

  private read(file: string): string | null {
    if (!this.fs.existsSync(file)) return null;
    return String(this.fs.readFileSync(file, 'utf8'));
  }

  /** Throws when `.github`, `.github/hooks` or the hook file is a symbolic link (fleet-git never writes through one). */
  private refuseLinks(root: string): void {
    const lstat = this.fs.lstatSync;
    if (!lstat) return;
    for (let rel = HOOK_FILE_PATH; rel !== '.'; rel = dirname(rel)) {
      const path = join(root, rel);
      let link = false;
      try {
        link = lstat.call(this.fs, path).isSymbolicLink();
      } catch {
        /* not there */
      }
      if (link)
        throw new Error(`left ${join(root, HOOK_FILE_PATH)} alone: ${path} is a symbolic link (fleet-git never writes through one)`);
    }
  }

  /**
   * Writes the hook file through a temporary file and a rename, over nothing,
   * fleet's file or fleet-git's only: outside a repository, or through a given
   * `fs` (in a repository on the real disk, planClientHookFile does it).
   */
  private writeHookFile(root: string, text: string): void {
    const file = join(root, HOOK_FILE_PATH);
    this.refuseLinks(root);
    const before = this.read(file);
    if (before !== null && classifyHookFile(before, text).kind === 'foreign') {
      throw new Error(`left ${file} alone: it was written by someone else, not fleet or fleet-git`);
    }
    if (before === text) return;
    const fs = this.fs;
    fs.mkdirSync(dirname(file), { recursive: true });
    const tmp = join(dirname(file), `.${basename(file)}.fleet-git-${process.pid}.tmp`);
    fs.writeFileSync(tmp, text);
    try {
      fs.renameSync(tmp, file);
    } catch (e) {
      try {
        fs.unlinkSync(tmp);
      } catch {
        /* keep the first error */
      }
      throw e;
    }
  }

  /**
   * The observer's event for a Copilot payload, the same the hook client
   * sends: the event from `event`, else from the hook command's hint
   * (FLEET_COPILOT_EVENT in the environment, set by installHooks' file for
   * fleet's client), else from the payload's `hook_event_name` or `type`. This
   * process is the hook process and its parent the agent (the command execs
   * node); a SessionStart's model comes from the transcript when the
   * environment names none, an agentStop's last message from the transcript,
   * waited for as the hook client waits (3 s, or FLEET_GIT_STOP_WAIT_MS in the
   * environment; blocking: the caller is a hook client). A subagent's event is
   * its parent session's (routeAlone). Null: nothing to send.
   */
  normalizePayload(rawInput: unknown, event?: string): FleetEvent | null {
    const env = this.env;
    const copilotHome = userPaths(env, env.HOME || homedir()).copilotHome;
    const made = hookEventOf(rawInput, event, env, copilotHome, process.pid, () => process.ppid);
    if (!made || !routeAlone(made, copilotHome)) return null;
    const { ev, transcript } = made;
    if (transcript !== null) ev.last_assistant_message = lastMessage(waitForFinalMessage(transcript, stopWaitMs(env)));
    return ev;
  }

  /** `Bash: npm test`, `Read index.ts`, `Edit app.ts`: the same for Copilot and Claude tool names. */
  summarizeToolUse(toolName: string, toolInput: unknown): string {
    return summarizeToolUse(toolName, toolInput);
  }

  /** Whether fleet's load balancer may try the next profile after a failed start; never throws. */
  classifyFailure(result: RunResult | null | undefined): FailureClass {
    const snippet = result?.stderrSnippet;
    const text = typeof snippet === 'string' ? snippet : '';
    for (const [re, reason] of TRANSIENT) if (re.test(text)) return { kind: 'failover-safe', reason };
    return { kind: 'terminal', reason: 'unclassified' };
  }
}
