// The git post-checkout hook: where git runs hooks from, whether fleet-git may
// write there, what is there now, and installing or removing ours while keeping
// (and chaining to) a hook that was there before.
import { existsSync, lstatSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { readTextIfExists, readTextIfPresent, within, writeAtomic } from '../fs/atomic.js';
import type { ConfigReader } from '../git/config.js';
import type { Repo } from '../git/repo.js';
import { expandHome } from '../paths.js';
import { recordCreated, removeCreatedDirs } from './created.js';
import { EXCLUDE_BEGIN, EXCLUDE_END, HOOK_FILE_PATH } from './exclude.js';
import { HOOK_MARK } from './hook-mark.js';
import { readTemplate, render, shQuote } from './templates.js';

export const HOOK_NAME = 'post-checkout';
export const PREV_SUFFIX = '.fleet-git-prev';
/** The line that marks a post-checkout hook as fleet-git's. */
export const GIT_HOOK_MARK = '# fleet-git post-checkout hook.';

export interface HooksDir {
  /** The folder git runs hooks from for this repository. */
  dir: string;
  /** Whether fleet-git installs its hook there. */
  writable: boolean;
  /** Why not, in words, when not writable. */
  reason?: string;
}

export function hooksDir(repo: Repo, config: ConfigReader): HooksDir {
  const own = join(repo.commonDir, 'hooks');
  const hp = config.get('core', 'hooksPath', repo.commonDir, repo.gitDir);
  if (!hp) return { dir: own, writable: true };
  const where = `core.hooksPath=${hp.value} (${hp.scope} config)`;
  if (hp.value === '') return { dir: '', writable: false, reason: `${where} turns every git hook off` };
  const value = expandHome(hp.value, config.home);
  const dir = isAbsolute(value) ? value : resolve(repo.root, value);
  if (dir === own) return { dir, writable: true };
  const husky = /(^|\/)\.husky(\/|$)/.test(hp.value);
  const reason = husky
    ? `${where} is husky's, which it regenerates: fleet-git does not write there, so new worktrees are not provisioned automatically`
    : `${where} points outside this repository's git dir: fleet-git does not write there, so new worktrees are not provisioned automatically`;
  return { dir, writable: false, reason };
}

/** The line that marks a post-checkout hook as a copy from fleet-git setup's template (templates/decide.sh). */
export const TEMPLATE_HOOK_MARK = '# fleet-git template copy:';
const TEMPLATE_HOOK_END = '# fleet-git template copy end';

/**
 * A template copy without its decision part: the hook `enable` writes, when
 * both come from the same fleet-git. Once a repository is enabled, the copy
 * behaves exactly as that hook, so it counts as current.
 */
export function withoutDecide(text: string): string {
  const start = text.indexOf(TEMPLATE_HOOK_MARK);
  const end = text.indexOf(TEMPLATE_HOOK_END, start);
  if (start < 0 || end < 0) return text;
  return `${text.slice(0, start)}:${text.slice(end + TEMPLATE_HOOK_END.length)}`;
}

/** What the template copy of the hook needs to decide per clone (see templates/decide.sh). */
export interface TemplateDecide {
  /** The compiled clone rules (clone-rules.sh). */
  rules: string;
  /** The user config file the rules come from. */
  config: string;
  /** fleet-git's data folder (node, cli). */
  dataDir: string;
}

/** The hook script as fleet-git writes it now; with `template`, the copy that setup's template holds. */
export function renderGitHook(canonicalHookFile: string, template?: TemplateDecide): string {
  const decide = template
    ? render(readTemplate('decide.sh').trim(), { rules: shQuote(template.rules), config: shQuote(template.config), data: shQuote(template.dataDir) })
    : ':';
  return render(readTemplate(HOOK_NAME), {
    canonical: shQuote(canonicalHookFile),
    decide,
    begin: shQuote(EXCLUDE_BEGIN),
    end: shQuote(EXCLUDE_END),
    pattern: shQuote(`/${HOOK_FILE_PATH}`),
    mark: shQuote(HOOK_MARK),
  });
}

export type GitHookKind = 'ours' | 'absent' | 'foreign';

export interface GitHookInfo {
  kind: GitHookKind;
  current: boolean;
  /** fleet-git's hook renamed away by another tool (lefthook keeps foreign hooks as `.old`). */
  displacedCopy: string | null;
  /** Ours, but the inert copy from setup's template: on its own it does not make a repository enabled. */
  template: boolean;
}

export function isOurGitHook(text: string | null): boolean {
  return text !== null && text.includes(GIT_HOOK_MARK);
}

/**
 * What stands in a hooks folder: one stat for each of the hook and its `.old`
 * when neither is there (the common case of a scan over thousands).
 */
export function readGitHook(dir: string, expected: string): GitHookInfo {
  const path = within(dir, HOOK_NAME);
  const text = readTextIfPresent(path);
  const old = `${path}.old`;
  return {
    kind: text === null ? 'absent' : isOurGitHook(text) ? 'ours' : 'foreign',
    current: text !== null && (text === expected || withoutDecide(text) === expected) && isExecutable(path),
    displacedCopy: isOurGitHook(readTextIfPresent(old)) ? old : null,
    template: text !== null && text.includes(TEMPLATE_HOOK_MARK),
  };
}

/** Whether a hook file is there and executable (by anyone). */
export function isExecutable(path: string): boolean {
  try {
    return (lstatSync(path).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * Puts fleet-git's hook in the repository's own hooks folder (the only one it
 * writes to, see hooksDir), keeping a foreign hook there as the one to run
 * first. Returns what it did, or null when nothing needed doing.
 */
export function installGitHook(repo: Repo, script: string, info: GitHookInfo): string | null {
  const dir = join(repo.commonDir, 'hooks');
  const path = join(dir, HOOK_NAME);
  const done: string[] = [];
  if (info.kind === 'ours' && info.current) return dropDisplacedCopy(info, done);
  if (!existsSync(dir)) {
    recordCreated(repo.commonDir, 'hooks'); // before the folder: a kill in between leaves no folder unrecorded
    mkdirSync(dir);
  }
  if (info.kind === 'foreign') {
    keepPrevHook(path, 'enable');
    done.push(`kept the existing ${HOOK_NAME} hook, which now runs first`);
  }
  writeAtomic(path, script, 0o755); // mode 0755 whatever the umask
  done.push(info.kind === 'ours' ? `updated the ${HOOK_NAME} hook` : `installed the ${HOOK_NAME} hook`);
  return dropDisplacedCopy(info, done);
}

/**
 * Moves someone else's hook at `path` aside to `path.fleet-git-prev`, which
 * fleet-git's hook runs first and disable puts back. A copy with the same bytes
 * there already is fine; a different one stops it (nothing is overwritten).
 */
export function keepPrevHook(path: string, command: 'enable' | 'setup'): string {
  const prev = `${path}${PREV_SUFFIX}`;
  if (existsSync(prev) && readTextIfExists(prev) !== readTextIfExists(path)) {
    throw new Error(`${path} is not fleet-git's and ${prev} already holds an earlier hook; move one of them away, then run fleet-git ${command} again`);
  }
  renameSync(path, prev);
  return prev;
}

function dropDisplacedCopy(info: GitHookInfo, done: string[]): string | null {
  if (info.displacedCopy) {
    unlinkSync(info.displacedCopy);
    done.push(`removed fleet-git's displaced copy ${info.displacedCopy}`);
  }
  return done.length ? done.join('; ') : null;
}

/**
 * Takes fleet-git's hook out of the repository's hooks folder wherever it stands
 * (also as another tool's `.old` copy), putting the hook it replaced back in
 * its place, byte for byte.
 */
export function uninstallGitHook(repo: Repo): string | null {
  const path = join(repo.commonDir, 'hooks', HOOK_NAME);
  const prev = `${path}${PREV_SUFFIX}`;
  const done: string[] = [];
  for (const spot of [path, `${path}.old`]) {
    if (!isOurGitHook(readTextIfExists(spot))) continue;
    if (existsSync(prev)) {
      renameSync(prev, spot);
      done.push(`restored the previous ${HOOK_NAME} hook`);
    } else {
      unlinkSync(spot);
      done.push(`removed the ${HOOK_NAME} hook`);
    }
  }
  if (existsSync(prev) && !existsSync(path)) {
    renameSync(prev, path);
    done.push(`restored the previous ${HOOK_NAME} hook`);
  }
  if (removeCreatedDirs(repo.commonDir, repo.commonDir, ['hooks']).length) done.push('removed the hooks folder it had created');
  return done.length ? done.join('; ') : null;
}
