// Where fleet-git and its neighbours keep per-user files. Every path is derived
// from an explicit environment and home folder, never from the process, so a
// test (or a command run in-process) can point all of them at a temporary folder.
import { join, sep } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** `~` or `~/x` to a path under home; anything else unchanged. */
export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/** Whether `path` is `root` or below it (both absolute and normalized). */
export function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export interface UserPaths {
  home: string;
  /** fleet-git's per-user data: the stable hook client copy and the canonical hook file. */
  dataDir: string;
  hookClient: string;
  canonicalHookFile: string;
  /** fleet-git's user config folder (config.json5, setup state). */
  configDir: string;
  /** The user config file, config.json5 in configDir. */
  configFile: string;
  /** The fleet observer's folder: its socket, session files and model profiles. */
  fleetDir: string;
  fleetSocket: string;
  fleetSessions: string;
  fleetModels: string;
  /** Copilot CLI's home ($COPILOT_HOME, default ~/.copilot). */
  copilotHome: string;
}

/**
 * Names another folder for the fleet observer's socket and session files (an
 * absolute path; anything else is ignored). `doctor --live` gives it to its
 * probe session, so the hook client reports to the doctor's own socket and the
 * user's dashboard never sees the probe.
 */
export const OBSERVER_DIR_VAR = 'FLEET_GIT_OBSERVER_DIR';

/** The hook client's file name, in the data folder (and in dist/, where the build puts it). */
export const CLIENT_FILE = 'hook-client.cjs';
/** The data folder's script that each command of a hook file hands over to (templates/hook.sh, rendered). */
export const HOOK_SCRIPT = 'hook.sh';
/** The data folder's script that the post-checkout hook hands over to (templates/post-checkout.sh, rendered). */
export const CHECKOUT_SCRIPT = 'post-checkout.sh';
/** The post-checkout hook's node side (src/git-hook.ts), in dist/ and in each kit. */
export const GIT_HOOK_FILE = 'git-hook.cjs';
/** The data folder's folder of hook clients, one per build (core/repo/kit.ts). */
export const KIT_DIR = 'kit';
/** The lock fleet-git holds in a repository's common git dir while it changes it (core/repo/repo-lock.ts takes it). */
export const LOCK_FILE = 'fleet-git.lock';

/**
 * Every per-user path. `dataDir`, when given (the Copilot adapter names the
 * hook client's folder), replaces the data folder and what lives in it.
 */
export function userPaths(
  env: Env,
  home: string,
  dataDir = join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'fleet-git'),
): UserPaths {
  const configDir = join(env.XDG_CONFIG_HOME || join(home, '.config'), 'fleet-git');
  // The observer uses os.homedir() and no variable: its folder is always under home.
  const redirect = env[OBSERVER_DIR_VAR];
  const fleetDir = redirect && redirect.startsWith('/') ? redirect : join(home, '.config', 'claude-code-fleet');
  return {
    home,
    dataDir,
    hookClient: join(dataDir, CLIENT_FILE),
    canonicalHookFile: join(dataDir, 'fleet.json'),
    configDir,
    configFile: join(configDir, 'config.json5'),
    fleetDir,
    fleetSocket: join(fleetDir, 'fleet.sock'),
    fleetSessions: join(fleetDir, 'sessions'),
    fleetModels: join(fleetDir, 'models.json'),
    copilotHome: env.COPILOT_HOME || join(home, '.copilot'),
  };
}
