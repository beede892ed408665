// What a `.git` entry is: a repository, a linked worktree, a submodule, a
// separate git dir, a bare repository, a stale pointer or something broken,
// told from the `.git` entry itself and one listing of the git dir it leads to
// (no git subprocess). The walk that finds them is core/bulk/discover.ts.
import { existsSync, readdirSync, readFileSync, statSync, type Dirent, type Stats } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { parseCommonDir, parseGitFile, type Listed } from './repo.js';
import { isTrue, parseConfigValues } from './config.js';
import { describeError, isCode } from '../errors.js';
import { DIRENTS, within } from '../fs/read.js';

export type FoundKind = 'repo' | 'worktree' | 'submodule' | 'separate' | 'bare' | 'stale' | 'broken';

interface FoundBase {
  /** Absolute path of the folder (the worktree root, or the bare repository). */
  path: string;
  /** When found inside another repository's worktree (only with `nested`): that repository's path. */
  enclosing?: string;
}
/** A `.git` folder that looks valid. */
export interface FoundRepo extends FoundBase {
  kind: 'repo';
  gitDir: string;
  commonDir: string;
  listed?: Listed;
}
/** A `.git` file whose git dir has a `commondir` file: a linked worktree. */
export interface FoundWorktree extends FoundBase {
  kind: 'worktree';
  gitDir: string;
  commonDir: string;
  /** The main worktree (the folder holding the common dir when it is named `.git`), else null. */
  mainPath: string | null;
}
/** A `.git` file whose git dir sits under `<superproject>/.git/modules/`. */
export interface FoundSubmodule extends FoundBase {
  kind: 'submodule';
  gitDir: string;
  commonDir: string;
  superproject: string;
}
/** A `.git` file pointing at a plain git dir elsewhere (`git init --separate-git-dir`). */
export interface FoundSeparate extends FoundBase {
  kind: 'separate';
  gitDir: string;
  commonDir: string;
}
/** A folder with HEAD, objects/ and refs/ and no `.git`: no worktree, nothing to enable. */
export interface FoundBare extends FoundBase {
  kind: 'bare';
  reason: string;
}
/** A `.git` file whose git dir does not exist. */
export interface FoundStale extends FoundBase {
  kind: 'stale';
  reason: string;
}
/** A `.git` folder that is not a git dir, or a `.git` file that cannot be used. */
export interface FoundBroken extends FoundBase {
  kind: 'broken';
  reason: string;
}

export type Found = FoundRepo | FoundWorktree | FoundSubmodule | FoundSeparate | FoundBare | FoundStale | FoundBroken;
/** The kinds that have a worktree and a git dir: the ones fleet-git can act on. */
export type FoundWithGitDir = FoundRepo | FoundWorktree | FoundSubmodule | FoundSeparate;

export function hasGitDir(f: Found): f is FoundWithGitDir {
  return f.kind === 'repo' || f.kind === 'worktree' || f.kind === 'submodule' || f.kind === 'separate';
}

interface GitDirListing {
  head: boolean;
  objects: boolean;
  refs: boolean;
  commondir: boolean;
  worktrees: boolean;
}

function listingOf(entries: Dirent[]): GitDirListing {
  const l: GitDirListing = { head: false, objects: false, refs: false, commondir: false, worktrees: false };
  for (const e of entries) {
    switch (e.name) {
      case 'HEAD':
        l.head = !e.isDirectory();
        break;
      case 'objects':
        l.objects = e.isDirectory() || e.isSymbolicLink();
        break;
      case 'refs':
        l.refs = e.isDirectory() || e.isSymbolicLink();
        break;
      case 'commondir':
        l.commondir = e.isFile();
        break;
      case 'worktrees':
        l.worktrees = true;
        break;
    }
  }
  return l;
}

function missingParts(l: GitDirListing): string[] {
  const missing: string[] = [];
  if (!l.head) missing.push('HEAD');
  if (!l.commondir) {
    if (!l.objects) missing.push('objects/');
    if (!l.refs) missing.push('refs/');
  }
  return missing;
}

function readCommonDir(gitDir: string): string {
  return parseCommonDir(readFileSync(join(gitDir, 'commondir'), 'utf8'), gitDir);
}

const MODULES = `${sep}.git${sep}modules${sep}`;

/** A repository whose git dir is its own common dir, with what the listings read so far tell the state reader. */
function plainRepo(path: string, gitDir: string, worktrees: boolean, dotGithub: boolean | undefined): FoundRepo {
  return { kind: 'repo', path, gitDir, commonDir: gitDir, listed: dotGithub === undefined ? { worktrees } : { worktrees, dotGithub } };
}

/**
 * Classifies a `.git` folder at `path/.git`; `dotGithub`: whether `path` holds
 * `.github` (undefined: not known); `head`: `.git/HEAD` is known to exist.
 */
export function classifyGitFolder(path: string, dotGithub: boolean | undefined, head = false): Found {
  const gitDir = within(path, '.git');
  // What git itself looks for, one existence check each (cheaper than listing
  // the folder; like git's own check of objects/ and refs/, it does not ask what
  // kind of file each is); the folder is listed only to tell what is wrong with it.
  if (
    (head || existsSync(within(gitDir, 'HEAD'))) &&
    existsSync(within(gitDir, 'objects')) &&
    existsSync(within(gitDir, 'refs')) &&
    !existsSync(within(gitDir, 'commondir'))
  ) {
    const worktrees = existsSync(within(gitDir, 'worktrees'));
    return plainRepo(path, gitDir, worktrees, dotGithub);
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(gitDir, DIRENTS);
  } catch (err) {
    return { kind: 'broken', path, reason: `cannot read .git folder: ${describeError(err)}` };
  }
  const l = listingOf(entries);
  const missing = missingParts(l);
  if (missing.length) return { kind: 'broken', path, reason: `.git folder is missing ${missing.join(', ')}` };
  if (!l.commondir) {
    // The listings read so far answer questions the state reader would ask.
    return plainRepo(path, gitDir, l.worktrees, dotGithub);
  }
  let commonDir: string;
  try {
    commonDir = readCommonDir(gitDir);
  } catch (err) {
    return { kind: 'broken', path, reason: `cannot read .git/commondir: ${describeError(err)}` };
  }
  return { kind: 'repo', path, gitDir, commonDir };
}

/** Classifies a `.git` file at `path/.git`. */
export function classifyGitFile(path: string): Found {
  let content: string;
  try {
    content = readFileSync(join(path, '.git'), 'utf8');
  } catch (err) {
    return { kind: 'broken', path, reason: `cannot read .git file: ${describeError(err)}` };
  }
  const gitDir = parseGitFile(content, path);
  if (!gitDir) return { kind: 'broken', path, reason: '.git file has no "gitdir:" line' };
  let entries: Dirent[];
  try {
    entries = readdirSync(gitDir, DIRENTS);
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return { kind: 'stale', path, reason: `gitdir ${gitDir} does not exist` };
    return { kind: 'broken', path, reason: `cannot read gitdir ${gitDir}: ${describeError(err)}` };
  }
  const l = listingOf(entries);
  const missing = missingParts(l);
  if (missing.length) return { kind: 'broken', path, reason: `gitdir ${gitDir} is missing ${missing.join(', ')}` };
  if (l.commondir) {
    let commonDir: string;
    try {
      commonDir = readCommonDir(gitDir);
    } catch (err) {
      return { kind: 'broken', path, reason: `cannot read ${join(gitDir, 'commondir')}: ${describeError(err)}` };
    }
    try {
      statSync(commonDir);
    } catch {
      return { kind: 'stale', path, reason: `common dir ${commonDir} does not exist` };
    }
    const mainPath = basename(commonDir) === '.git' ? dirname(commonDir) : null;
    return { kind: 'worktree', path, gitDir, commonDir, mainPath };
  }
  const at = (gitDir + sep).indexOf(MODULES);
  if (at >= 0) return { kind: 'submodule', path, gitDir, commonDir: gitDir, superproject: gitDir.slice(0, at) || sep };
  return { kind: 'separate', path, gitDir, commonDir: gitDir };
}

export function classifyDotGit(path: string, entries: Dirent[], entry: Dirent): Found {
  const dotGithub = entries.some((e) => e.name === '.github');
  if (entry.isDirectory()) return classifyGitFolder(path, dotGithub);
  if (entry.isFile()) return classifyGitFile(path);
  // A `.git` symbolic link (or something stranger): git follows it, so do we.
  let st: Stats;
  try {
    st = statSync(join(path, '.git'));
  } catch (err) {
    return { kind: 'broken', path, reason: `.git cannot be followed: ${describeError(err)}` };
  }
  if (st.isDirectory()) return classifyGitFolder(path, undefined);
  if (st.isFile()) return classifyGitFile(path);
  return { kind: 'broken', path, reason: '.git is neither a file nor a folder' };
}

export function isBareListing(entries: Dirent[]): boolean {
  let head = false,
    objects = false,
    refs = false;
  for (const e of entries) {
    if (e.name === 'HEAD') head = e.isFile();
    else if (e.name === 'objects') objects = e.isDirectory();
    else if (e.name === 'refs') refs = e.isDirectory();
  }
  return head && objects && refs;
}

export function bareReason(path: string): string {
  // A git dir with `core.bare = false` is the separate git dir of a worktree elsewhere.
  try {
    const bare = parseConfigValues(readFileSync(join(path, 'config'), 'utf8'), 'core', 'bare').at(-1);
    if (bare !== undefined && !isTrue(bare))
      return 'git directory without a worktree here (core.bare = false: the git dir of a worktree elsewhere)';
  } catch {
    /* no config: still bare-looking */
  }
  return 'bare repository (no worktree)';
}
