// `fleet-git run`: one Copilot session under a fleet model profile, in a
// repository made ready first (enabled and trusted). The session owns the
// terminal (stdio inherited); fleet-git passes signals on and returns its exit
// code. Nothing here prints an API key.
import { describeError, UsageError } from '../../errors.js';
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { CopilotConfigError, TrustEdit, trustFolders, trustRoots } from '../../copilot/trust.js';
import { copilotProfiles, readProfiles, type ModelProfile } from '../../copilot/profiles.js';
import { locateRepo, NotARepoError } from '../../git/repo.js';
import type { Env } from '../../paths.js';
import { ensureUserFiles, type RunContext } from '../repo/context.js';
import type { KitFound } from '../repo/kit.js';
import { actOnRepo } from '../repo/repo-lock.js';

export const INSTALL_HINT = 'npm install -g @github/copilot';

/** A reason `run` cannot start: one line, exit code 2. */
export class RunError extends UsageError {}

/** Whether `p` is a file this process may execute. */
export function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The executable `name` on PATH, or null. */
export function findOnPath(name: string, env: Env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isAbsolute(dir) && isExecutableFile(join(dir, name))) return join(dir, name);
  }
  return null;
}

export function findCopilot(env: Env): string {
  const p = findOnPath('copilot', env);
  if (!p) throw new RunError(`the Copilot CLI is not installed (no copilot on PATH): install it with ${INSTALL_HINT}`);
  return p;
}

/**
 * The profile to run: the named one, the only one, or (with several and
 * `ask`, on a terminal) the user's pick. Errors name the profiles, never a key.
 */
export async function chooseProfile(
  file: string,
  name: string | undefined,
  ask: ((profiles: ModelProfile[]) => Promise<ModelProfile | null>) | null,
): Promise<ModelProfile> {
  const all = readProfiles(file);
  const mine = copilotProfiles(all);
  if (name !== undefined) {
    const p = all.find((x) => x.name === name);
    if (!p)
      throw new RunError(
        `no model profile named '${name}' in ${file}${mine.length ? ` (Copilot profiles: ${mine.map((m) => m.name).join(', ')})` : ''}`,
      );
    if (p.tool !== 'copilot')
      throw new RunError(
        `the model profile '${name}' is for ${p.tool}, not copilot: fleet-git runs Copilot profiles only (use fleet for ${p.tool})`,
      );
    return p;
  }
  if (mine.length === 0) throw new RunError(`no Copilot model profile in ${file} (add one with "tool": "copilot")`);
  if (mine.length === 1) return mine[0]!;
  const names = mine.map((m) => m.name).join(', ');
  if (!ask) throw new RunError(`several Copilot model profiles (${names}): choose one with --model NAME`);
  const picked = await ask(mine);
  if (!picked) throw new RunError(`no profile chosen (profiles: ${names})`);
  return picked;
}

/**
 * Makes the repository at `cwd` ready for a session: enabled, and trusted so
 * that copilot -p sessions run its hooks (`kit`: see ensureUserFiles). Returns
 * lines to tell the user.
 */
export function prepareRepo(ctx: RunContext, cwd: string, kit?: KitFound): string[] {
  const lines = ensureUserFiles(ctx, kit);
  let repo;
  try {
    repo = locateRepo(cwd);
  } catch (e) {
    if (e instanceof NotARepoError)
      return [
        ...lines,
        `${cwd} is not in a git repository: its events reach the observer only through user-level hooks (fleet-git enable --user)`,
      ];
    throw e;
  }
  // Copilot's config.json is read before anything changes: one fleet-git cannot
  // rewrite means run cannot do its job (a usage error here; enable only fails).
  const edit = new TrustEdit(ctx.user);
  try {
    edit.load();
  } catch (e) {
    throw e instanceof CopilotConfigError ? new RunError(e.message) : e;
  }
  const { state, outcome } = actOnRepo(repo, ctx, { do: 'enable', force: false });
  lines.push(...outcome.changes.map((c) => `${outcome.path}: ${c}`), ...outcome.notes, ...outcome.info);
  lines.push(...trustFolders(edit, trustRoots(state)));
  edit.save();
  return lines;
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Starts copilot with the terminal handed over, passes signals on, and
 * resolves with its exit code (128+n when a signal ended it).
 */
export function runCopilot(bin: string, args: string[], env: Record<string, string>, cwd: string, forwardSigint: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: 'inherit' });
    const handlers = FORWARDED.map((sig) => {
      // From a terminal, Ctrl-C already reaches copilot (same process group): passing it on would make it two.
      const h = () => {
        if (sig !== 'SIGINT' || forwardSigint) child.kill(sig);
      };
      process.on(sig, h);
      return [sig, h] as const;
    });
    const done = () => {
      for (const [sig, h] of handlers) process.off(sig, h);
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      done();
      reject(new RunError(`cannot start ${bin}: ${describeError(e)}; reinstall it with ${INSTALL_HINT}`));
    });
    child.on('exit', (code, signal) => {
      done();
      if (code !== null) resolve(code);
      else resolve(128 + (signal ? (osConstants.signals[signal] ?? 0) : 0));
    });
  });
}
