// What one run of fleet-git needs to know once, whatever the number of
// repositories: the user's paths, the bytes it would write, the git config reader.
import { join } from 'node:path';
import { removeStaleTemps, writeAtomic } from '../../fs/atomic.js';
import { makeDataDir } from '../../fs/data-dir.js';
import { ConfigReader } from '../../git/config.js';
import { gitVersion } from '../../git/process.js';
import { userPaths, type Env, type UserPaths } from '../../paths.js';
import { NODE_FILE, renderHookFile } from './hook-file.js';
import { renderGitHook } from './git-hook.js';
import { REPO_HOOK, configHookCommand, runsConfigHooks } from './config-hook.js';
import { installKit, type KitFound } from './kit.js';
import { forgetGone } from './record.js';

export interface RunContext {
  env: Env;
  user: UserPaths;
  config: ConfigReader;
  /** The hook file as fleet-git writes it now. */
  hookFile: string;
  /** The post-checkout hook as fleet-git writes it now (in a hooks folder, and as the data folder's repo-hook). */
  gitHook: string;
  /** The data folder's copy of gitHook (config-hook.ts REPO_HOOK): what the config entry runs, and a hook manager's line (older gits). */
  repoHook: string;
  /** The command of the hook entry enable adds to a repository's config (config-hook.ts), which runs the data folder's repo-hook. */
  configHook: string;
  /** Whether the git on PATH runs hooks named in config (git 2.54 and later): then enable provisions worktrees that way. Asked of git once a run, when first read. */
  readonly configHooks: boolean;
}

/** `configHooks`: given, git is not asked (the post-checkout hook's run, which plans no git hook). */
export function runContext(env: Env, home: string, dataDir?: string, configHooks?: boolean): RunContext {
  const user = userPaths(env, home, dataDir);
  return {
    env,
    user,
    config: new ConfigReader(env),
    hookFile: renderHookFile({ dataDir: user.dataDir }),
    gitHook: renderGitHook(user.dataDir),
    repoHook: join(user.dataDir, REPO_HOOK),
    configHook: configHookCommand(join(user.dataDir, REPO_HOOK)),
    get configHooks() {
      return (configHooks ??= runsConfigHooks(gitVersion(env, home)));
    },
  };
}

/**
 * Puts the per-user files in place: the kit (the scripts every hook hands
 * over to and the hook client they run, core/repo/kit.ts), the node binary
 * to fall back on, and the canonical hook file (fleet.json, which the git
 * hook's fast path compares a worktree's with).
 * `kit`: what this run's refreshKit found; a kit it has just installed
 * ('refreshed') is not read and compared again. Returns what changed: one line naming the data folder, or with the debug
 * variable (FLEET_GIT_DEBUG) set, each file and the kit's id, which are
 * fleet-git's internals.
 */
export function ensureUserFiles(ctx: RunContext, kit?: KitFound, nodePath = process.execPath): string[] {
  makeDataDir(ctx.user.dataDir);
  removeStaleTemps(ctx.user.dataDir); // left by a fleet-git killed while it wrote here
  forgetGone(ctx.user); // the record's leftovers: temporary files of a killed fleet-git, repositories gone since
  const changed = kit?.state === 'refreshed' ? [] : installKit(ctx.user);
  // Each written whole, read back, then renamed into place: a full disk never leaves a truncated file that every hook would read.
  if (writeAtomic(join(ctx.user.dataDir, NODE_FILE), nodePath, { mode: 0o644, verify: true })) changed.push(`recorded node at ${nodePath}`);
  if (writeAtomic(ctx.user.canonicalHookFile, ctx.hookFile, { mode: 0o644, verify: true }))
    changed.push(`wrote ${ctx.user.canonicalHookFile}`);
  // What a repository's config entry runs (git 2.54+), and the line a hook manager's own post-checkout can run (older gits).
  writeAtomic(ctx.repoHook, ctx.gitHook, { mode: 0o755, verify: true });
  if (ctx.env.FLEET_GIT_DEBUG || !changed.length) return changed;
  return [`put the hook client and the scripts Copilot's hooks run in fleet-git's data folder ${ctx.user.dataDir}`];
}
