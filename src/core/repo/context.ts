// What one run of fleet-git needs to know once, whatever the number of
// repositories: the user's paths, the bytes it would write, the git config reader.
import { join } from 'node:path';
import { removeStaleTemps, writeAtomic } from '../../fs/atomic.js';
import { makeDataDir } from '../../fs/data-dir.js';
import { ConfigReader } from '../../git/config.js';
import { userPaths, type Env, type UserPaths } from '../../paths.js';
import { NODE_FILE, renderHookFile } from './hook-file.js';
import { renderGitHook } from './git-hook.js';
import { installKit, type KitFound } from './kit.js';

export interface RunContext {
  env: Env;
  user: UserPaths;
  config: ConfigReader;
  /** The hook file as fleet-git writes it now. */
  hookFile: string;
  /** The post-checkout hook as fleet-git writes it now. */
  gitHook: string;
}

export function runContext(env: Env, home: string, dataDir?: string): RunContext {
  const user = userPaths(env, home, dataDir);
  return {
    env,
    user,
    config: new ConfigReader(env),
    hookFile: renderHookFile({ dataDir: user.dataDir }),
    gitHook: renderGitHook(user.dataDir),
  };
}

/**
 * Puts the per-user files in place: the kit (the scripts every hook hands
 * over to and the hook client they run, core/repo/kit.ts), the node binary
 * to fall back on, and the canonical hook file the git hook copies.
 * `kit`: what this run's refreshKit found; a kit it has just installed
 * ('refreshed') is not read and compared again. Returns what changed.
 */
export function ensureUserFiles(ctx: RunContext, kit?: KitFound, nodePath = process.execPath): string[] {
  makeDataDir(ctx.user.dataDir);
  removeStaleTemps(ctx.user.dataDir); // left by a fleet-git killed while it wrote here
  const changed = kit?.state === 'refreshed' ? [] : installKit(ctx.user);
  // Each written whole, read back, then renamed into place: a full disk never leaves a truncated file that every hook would read.
  if (writeAtomic(join(ctx.user.dataDir, NODE_FILE), nodePath, { mode: 0o644, verify: true })) changed.push(`recorded node at ${nodePath}`);
  if (writeAtomic(ctx.user.canonicalHookFile, ctx.hookFile, { mode: 0o644, verify: true }))
    changed.push(`wrote ${ctx.user.canonicalHookFile}`);
  return changed;
}
