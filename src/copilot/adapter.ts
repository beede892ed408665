// CopilotAdapter: the fleet observer's adapter contract (upstream
// src/adapters/base.js, see fleet-observer-protocol.md) for GitHub Copilot CLI,
// as a library export. Launch arguments and environment for a model profile,
// the repository hook file, payload normalization and the action summary.
import { homedir } from 'node:os';
import { basename, dirname } from 'node:path';
import { actOnRepo } from '../core/repo-lock.js';
import { ensureUserFiles, runContext } from '../core/context.js';
import { findOnPath } from '../core/run.js';
import { assessRepo } from '../core/state.js';
import { locateRepo } from '../git/repo.js';
import { normalizePayload, summarizeToolUse, type FleetEvent } from './normalize.js';
import type { ProfileEntry } from './profiles.js';
import { CLIENT_FILE, type Env } from '../paths.js';

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


// Failures worth retrying with another profile, from Copilot's stderr.
const TRANSIENT: ReadonlyArray<[RegExp, string]> = [
  [/\b429\b|rate.?limit|too many requests/i, 'rate_limited'],
  [/quota|usage limit|premium requests/i, 'quota_exhausted'],
  [/econnrefused|econnreset|etimedout|enotfound|socket hang up|network error|fetch failed|\b50[234]\b|service unavailable|bad gateway/i, 'upstream_unreachable'],
  [/try again later|temporarily unavailable/i, 'temporarily_unavailable'],
];

export class CopilotAdapter {
  readonly name = 'copilot';
  readonly displayName = 'GitHub Copilot';
  readonly binary = 'copilot';
  readonly hookEvents: readonly string[] = ['SessionStart', 'PostToolUse', 'Stop'];

  /** `env`: where PATH, COPILOT_MODEL, FLEET_MODEL_NAME, TERM_PROGRAM are read (default: this process's). */
  constructor(private readonly env: Env = process.env) {}

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
   * `fleet-git enable` for the repository at `cwd`: the hook file (every hook
   * running the client at `hookClientPath`, which must be named hook-client.cjs),
   * the exclude entry and the post-checkout hook. Throws outside a repository.
   */
  installHooks(hookClientPath: string, cwd: string): void {
    if (basename(hookClientPath) !== CLIENT_FILE) throw new Error(`the hook client must be named ${CLIENT_FILE}: ${hookClientPath}`);
    const ctx = this.context(dirname(hookClientPath));
    ensureUserFiles(ctx);
    actOnRepo(locateRepo(cwd), ctx, { do: 'enable', force: false });
  }

  /** `fleet-git disable` for the repository at `cwd`: anyone else's file stays. */
  removeHooks(cwd: string): void {
    actOnRepo(locateRepo(cwd), this.context(), { do: 'disable', upstream: false });
  }

  /** Whether the worktree at `cwd` has fleet-git's hook file. */
  isHookInstalled(cwd: string): boolean {
    try {
      const repo = locateRepo(cwd);
      const state = assessRepo(repo, this.context());
      return [state.main, ...state.worktrees].some((w) => w !== null && w.path === repo.root && w.enabled);
    } catch {
      return false;
    }
  }

  private context(dataDir?: string) {
    return runContext(this.env, this.env.HOME || homedir(), dataDir);
  }

  /**
   * The observer's event for a Copilot payload, with this process as the hook
   * process (the hook client itself also resolves the agent's pid through a
   * shell and reads the transcript). Null: nothing to send.
   */
  normalizePayload(rawInput: unknown, event?: string): FleetEvent | null {
    return normalizePayload(rawInput, event, { env: this.env, pid: process.pid, ppid: process.ppid });
  }

  /** `Bash: npm test`, `Read index.ts`, `Edit app.ts`: the same for Copilot and Claude tool names. */
  summarizeToolUse(toolName: string, toolInput: unknown): string {
    return summarizeToolUse(toolName, toolInput);
  }

  classifyFailure(result: RunResult): FailureClass {
    const text = result?.stderrSnippet ?? '';
    for (const [re, reason] of TRANSIENT) if (re.test(text)) return { kind: 'failover-safe', reason };
    return { kind: 'terminal', reason: 'unclassified' };
  }
}

