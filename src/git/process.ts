// The one place fleet-git starts git: the few questions the files cannot answer
// cheaply or safely (an index the reader does not know, `git config --global`
// writes, git's exec path). A small execFile-style wrapper on spawnSync, run in
// an environment that cannot point git at another repository.
import { spawnSync } from 'node:child_process';
import type { Env } from '../paths.js';

/** The environment a git process of fleet-git's runs in: the run's, without what would point git elsewhere. */
export function gitEnv(env: Env, home: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...env, HOME: env.HOME || home };
  for (const k of [
    'GIT_DIR',
    'GIT_WORK_TREE',
    'GIT_INDEX_FILE',
    'GIT_OBJECT_DIRECTORY',
    'GIT_COMMON_DIR',
    'GIT_CONFIG',
    'GIT_CONFIG_PARAMETERS',
    'GIT_CONFIG_COUNT',
  ])
    delete e[k];
  return e;
}

export interface GitResult {
  /** git's exit code; null when it could not be run (error says why) or was killed. */
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/** Runs `git ...args` in `cwd` and waits for it. Never throws. */
export function runGit(args: string[], opts: { cwd?: string; env: Env; home: string }): GitResult {
  const r = spawnSync('git', args, {
    cwd: opts.cwd,
    env: gitEnv(opts.env, opts.home),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
}

/**
 * Whether git tracks `relPath` in the worktree at `root`, asked of git itself.
 * When git cannot answer (it cannot run, or fails), the answer is "tracked":
 * fleet-git then leaves the path alone rather than write a file git may track.
 */
export function gitTracks(root: string, relPath: string, env: Env, home: string): boolean {
  const r = runGit(['ls-files', '-z', '--', relPath], { cwd: root, env, home });
  if (r.status !== 0) return true;
  return r.stdout.split('\0').includes(relPath);
}

/** The versions of git asked for in this process, by the PATH and GIT_EXEC_PATH that found it. */
const versions = new Map<string, [number, number, number] | null>();

/** The version of the git on PATH, as [major, minor, patch], or null when it cannot be run or told. Asked once a process for each PATH. */
export function gitVersion(env: Env, home: string): [number, number, number] | null {
  const key = `${env.PATH ?? ''}\0${env.GIT_EXEC_PATH ?? ''}`;
  if (versions.has(key)) return versions.get(key)!;
  const r = runGit(['--version'], { env, home });
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(r.stdout);
  const v: [number, number, number] | null = r.status === 0 && m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
  versions.set(key, v);
  return v;
}

/**
 * What git says when it refuses to work in the repository at `root` (its first
 * line: "fatal: bad config line 1 in file .git/config"), or null when it works
 * there or cannot be run.
 */
export function gitRefusal(root: string, env: Env, home: string): string | null {
  const r = runGit(['rev-parse', '--git-dir'], { cwd: root, env, home });
  if (r.status === 0 || r.status === null) return null;
  return r.stderr.trim().split('\n')[0] || `git exited ${r.status}`;
}

/**
 * Whether `git status` in the worktree at `root` shows `relPath` (untracked
 * and not ignored, or changed); null when git cannot answer.
 */
export function gitShows(root: string, relPath: string, env: Env, home: string): boolean | null {
  const r = runGit(['status', '--porcelain', '--untracked-files=all', '--', relPath], { cwd: root, env, home });
  return r.status === 0 ? r.stdout !== '' : null;
}
