// What git's post-checkout hook hands over to when a worktree does not have
// fleet-git's hook file yet (templates/post-checkout.sh takes the fast path
// when it does): the worktree provisioned as `enable` provisions it, through
// the same lock, state, plan and apply (planEnable scoped to this worktree:
// the exclude block and the hook file, no git hook). Whether the repository
// is enabled is judged on the state read under the lock: in `repo` mode
// (enable's hook), one that is not (a disable ran while the hook waited for
// the lock, say) is left alone. In `clone` mode (setup's template copy and
// global entry), a repository that is not enabled yet is provisioned only
// when the user config's clone rules include it.
//
// It never fails the git command and prints nothing but one line on stderr
// when it could not do its work (a symbolic link on the way, another
// fleet-git holding the lock, a failure); FLEET_GIT_DEBUG says what it does.
import { join } from 'node:path';
import { describeError } from '../../errors.js';
import { LockBusyError } from '../../fs/lock.js';
import { physical } from '../../fs/read.js';
import { locateRepo } from '../../git/repo.js';
import { LOCK_FILE, type Env } from '../../paths.js';
import { isCloneIncluded } from '../repo/clone-rules.js';
import { runContext } from '../repo/context.js';
import { hasExcludeBlock } from '../repo/exclude.js';
import { HOOK_FILE_PATH } from '../repo/hook-file.js';
import { applyAction, withRepoLock } from '../repo/repo-lock.js';
import { allWorktrees, assessRepo, readExclude } from '../repo/state.js';
import { setupFilesThere } from './setup.js';
import { loadUserConfig, UserConfigError } from './user-config.js';

/** How long a checkout waits for another fleet-git in the same repository, unless FLEET_GIT_LOCK_WAIT says: 2 s. */
const HOOK_LOCK_WAIT = '2';

export interface CheckoutHook {
  env: Env;
  home: string;
  /** The worktree's top folder, where git runs the hook. */
  cwd: string;
  /** `repo`: enable's hook (the repository is enabled); `clone`: setup's, which provisions only the clones the config includes. */
  mode: 'repo' | 'clone';
  /** The data folder the hook names. */
  dataDir: string;
  /** What FLEET_GIT_DEBUG shows, one line each. */
  say: (line: string) => void;
  /** The one line the user reads on stderr. */
  warn: (line: string) => void;
}

/** Provisions the worktree at `h.cwd` after a checkout; never throws. */
export function postCheckout(h: CheckoutHook): void {
  const env: Env = { FLEET_GIT_LOCK_WAIT: HOOK_LOCK_WAIT, ...h.env };
  const where = physical(h.cwd);
  let lock = '';
  try {
    const repo = locateRepo(where);
    lock = join(repo.commonDir, LOCK_FILE);
    let included: boolean | undefined;
    /**
     * Whether setup's hook is to provision this repository (clone mode), read once: setup is in effect (git copied
     * its hook into every repository it made meanwhile, and those stay as they are once it is undone) and the
     * config's clone rules take it.
     */
    const cloneIncluded = () =>
      (included ??= setupFilesThere(h.dataDir) && isCloneIncluded(loadUserConfig(env, h.home).config, physical(repo.root), h.home));
    const leftOut = "left alone: setup is not in effect, or the config's include and exclude rules leave this clone out";
    // Without the lock first, so that a clone the config leaves out takes no lock.
    if (h.mode === 'clone' && !hasExcludeBlock(readExclude(repo).text)) {
      if (!cloneIncluded()) return h.say(leftOut);
      h.say("the config's rules include this clone: provisioning it");
    }
    // One worktree's plan, no git hook: git's version (which way it runs hooks, one more process) is not asked.
    const ctx = runContext(env, h.home, h.dataDir, false);
    const acted = withRepoLock(repo, env, (killed) => {
      const s = assessRepo(repo, ctx);
      // Judged on the state read under the lock: a disable that held it while this hook waited leaves the
      // repository not enabled, and the hook then leaves it so (in clone mode, unless the config includes it).
      if (!s.enabled && (h.mode === 'repo' || !cloneIncluded())) return null;
      const w = allWorktrees(s).find((x) => physical(x.path) === where);
      // Through enable's own apply, which also adds the repository to the record (record.ts).
      const done = applyAction(s, ctx, { do: 'enable', force: false, worktree: w?.path ?? where }, killed);
      return { done, linked: s.gitLink !== null || !!w?.link };
    });
    if (!acted) return h.say(h.mode === 'clone' ? leftOut : 'left alone: this repository is not enabled');
    const { done, linked } = acted;
    for (const c of done.changes) h.say(c);
    // A symbolic link on the way is said (status reports it too); a hook file left alone (someone else's, tracked) is not.
    for (const n of done.notes) (linked ? h.warn : h.say)(linked ? `fleet-git: ${n}` : n);
    if (!done.changes.length && !done.notes.length) h.say(`${HOOK_FILE_PATH} is in place and current: nothing to do`);
  } catch (e) {
    if (e instanceof LockBusyError)
      h.warn(
        `fleet-git: left ${where} as git made it: another fleet-git holds ${lock}; run 'fleet-git enable' there once it is done (if none is running, remove that file)`,
      );
    else if (e instanceof UserConfigError) h.warn(`fleet-git: left this clone as git made it: ${e.message}`);
    else h.warn(`fleet-git: could not add ${HOOK_FILE_PATH} in ${where}; run 'fleet-git enable' there (${describeError(e)})`);
  }
}
