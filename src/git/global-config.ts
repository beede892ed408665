// Writing the user's global git configuration: through `git config --global`
// itself (so the file keeps git's formatting), in the environment fleet-git was
// given (GIT_CONFIG_GLOBAL is honoured), and knowing which file git writes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../paths.js';
import { runGit } from './process.js';

/** The file `git config --global` writes to: $GIT_CONFIG_GLOBAL, else ~/.gitconfig unless only the XDG file exists. */
export function globalConfigFile(env: Env, home: string): string {
  if (env.GIT_CONFIG_GLOBAL) return env.GIT_CONFIG_GLOBAL;
  const dot = join(home, '.gitconfig');
  const xdg = join(env.XDG_CONFIG_HOME || join(home, '.config'), 'git', 'config');
  return !existsSync(dot) && existsSync(xdg) ? xdg : dot;
}

/** Runs `git config --global ...args`; throws with git's own message on failure. */
export function gitConfigGlobal(env: Env, home: string, ...args: string[]): string {
  const r = runGit(['config', '--global', ...args], { env, home, cwd: home });
  if (r.error) throw new Error(`could not run git: ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(`git config --global ${args.join(' ')} failed: ${(r.stderr || '').trim().split('\n')[0] || `exit code ${r.status}`}`);
  return r.stdout;
}

/** git's own default template folder (hooks/*.sample, info/exclude, description), or null. */
export function gitDefaultTemplateDir(env: Env, home: string): string | null {
  const candidates: string[] = [];
  const r = runGit(['--exec-path'], { env, home });
  if (r.status === 0 && r.stdout.trim()) candidates.push(join(r.stdout.trim(), '..', '..', 'share', 'git-core', 'templates'));
  candidates.push('/usr/share/git-core/templates', '/usr/local/share/git-core/templates', '/opt/homebrew/share/git-core/templates');
  return candidates.find((c) => existsSync(join(c, 'info', 'exclude'))) ?? candidates.find((c) => existsSync(c)) ?? null;
}
