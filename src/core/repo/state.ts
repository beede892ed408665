// A repository's fleet state: the one notion that status, scan, enable and
// remove all share. Read from files only (no git process in the common case).
import { existsSync } from 'node:fs';
import { firstLink } from '../../fs/links.js';
import { LINK, lstatIfPresent, readSmall, readText, textOf, within } from '../../fs/read.js';
import { GitRefusedError, isTracked, listWorktrees, type Listed, type Repo, type Worktree } from '../../git/repo.js';
import { suspectConfigLine } from '../../git/config.js';
import { gitRefusal } from '../../git/process.js';
import type { RunContext } from './context.js';
import { hasExcludeBlock } from './exclude.js';
import { CREATED_FILE } from './created.js';
import { HOOK_FILE_PATH, HOOK_FORMAT, REPLACED_FILE, classifyHookFile, type HookFileInfo } from './hook-file.js';
import {
  HOOK_NAME,
  LEGACY_SUFFIX,
  PREV_SUFFIX,
  hooksDir,
  isExecutable,
  managerAdvice,
  readGitHook,
  type GitHookInfo,
  type HooksDir,
  type ManagerAdvice,
} from './git-hook.js';
import { CLONE_HOOK_ENTRY, REPO_HOOK_ENTRY, cloneEntry, readConfigHook, type ConfigHookInfo } from './config-hook.js';

export type ProblemCode =
  | 'hook-file-missing'
  | 'hook-file-stale'
  | 'hook-file-outdated'
  | 'hook-file-foreign'
  | 'hook-file-upstream'
  | 'hook-file-tracked'
  | 'exclude-missing'
  | 'git-hook-missing'
  | 'git-hook-displaced'
  | 'git-hook-outdated'
  | 'hooks-path'
  | 'symlink';

export interface Problem {
  code: ProblemCode;
  message: string;
}

export interface WorktreeState {
  path: string;
  kind: 'main' | 'worktree';
  enabled: boolean;
  problems: Problem[];
  /** Not in the JSON: what the actions need. */
  hookFile: HookFileInfo;
  tracked: boolean;
  /** The first symbolic link on the hook file's path (.github, .github/hooks, the file itself), or null: fleet-git leaves such a worktree alone. */
  link: string | null;
  worktree: Worktree;
}

export interface RepoState {
  path: string;
  kind: 'repo';
  enabled: boolean;
  /** The repository's own problems and its main worktree's. */
  problems: Problem[];
  /** Linked worktrees. */
  worktrees: WorktreeState[];
  main: WorktreeState | null;
  repo: Repo;
  exclude: boolean;
  hooks: HooksDir;
  gitHook: GitHookInfo | null;
  /** How new worktrees get the hook file: fleet-git's entry in the repository's config (a git that runs hooks named in config, 2.54 and later), or its post-checkout hook in the hooks folder. */
  provisioning: 'config' | 'hooks-folder';
  /** fleet-git's hook entry in the repository's own config (config-hook.ts), read when first asked for. */
  configHook: ConfigHookInfo;
  /** Where core.hooksPath points to a folder fleet-git does not write, with a git older than 2.54: the line that provisions new worktrees, and whether it is in place (managerAdvice); read when first asked for. */
  manager: ManagerAdvice | null;
  /** The first symbolic link among the paths fleet-git writes in the git dirs, or null: fleet-git leaves such a repository alone. */
  gitLink: string | null;
  /** Not in the JSON: the files read to judge it (info/exclude, the hook files, the git hook), by path (null: none), which a plan made from this state reads no more. */
  texts: ReadonlyMap<string, string | null>;
}

/** What fleet-git writes in the common git dir, and in each worktree's own. */
const COMMON_PATHS = [
  'config',
  'info/exclude',
  `hooks/${HOOK_NAME}`,
  `hooks/${HOOK_NAME}${PREV_SUFFIX}`,
  `hooks/${HOOK_NAME}${LEGACY_SUFFIX}`,
  `hooks/${HOOK_NAME}.old`,
  CREATED_FILE,
  REPLACED_FILE,
];
const GIT_DIR_PATHS = [CREATED_FILE, REPLACED_FILE];
/** What fleet-git writes in a worktree: the hook file (and the folders on its way). */
const HOOK_FILE_PATHS = [HOOK_FILE_PATH];

/**
 * Why a hook file or git hook of fleet-git's is not the one enable writes, in
 * words: the shim format it has (its logic is in the data folder, so only an
 * older format, or an edit, makes it differ).
 */
export function notAsWritten(format: number | undefined, how = 'edited, or for another data folder'): string {
  const f = format ?? 1;
  if (f < HOOK_FORMAT) return `was written by an older fleet-git (hook format ${f}; this one writes format ${HOOK_FORMAT})`;
  if (f > HOOK_FORMAT) return `was written by a newer fleet-git (hook format ${f}; this one writes format ${HOOK_FORMAT})`;
  return `is fleet-git's (hook format ${f}) but not as this fleet-git writes it (${how})`;
}

/** The one line that says why fleet-git leaves a place alone: a symbolic link where it would write. */
export function symlinkMessage(link: string, where: string): string {
  return `left ${where} alone: ${link} is a symbolic link, and fleet-git never writes, creates or removes anything through one (replace it with a real folder or file to let fleet-git manage this)`;
}

/**
 * A worktree's state. A class, not an object literal with a getter: a scan
 * makes thousands, and a literal's getter is a new closure each time.
 */
class WorktreeRead implements WorktreeState {
  readonly path: string;
  readonly kind: 'main' | 'worktree';
  readonly enabled: boolean;
  readonly problems: Problem[] = [];
  private trackedKnown: boolean | undefined;

  constructor(
    readonly worktree: Worktree,
    readonly hookFile: HookFileInfo,
    private readonly commonDir: string,
    private readonly ctx: RunContext,
    /** The link check, when reading the hook file made it already. */
    private linkKnown: string | null | undefined,
  ) {
    this.path = worktree.root;
    this.kind = worktree.main ? 'main' : 'worktree';
    this.enabled = hookFile.kind === 'ours';
  }

  /**
   * Whether git tracks the path, read from the index only when it can matter: a
   * file is there (worktreeState asks at once), or an action or the "missing" check asks.
   */
  get tracked(): boolean {
    return (this.trackedKnown ??= isTracked(
      this.worktree,
      this.commonDir,
      HOOK_FILE_PATH,
      this.ctx.env,
      this.ctx.user.home,
      this.ctx.config,
    ));
  }

  /** Read when a hook file is there, when the repository is enabled, and by the actions: a scan of repositories without fleet-git makes no extra call. */
  get link(): string | null {
    if (this.linkKnown === undefined) this.linkKnown = firstLink(this.path, HOOK_FILE_PATHS);
    return this.linkKnown;
  }
}

/**
 * A worktree's hook file, and the check for symbolic links on its path when the
 * file is there (its lstat, which tells that it is, is the last step of that
 * check): the file is read into a reused buffer and compared as bytes with the
 * one fleet-git writes. Through a link it is read as Copilot would, following it.
 */
function readHookFile(root: string, expected: string): { text: string | null; link: string | null | undefined } {
  const file = within(root, HOOK_FILE_PATH);
  const st = lstatIfPresent(file);
  if (st === undefined) return { text: null, link: undefined }; // no file: the link check waits until something asks
  const link = firstLink(root, HOOK_FILE_PATHS, new Map([[file, st.isSymbolicLink()]]));
  if (link) return { text: readText(file), link };
  const bytes = readSmall(file, true);
  if (bytes === LINK) return { text: readText(file), link: file }; // replaced by a link since the lstat
  return { text: bytes === null ? null : textOf(bytes, expected), link: bytes === null ? undefined : null };
}

/** The hook clients found there in a run (each hook file of a run names the same one): asked once, not once per repository. A missing one is asked again, since enable may install it meanwhile. */
const clientsThere = new WeakMap<RunContext, Set<string>>();
function clientThere(ctx: RunContext, client: string): boolean {
  let there = clientsThere.get(ctx);
  if (there?.has(client)) return true;
  if (!existsSync(client)) return false;
  if (!there) clientsThere.set(ctx, (there = new Set()));
  there.add(client);
  return true;
}

function worktreeState(
  wt: Worktree,
  commonDir: string,
  ctx: RunContext,
  texts: Map<string, string | null>,
  listed?: Listed,
): WorktreeState {
  let read: { text: string | null; link: string | null | undefined } = { text: null, link: undefined };
  if (listed?.dotGithub !== false) {
    read = readHookFile(wt.root, ctx.hookFile);
    texts.set(within(wt.root, HOOK_FILE_PATH), read.text);
  }
  const hookFile = classifyHookFile(read.text, ctx.hookFile);
  const w = new WorktreeRead(wt, hookFile, commonDir, ctx, read.link);
  const where = wt.root;
  if (hookFile.kind === 'absent') return w;
  if (w.link) {
    w.problems.push({ code: 'symlink', message: symlinkMessage(w.link, where) });
  } else if (w.tracked) {
    w.problems.push({
      code: 'hook-file-tracked',
      message: `${HOOK_FILE_PATH} is tracked by git in ${where}: fleet-git leaves a tracked file alone (untrack it to let fleet-git manage it)`,
    });
  } else if (hookFile.kind === 'ours') {
    if (!hookFile.clients.every((c) => clientThere(ctx, c))) {
      const what = (hookFile.format ?? 1) >= 2 ? "a data folder's hook script" : 'a hook client';
      w.problems.push({
        code: 'hook-file-stale',
        message: `${HOOK_FILE_PATH} in ${where} runs ${what} that no longer exists (${hookFile.clients.join(', ')}): run fleet-git enable`,
      });
    } else if (!hookFile.current) {
      w.problems.push({
        code: 'hook-file-outdated',
        message: `${HOOK_FILE_PATH} in ${where} ${notAsWritten(hookFile.format)}: run fleet-git enable`,
      });
    }
  } else if (hookFile.kind === 'upstream') {
    const message = hookFile.hinted
      ? `${HOOK_FILE_PATH} in ${where} runs fleet's own hook client (written by fleet-git's adapter for 'fleet hooks install'): fleet manages it; fleet-git enable --force replaces it with fleet-git's`
      : `${HOOK_FILE_PATH} in ${where} was written by the upstream 'fleet hooks install', whose Copilot events never reach the observer: fleet-git enable --force replaces it`;
    w.problems.push({ code: 'hook-file-upstream', message });
  } else {
    w.problems.push({
      code: 'hook-file-foreign',
      message: `${HOOK_FILE_PATH} in ${where} was not written by fleet-git: it is left alone (fleet-git enable --force replaces it, keeping a copy to restore)`,
    });
  }
  return w;
}

/**
 * A repository's state. Where git runs hooks from (core.hooksPath) matters only
 * to an enabled repository and to the actions: read when first asked for, so
 * that a scan of thousands reads no config file for the repositories that have
 * nothing of fleet-git. (A class for the same reason as WorktreeRead.)
 */
class RepoRead implements RepoState {
  readonly kind = 'repo';
  path: string;
  enabled = false;
  readonly problems: Problem[] = [];
  private hooksKnown: HooksDir | undefined;
  private gitLinkKnown: string | null | undefined;
  private configHookKnown: ConfigHookInfo | undefined;
  private managerKnown: ManagerAdvice | null | undefined;

  constructor(
    readonly repo: Repo,
    readonly main: WorktreeState | null,
    readonly worktrees: WorktreeState[],
    readonly exclude: boolean,
    private readonly own: GitHookInfo,
    private readonly ctx: RunContext,
    readonly texts: Map<string, string | null>,
    /** What the reads of the common dir told of the paths gitLink looks at (see LinkFacts). */
    private readonly links: Map<string, boolean | null>,
  ) {
    this.path = main?.path ?? repo.root;
  }

  get hooks(): HooksDir {
    return (this.hooksKnown ??= hooksDir(this.repo, this.ctx.config));
  }

  get provisioning(): 'config' | 'hooks-folder' {
    return this.ctx.configHooks ? 'config' : 'hooks-folder';
  }

  get configHook(): ConfigHookInfo {
    if (this.configHookKnown === undefined) {
      const file = within(this.repo.commonDir, 'config');
      let text = this.texts.get(file);
      if (text === undefined) this.texts.set(file, (text = this.ctx.config.localText(this.repo.commonDir)));
      this.configHookKnown = readConfigHook(text, REPO_HOOK_ENTRY, this.ctx.configHook);
    }
    return this.configHookKnown;
  }

  get manager(): ManagerAdvice | null {
    if (this.managerKnown === undefined)
      this.managerKnown =
        this.provisioning === 'config' ? null : managerAdvice(this.repo, this.hooks, this.ctx.repoHook, this.ctx.env, this.ctx.user.home);
    return this.managerKnown;
  }

  get gitHook(): GitHookInfo | null {
    return this.hooks.writable ? this.own : null; // fleet-git writes only to the repository's own hooks folder
  }

  get gitLink(): string | null {
    if (this.gitLinkKnown === undefined) {
      let link = firstLink(this.repo.commonDir, COMMON_PATHS, this.links, this.texts);
      for (const w of allWorktrees(this))
        link ??= w.worktree.gitDir === this.repo.commonDir ? null : firstLink(w.worktree.gitDir, GIT_DIR_PATHS, undefined, this.texts);
      this.gitLinkKnown = link;
    }
    return this.gitLinkKnown;
  }
}

/** The main worktree (when there is one), then the linked ones. */
export function allWorktrees(s: RepoState): WorktreeState[] {
  return s.main ? [s.main, ...s.worktrees] : s.worktrees;
}

/** The common dir's info/exclude as assessRepo reads it: its text (null: none), and whether it is a link (null: none). */
export interface ExcludeRead {
  text: string | null;
  link: boolean | null;
}

/** Reads info/exclude, opened without following a link (an open that fails on one reads it again through it). */
export function readExclude(repo: Repo): ExcludeRead {
  const path = within(repo.commonDir, 'info/exclude');
  const bytes = readSmall(path, true);
  if (bytes === LINK) return { text: readSmall(path)?.toString('utf8') ?? null, link: true };
  return bytes === null ? { text: null, link: null } : { text: bytes.toString('utf8'), link: false };
}

/**
 * Throws GitRefusedError, in git's own words, for a repository git refuses to
 * work in (a config file it cannot parse): fleet-git does nothing there, and
 * scan lists it as not usable. Its config file is read through the run's
 * reader, which keeps it for the reads of the state that follow, and git is
 * asked only when a line of it looks wrong.
 */
function refuseWhatGitRefuses(repo: Repo, ctx: RunContext): void {
  const text = ctx.config.localText(repo.commonDir);
  if (text === null || suspectConfigLine(text) === null) return;
  const refusal = gitRefusal(repo.root, ctx.env, ctx.user.home);
  if (refusal) throw new GitRefusedError(repo.root, `not usable: git refuses to work in it (${refusal})`);
}

/**
 * Reads and judges one repository and all its worktrees (`readBefore`: its
 * info/exclude, when the caller has just read it). A repository git refuses
 * to work in throws GitRefusedError; `with-fleet-git` (a scan of thousands)
 * looks for that only where fleet-git has something, so that it reads no
 * config file of the others.
 */
export function assessRepo(
  repo: Repo,
  ctx: RunContext,
  readBefore?: ExcludeRead,
  gitCheck: 'always' | 'with-fleet-git' = 'always',
): RepoState {
  ctx.config.forgetLocal();
  if (gitCheck === 'always') refuseWhatGitRefuses(repo, ctx);
  const texts = new Map<string, string | null>();
  const all = listWorktrees(repo).map((wt) =>
    worktreeState(wt, repo.commonDir, ctx, texts, wt.main && wt.root === repo.root ? repo.listed : undefined),
  );
  const main = all.find((w) => w.kind === 'main') ?? null;
  const linked = all.filter((w) => w.kind !== 'main');
  const exclude = readBefore ?? readExclude(repo);
  const excludePath = within(repo.commonDir, 'info/exclude');
  const links = new Map<string, boolean | null>([[excludePath, exclude.link]]);
  texts.set(excludePath, exclude.text);
  const block = hasExcludeBlock(exclude.text);
  const own = readGitHook(within(repo.commonDir, 'hooks'), ctx.gitHook, texts, links);
  const s = new RepoRead(repo, main, linked, block, own, ctx, texts, links);
  const gitHookOurs = (own.kind === 'ours' && !own.template) || own.displacedCopy !== null;
  // The block alone, beside fleet's own hook files only (CopilotAdapter.installHooks for fleet's client keeps them out of
  // commits with it), is not fleet-git enabled: nothing of fleet-git's runs there.
  const forUpstreamOnly = block && !gitHookOurs && all.some((w) => w.hookFile.kind === 'upstream' && w.hookFile.hinted === true);
  s.enabled = (block && !forUpstreamOnly) || gitHookOurs || all.some((w) => w.enabled);
  const problems = s.problems;
  // Symbolic links are looked for only where fleet-git has something: a scan of thousands without it makes no extra call.
  if (s.enabled || all.some((w) => w.hookFile.kind !== 'absent')) {
    if (gitCheck === 'with-fleet-git') refuseWhatGitRefuses(repo, ctx);
    const link = s.gitLink;
    if (link) problems.push({ code: 'symlink', message: symlinkMessage(link, s.path) });
  }
  if (s.enabled) {
    for (const w of all) {
      if (w.hookFile.kind !== 'absent') continue;
      if (w.link) w.problems.push({ code: 'symlink', message: symlinkMessage(w.link, w.path) });
      else if (!w.tracked)
        w.problems.push({ code: 'hook-file-missing', message: `${HOOK_FILE_PATH} is missing in ${w.path}: run fleet-git enable` });
    }
    if (!block)
      problems.push({
        code: 'exclude-missing',
        message: `info/exclude has no fleet-git block, so ${HOOK_FILE_PATH} could be committed: run fleet-git enable`,
      });
    const hooks = s.hooks;
    const gitHook = s.gitHook;
    if (s.provisioning === 'config') {
      const problem = configHookProblem(s, ctx);
      if (problem) problems.push(problem);
    } else if (!hooks.writable) {
      const advice = s.manager;
      if (advice?.provides && !advice.followed) problems.push({ code: 'hooks-path', message: advice.text });
      else if (!advice?.followed)
        problems.push({
          code: 'hooks-path',
          message: `worktree auto-provisioning is not active: ${hooks.reason}${advice ? `; ${advice.text}` : ''}`,
        });
    } else if (gitHook) {
      if (gitHook.kind === 'ours' && !gitHook.current)
        problems.push({
          code: 'git-hook-outdated',
          message: `the post-checkout hook in ${hooks.dir} ${notAsWritten(gitHook.format, 'edited, not executable, or for another data folder')}: run fleet-git enable`,
        });
      else if (gitHook.kind === 'foreign' || gitHook.displacedCopy)
        problems.push({
          code: 'git-hook-displaced',
          message: `another tool replaced fleet-git's post-checkout hook in ${hooks.dir}${gitHook.displacedCopy ? ` (fleet-git's is now ${gitHook.displacedCopy})` : ''}: fleet-git enable puts it back and keeps the other one running`,
        });
      else if (gitHook.kind === 'absent')
        problems.push({
          code: 'git-hook-missing',
          message: `the post-checkout hook is missing in ${hooks.dir}, so new worktrees get no hook file: run fleet-git enable`,
        });
    }
  }
  if (main) for (const p of main.problems) problems.push(p);
  return s;
}

/**
 * What keeps a repository's new worktrees from getting the hook file where git
 * runs hooks named in config, or null: fleet-git's entry missing from its
 * config, or not as this fleet-git writes it, or the data folder's script it
 * runs gone. A post-checkout hook of fleet-git's that git runs (enabled with an
 * older git) provisions them too, so then nothing is missing.
 */
function configHookProblem(s: RepoState, ctx: RunContext): Problem | null {
  const entry = s.configHook;
  const script = ctx.repoHook;
  const file = within(s.repo.commonDir, 'config');
  const g = s.gitHook;
  if (!entry.current && g?.kind === 'ours' && g.current && !g.template) return null;
  if (!entry.current && cloneEntry(ctx.config, ctx.user.dataDir).current) return null; // setup's global entry provisions them
  if (!entry.present)
    return {
      code: 'git-hook-missing',
      message: `the hook.${REPO_HOOK_ENTRY} entry is missing from ${file}, so new worktrees get no hook file: run fleet-git enable`,
    };
  if (!entry.current)
    return {
      code: 'git-hook-outdated',
      message: `the hook.${REPO_HOOK_ENTRY} entry in ${file} is not as this fleet-git writes it (edited, or for another data folder): run fleet-git enable`,
    };
  if (!isExecutable(script))
    return {
      code: 'git-hook-missing',
      message: `${script}, which the hook.${REPO_HOOK_ENTRY} entry in ${file} runs, is missing, so new worktrees get no hook file: run fleet-git enable`,
    };
  return null;
}

/** How new worktrees of an enabled repository get the hook file, in one line for status and doctor; null where they do not (a hooks-path problem says why). */
export function provisioningLine(s: RepoState): string | null {
  if (s.provisioning === 'config')
    return s.configHook.current
      ? `new worktrees get the hook file through the hook.${REPO_HOOK_ENTRY} entry in ${within(s.repo.commonDir, 'config')} (this git runs hooks named in config)`
      : `new worktrees get the hook file through the hook.${CLONE_HOOK_ENTRY} entry of fleet-git setup in the global git config (this git runs hooks named in config)`;
  if (!s.hooks.writable)
    return s.manager?.provides
      ? `new worktrees get the hook file through the line in ${s.manager.file} (this git is older than 2.54)`
      : null;
  return `new worktrees get the hook file through the ${HOOK_NAME} hook in ${s.hooks.dir} (this git is older than 2.54)`;
}

/** The fields of a repository's state that decide whether it is healthy: a RepoState and its JSON (stateJson) both have them. */
export interface Judged {
  enabled: boolean;
  problems: readonly unknown[];
  worktrees: readonly { problems: readonly unknown[] }[];
}

export function isHealthy(s: Judged): boolean {
  return s.enabled && s.problems.length === 0 && s.worktrees.every((w) => w.problems.length === 0);
}

/** The JSON shape of a repository's state. */
export function stateJson(s: RepoState) {
  return {
    path: s.path,
    kind: s.kind,
    enabled: s.enabled,
    problems: s.problems.map(({ code, message }) => ({ code, message })),
    worktrees: s.worktrees.map((w) => ({
      path: w.path,
      kind: w.kind,
      enabled: w.enabled,
      problems: w.problems.map(({ code, message }) => ({ code, message })),
    })),
  };
}
