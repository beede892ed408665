// The git post-checkout hook: where git runs hooks from, whether fleet-git may
// write there, what is there now, and installing or removing ours while keeping
// (and chaining to) a hook that was there before.
import { type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { lstatIfPresent, readSmall, readText, textOf, within } from '../../fs/read.js';
import type { ConfigReader } from '../../git/config.js';
import type { Repo } from '../../git/repo.js';
import { expandHome, isUnder, type Env } from '../../paths.js';
import { gitShows, gitTracks } from '../../git/process.js';
import { EXCLUDE_BEGIN } from './exclude.js';
import { recordCreated, removeCreatedDirs } from './created.js';
import { applyPlan, Planner } from './plan.js';
import { HOOK_FORMAT } from './hook-file.js';
import { readTemplate, render, shInQuotes, shQuote } from './templates.js';

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
  const own = within(repo.commonDir, 'hooks');
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

/** What to do where core.hooksPath points to a folder fleet-git does not write (managerAdvice), and whether it is done. */
export interface ManagerAdvice {
  /** The file whose line provisions them (provides), or else where the line goes: the hook that folder's owner keeps (husky 9: `.husky/post-checkout`), or husky's init.sh. */
  file: string;
  line: string;
  /** A line that runs fleet-git's hook is there: new worktrees are provisioned. */
  provides: boolean;
  /** And git status shows nothing of it: nothing is left to do. */
  followed: boolean;
  /** What to do, in words; or, when followed, how new worktrees get the hook file. */
  text: string;
}

/**
 * husky's own start-up file, which each of its hooks sources before it runs
 * the hook's script (husky 9's `.husky/_/h`; only for a hook whose script
 * is there): outside the repository, so git status never shows it.
 */
export function huskyInit(env: Env, home: string): string {
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'husky', 'init.sh');
}

/**
 * The line that runs `script` (the data folder's copy of fleet-git's hook)
 * from another tool's post-checkout hook, or from husky's init.sh, which is
 * sourced before every husky hook of every repository: for post-checkout
 * only, and only in a repository fleet-git has enabled (its block in
 * info/exclude, which every worktree shares), since the script provisions
 * whatever repository it runs in. So it is inert once disable has run.
 */
export function managerLine(script: string): string {
  const mark = EXCLUDE_BEGIN.slice(0, EXCLUDE_BEGIN.indexOf(':') + 1);
  return `[ "\${0##*/}" != ${HOOK_NAME} ] || ! grep -qsF '${mark}' "$(git rev-parse --git-path info/exclude)" || ${shQuote(script)} "$@" || true`;
}

/**
 * Where core.hooksPath points elsewhere (husky, lefthook, a user's own folder)
 * and git is older than 2.54: the line that provisions new worktrees by
 * running `script` (the data folder's copy of fleet-git's hook), where it
 * goes so that git status stays clean, and whether it is there already; null
 * where fleet-git installs its own hook or git runs none.
 *
 * The line goes in the hook that folder's owner keeps (husky 9 runs the
 * tracked `.husky/post-checkout` from its `.husky/_` stubs). When that file
 * is in the worktree and untracked, git status shows it unless it is
 * excluded, which is said too. When husky's is tracked, a line there would
 * show as a change: husky's own init.sh takes the line instead (git asked
 * once for each, only here: an enabled repository under a hook manager, with
 * an older git).
 */
export function managerAdvice(repo: Repo, hooks: HooksDir, script: string, env: Env, home: string): ManagerAdvice | null {
  if (hooks.writable || hooks.dir === '') return null;
  const husky = basename(hooks.dir) === '_' && basename(dirname(hooks.dir)) === '.husky';
  const file = husky ? join(dirname(hooks.dir), HOOK_NAME) : join(hooks.dir, HOOK_NAME);
  const line = managerLine(script);
  const other = `or use git 2.54 or later, with which fleet-git enable provisions them through ${join(repo.commonDir, 'config')}`;
  const through = (f: string) => ({
    file: f,
    line,
    provides: true,
    followed: true,
    text: `new worktrees get the hook file through the line in ${f}`,
  });
  const runs = (f: string) => (readText(f) ?? '').includes(shQuote(script)); // this line, or one written as an older fleet-git advised
  const init = huskyInit(env, home);
  if (husky && runs(init)) return through(init);
  const inWorktree = isUnder(file, repo.root) && file !== repo.root;
  const rel = inWorktree ? relative(repo.root, file) : '';
  const inFile = runs(file);
  if (inFile && !(inWorktree && gitShows(repo.root, rel, env, home) !== false)) return through(file);
  const tracked = inWorktree && gitTracks(repo.root, rel, env, home);
  if (husky && tracked)
    return {
      file: inFile ? file : init,
      line,
      provides: inFile,
      followed: false,
      text: `${inFile ? `git status shows ${file} changed by the line in it; instead,` : 'to provision them,'} add this line to husky's ${init}, which runs before each husky hook (${file} is tracked, so a line there shows in git status): ${line} (${other})`,
    };
  const exclude = join(repo.commonDir, 'info', 'exclude');
  if (inFile)
    return {
      file,
      line,
      provides: true,
      followed: false,
      text: tracked
        ? `git status shows ${file} changed by the line in it: commit it, or take the line out (${other})`
        : `git status shows ${file}, whose line provisions them: add the line /${rel} to ${exclude}`,
    };
  const excludeToo = inWorktree && !tracked ? `, and the line /${rel} to ${exclude} so that git status stays clean` : '';
  return {
    file,
    line,
    provides: false,
    followed: false,
    text: `to provision them, add this line to ${file}: ${line}${excludeToo} (${other})`,
  };
}

/** The line that marks a post-checkout hook as a copy from fleet-git setup's template (clone mode, see templates/post-checkout.sh). */
export const TEMPLATE_HOOK_MARK = '# fleet-git template copy:';
/** The line of templates/post-checkout that says which way the data folder's script provisions: as enable does. */
const REPO_MODE = 'fleet_git_mode=repo';
/** The same line in setup's template copy: only clones that the user config includes. */
const CLONE_MODE = `fleet_git_mode=clone ${TEMPLATE_HOOK_MARK} provisions only the clones that the user config includes`;
/** The line of the hook that names its format (templates/post-checkout); a hook without it was written before the shim (format 1). */
const FORMAT_LINE = /^# fleet-git hook format (\d+):/m;

/**
 * A template copy as the hook `enable` writes: the same but for its mode line.
 * Once a repository is enabled, the copy behaves exactly as that hook, so it
 * counts as current.
 */
export function asEnableHook(text: string): string {
  return text.replace(`\n${CLONE_MODE}\n`, `\n${REPO_MODE}\n`);
}

/** The hook format of a post-checkout hook of fleet-git's. */
export function gitHookFormat(text: string): number {
  return Number(FORMAT_LINE.exec(text)?.[1] ?? 1);
}

/**
 * The hook script as fleet-git writes it now, the shim: it runs the hook that
 * was there before, then sources the data folder's post-checkout.sh; with
 * `template`, the copy that setup's template holds (and the data folder's
 * clone-hook), which provisions only the clones that the user config includes.
 */
export function renderGitHook(dataDir: string, template = false): string {
  const text = render(readTemplate(HOOK_NAME), { data: shInQuotes(dataDir), format: String(HOOK_FORMAT) });
  if (!text.includes(`\n${REPO_MODE}\n`)) throw new Error(`templates/${HOOK_NAME} has no line ${REPO_MODE}`);
  return template ? text.replace(`\n${REPO_MODE}\n`, `\n${CLONE_MODE}\n`) : text;
}

export type GitHookKind = 'ours' | 'absent' | 'foreign';

/** The line pre-commit's hooks start with (pre-commit 2 to 4). */
const PRE_COMMIT_MARK = '# File generated by pre-commit: https://pre-commit.com';
/** pre-commit keeps a hook it found as `<hook>.legacy` and runs it first (lefthook keeps one as `.old` and runs it not). */
export const LEGACY_SUFFIX = '.legacy';

/**
 * Where fleet-git's hook stands (or goes) in a hooks folder: `post-checkout`,
 * or, behind pre-commit's hook there, `post-checkout.legacy`, which pre-commit
 * runs first with the same arguments and stdin. So fleet-git chains to
 * pre-commit as pre-commit chains to others, and neither moves the other's
 * hook again (each would find the other in its place on every install).
 */
export function hookSpot(dir: string, inPlace: string | null): string {
  const path = within(dir, HOOK_NAME);
  return inPlace !== null && inPlace.includes(PRE_COMMIT_MARK) ? `${path}${LEGACY_SUFFIX}` : path;
}

/** Every name fleet-git's hook can have in a hooks folder: its own, pre-commit's `.legacy`, lefthook's `.old`. */
export function hookSpots(dir: string): string[] {
  const path = within(dir, HOOK_NAME);
  return [path, `${path}${LEGACY_SUFFIX}`, `${path}.old`];
}

/** Where the hook fleet-git keeps running before its own stands, whatever name its own has. */
export function prevHook(dir: string): string {
  return within(dir, `${HOOK_NAME}${PREV_SUFFIX}`);
}

export interface GitHookInfo {
  /** What stands where fleet-git's hook goes (hookSpot). */
  kind: GitHookKind;
  /** That place: `post-checkout`, or `post-checkout.legacy` behind pre-commit's hook. */
  spot: string;
  current: boolean;
  /** fleet-git's hook renamed away by another tool (lefthook keeps foreign hooks as `.old`). */
  displacedCopy: string | null;
  /** Ours, but the inert copy from setup's template: on its own it does not make a repository enabled. */
  template: boolean;
  /** For ours: its hook format (1: written before the shim, by fleet-git 0.1.0 or earlier). */
  format?: number;
}

export function isOurGitHook(text: string | null): boolean {
  return text !== null && text.includes(GIT_HOOK_MARK);
}

/**
 * What stands in a hooks folder: one lstat for each of the hook and its `.old`
 * when neither is there (the common case of a scan over thousands). The hook in
 * place is read into a reused buffer and compared as bytes with `expected`, and
 * its lstat serves as the executable check too. `seen` gets the texts read, by
 * path (null: no file), for a plan to use; `links` what the lstats told (see
 * LinkFacts), for the repository's check for symbolic links.
 */
export function readGitHook(
  dir: string,
  expected: string,
  seen?: Map<string, string | null>,
  links?: Map<string, boolean | null>,
): GitHookInfo {
  const path = within(dir, HOOK_NAME);
  const st = lstatIfPresent(path);
  links?.set(path, st === undefined ? null : st.isSymbolicLink());
  const inPlace = readHookText(path, st, expected);
  seen?.set(path, inPlace);
  const spot = hookSpot(dir, inPlace);
  let text = inPlace;
  if (spot !== path) seen?.set(spot, (text = readText(spot)));
  let displacedCopy: string | null = null;
  if (spot === path) {
    const old = `${path}.old`;
    const oldSt = lstatIfPresent(old);
    links?.set(old, oldSt === undefined ? null : oldSt.isSymbolicLink());
    const oldText = oldSt === undefined ? null : readText(old);
    seen?.set(old, oldText);
    if (isOurGitHook(oldText)) displacedCopy = old;
  }
  return {
    kind: text === null ? 'absent' : isOurGitHook(text) ? 'ours' : 'foreign',
    spot,
    current:
      text !== null &&
      (text === expected || asEnableHook(text) === expected) &&
      (spot === path ? st !== undefined && executable(st) : isExecutable(spot)),
    displacedCopy,
    template: text !== null && text.includes(TEMPLATE_HOOK_MARK),
    format: text !== null && isOurGitHook(text) ? gitHookFormat(text) : undefined,
  };
}

/** A hook's text, given its lstat: a link is read through (as git runs it), a file compared as bytes with `expected` first. */
function readHookText(path: string, st: Stats | undefined, expected: string): string | null {
  if (st === undefined) return null;
  if (st.isSymbolicLink()) return readText(path);
  const bytes = readSmall(path);
  return bytes === null ? null : textOf(bytes, expected);
}

function executable(st: Stats): boolean {
  return (st.mode & 0o111) !== 0;
}

/** Whether a hook file is there and executable (by anyone). */
export function isExecutable(path: string): boolean {
  const st = lstatIfPresent(path);
  return st !== undefined && executable(st);
}

/**
 * Plans putting fleet-git's hook in the repository's own hooks folder (the
 * only one it writes to, see hooksDir) at its spot, keeping a foreign hook
 * there as the one to run first: one change, or none when nothing needs doing.
 */
export function planGitHookInstall(p: Planner, repo: Repo, script: string, info: GitHookInfo): void {
  const dir = join(repo.commonDir, 'hooks');
  const spot = info.spot;
  const did: string[] = [];
  const would: string[] = [];
  if (!(info.kind === 'ours' && info.current)) {
    if (!p.view.exists(dir)) {
      recordCreated(p, repo.commonDir, 'hooks'); // before the folder: a kill in between leaves no folder unrecorded
      p.makeFolder(dir, 'the hooks folder git runs the post-checkout hook from');
    }
    if (info.kind === 'foreign') {
      planKeepPrev(p, spot, 'enable');
      did.push(`kept the existing ${basename(spot)} hook, which now runs first`);
      would.push(`keep the existing ${basename(spot)} hook as ${prevHook(dir)}, to run first`);
    }
    p.write(spot, script, 'gives each new worktree the hook file', { mode: 0o755 }); // mode 0755 whatever the umask
    const legacy = spot.endsWith(LEGACY_SUFFIX) ? ` as ${basename(spot)}, which pre-commit's hook runs first` : '';
    did.push(`${info.kind === 'ours' ? 'updated' : 'installed'} the ${HOOK_NAME} hook${legacy}`);
    would.push(`${info.kind === 'ours' ? 'update' : 'install'} the ${HOOK_NAME} hook ${spot}${legacy}`);
  }
  if (info.displacedCopy) {
    p.removeFile(info.displacedCopy, "fleet-git's own hook, renamed away by another tool: the hook in place now runs instead");
    did.push(`removed fleet-git's displaced copy ${info.displacedCopy}`);
    would.push(`remove fleet-git's displaced copy ${info.displacedCopy}`);
  }
  if (did.length) p.change(did.join('; '), would.join('; '));
}

/**
 * Plans moving someone else's hook at `path` aside to `post-checkout.fleet-git-prev`
 * beside it, which fleet-git's hook runs first and disable puts back. A copy
 * with the same bytes there already is fine; a different one stops it
 * (nothing is overwritten).
 */
function planKeepPrev(p: Planner, path: string, command: 'enable' | 'setup'): void {
  const prev = prevHook(dirname(path));
  if (p.view.read(prev) !== null && p.view.read(prev) !== p.view.read(path))
    throw new Error(
      `${path} is not fleet-git's and ${prev} already holds an earlier hook; move one of them away, then run fleet-git ${command} again`,
    );
  p.rename(path, prev, "the hook that was there, which fleet-git's hook runs first (disable puts it back)");
}

/** Moves someone else's hook at `path` aside now (planKeepPrev, applied); returns where it went. */
export function keepPrevHook(path: string, command: 'enable' | 'setup'): string {
  const p = new Planner(dirname(path));
  planKeepPrev(p, path, command);
  p.change(`kept ${path}`, `keep ${path}`);
  applyPlan(p.plan);
  return prevHook(dirname(path));
}

/**
 * Plans taking fleet-git's hook out of a hooks folder wherever it stands (also
 * where another tool moved it: pre-commit's `.legacy`, lefthook's `.old`),
 * putting the hook it kept running first back in its place, byte for byte:
 * that hook takes fleet-git's place in the other tool's chain. Returns what it
 * does, as [did, would] lines.
 */
function planTakeOut(p: Planner, dir: string): [string, string][] {
  const path = within(dir, HOOK_NAME);
  const prev = prevHook(dir);
  const done: [string, string][] = [];
  for (const spot of hookSpots(dir)) {
    if (!isOurGitHook(p.view.read(spot))) continue;
    const name = spot === path ? '' : ` (${basename(spot)})`;
    if (p.view.exists(prev)) {
      p.rename(prev, spot, "the hook that was there before fleet-git's, back in its place");
      done.push([
        `restored the previous ${HOOK_NAME} hook${name}`,
        `restore the previous ${HOOK_NAME} hook in place of fleet-git's ${spot}`,
      ]);
    } else {
      p.removeFile(spot, "fleet-git's hook");
      done.push([`removed the ${HOOK_NAME} hook${name}`, `remove fleet-git's ${HOOK_NAME} hook ${spot}`]);
    }
  }
  if (p.view.exists(prev) && !p.view.exists(path)) {
    p.rename(prev, path, "the hook that was there before fleet-git's, back in its place");
    done.push([`restored the previous ${HOOK_NAME} hook`, `restore the previous ${HOOK_NAME} hook ${path}`]);
  }
  return done;
}

/** Takes fleet-git's hook out of a hooks folder now (planTakeOut, applied); returns what it did. */
export function takeOutGitHook(dir: string): string[] {
  const p = new Planner(dir);
  const done = planTakeOut(p, dir);
  if (p.open) p.change(done.map((d) => d[0]).join('; '), done.map((d) => d[1]).join('; '));
  applyPlan(p.plan);
  return done.map((d) => d[0]);
}

/** Plans taking fleet-git's hook out of the repository's hooks folder (planTakeOut), and that folder if fleet-git made it. */
export function planGitHookRemoval(p: Planner, repo: Repo): void {
  const done = planTakeOut(p, join(repo.commonDir, 'hooks'));
  if (removeCreatedDirs(p, repo.commonDir, repo.commonDir, ['hooks']).length)
    done.push(['removed the hooks folder it had created', 'remove the hooks folder it had created']);
  if (done.length || p.open) p.change(done.map((d) => d[0]).join('; '), done.map((d) => d[1]).join('; '));
}
