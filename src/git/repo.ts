// Finding a repository and reading what fleet-git needs from it, from the files
// git itself reads (.git, commondir, worktrees/*/gitdir, the index): no git
// process, so that the same code serves one repository and thousands.
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isCode, isPresent, readTextIfExists, within } from '../fs/atomic.js';
import { UsageError } from '../errors.js';
import type { Env } from '../paths.js';
import { parseConfigValues } from './config.js';
import { gitTracks } from './process.js';

export interface Repo {
  /** The worktree this location belongs to. */
  root: string;
  /** Its own git dir (for a linked worktree: <common>/worktrees/<name>). */
  gitDir: string;
  /** The shared git dir: config, hooks, info/exclude, objects. */
  commonDir: string;
  linked: boolean;
  /** What listings a caller has already read tell (discovery reads them anyway): each spares a stat. */
  listed?: Listed;
}

/** For a repository whose git dir is its common dir and `<root>/.git`: */
export interface Listed {
  /** whether the git dir holds `worktrees/`; */
  worktrees: boolean;
  /** whether the worktree root holds `.github` (not known when absent). */
  dotGithub?: boolean;
}

export interface Worktree { root: string; gitDir: string; main: boolean }

/** Why a path is not a repository fleet-git can work in. Exit code 2. */
export class NotARepoError extends UsageError {
  constructor(readonly path: string, readonly reason: string) {
    super(`${path}: ${reason}`);
  }
}


function isGitDir(dir: string): boolean {
  return isPresent(join(dir, 'HEAD')) && (isPresent(join(dir, 'commondir')) || (isPresent(join(dir, 'objects')) && isPresent(join(dir, 'refs'))));
}

/** The git dir named by a `.git` file's contents, resolved against the folder holding the file; null when unparsable. */
export function parseGitFile(content: string, folder: string): string | null {
  const first = content.split(/\r?\n/, 1)[0] ?? '';
  const m = /^gitdir:\s*(.*?)\s*$/.exec(first);
  if (!m || !m[1]) return null;
  return isAbsolute(m[1]) ? resolve(m[1]) : resolve(folder, m[1]);
}

/** The git dir a `.git` file names, resolved against the folder holding it. */
function readGitFile(dotGit: string): string | null {
  return parseGitFile(readFileSync(dotGit, 'utf8'), dirname(dotGit));
}

/** The common dir a `commondir` file's contents name (as git: trailing line ends dropped), resolved against the git dir. */
export function parseCommonDir(content: string, gitDir: string): string {
  const v = content.replace(/[\r\n]+$/, '');
  return isAbsolute(v) ? resolve(v) : resolve(gitDir, v);
}

/** The common dir of a git dir: itself, or what its `commondir` file names. */
function commonDirOf(gitDir: string): string {
  const c = readTextIfExists(join(gitDir, 'commondir'));
  return c === null ? gitDir : parseCommonDir(c, gitDir);
}

/** Reads the repository whose worktree root is `root` (a folder holding `.git`). */
function openRepo(root: string): Repo {
  const dotGit = join(root, '.git');
  let st;
  try {
    st = lstatSync(dotGit);
  } catch {
    throw new NotARepoError(root, 'not a git repository (no .git here)');
  }
  let gitDir = dotGit;
  if (st.isFile()) {
    const target = readGitFile(dotGit);
    if (target === null) throw new NotARepoError(root, `its .git file does not name a git dir (expected "gitdir: <path>")`);
    if (!isPresent(target)) throw new NotARepoError(root, `its .git file points to ${target}, which does not exist (a stale worktree or submodule?)`);
    gitDir = target;
  } else if (st.isSymbolicLink()) {
    gitDir = realpathSync(dotGit);
  }
  if (!isGitDir(gitDir)) throw new NotARepoError(root, `${gitDir} is not a valid git dir (HEAD, objects or refs missing)`);
  const commonDir = commonDirOf(gitDir);
  return { root, gitDir, commonDir, linked: commonDir !== gitDir };
}

/** The repository containing `start`, searching upwards as git does. */
export function locateRepo(start: string): Repo {
  let dir: string;
  try {
    dir = realpathSync(start);
  } catch {
    throw new NotARepoError(start, 'no such folder');
  }
  if (!statSync(dir).isDirectory()) dir = dirname(dir);
  for (let d = dir; ; d = dirname(d)) {
    let hasDotGit = false;
    try { lstatSync(join(d, '.git')); hasDotGit = true; } catch (e) { if (!isCode(e, 'ENOENT') && !isCode(e, 'ENOTDIR')) throw e; }
    if (hasDotGit) return openRepo(d);
    if (isGitDir(d) && !(basename(dirname(d)) === 'worktrees' || basename(dirname(d)) === 'modules')) {
      if (basename(d) === '.git') return openRepo(dirname(d));
      throw new NotARepoError(dir, 'a bare repository: it has no worktree for the Copilot hook file (run fleet-git in a clone or worktree of it)');
    }
    if (dirname(d) === d) break;
  }
  throw new NotARepoError(dir, 'not inside a git repository (run it in a repository, or name one)');
}

/**
 * Every worktree of the repository: the main one first, then the linked ones
 * that still exist. A repository opened at a worktree whose git dir is not named
 * .git (--separate-git-dir, a submodule) keeps that worktree as its main one.
 */
export function listWorktrees(repo: Repo): Worktree[] {
  const out: Worktree[] = [];
  const common = repo.commonDir;
  if (common.endsWith('/.git')) out.push({ root: common.length > 5 ? common.slice(0, -5) : '/', gitDir: common, main: true });
  else if (!repo.linked && repo.root !== repo.gitDir) out.push({ root: repo.root, gitDir: repo.gitDir, main: true });
  // Most repositories have no linked worktree: one stat instead of a failing readdir.
  const dir = within(repo.commonDir, 'worktrees');
  const names = (repo.listed?.worktrees ?? isPresent(dir)) ? readdirSync(dir).sort() : [];
  for (const name of names) {
    const gitDir = join(dir, name);
    const target = readTextIfExists(join(gitDir, 'gitdir'));
    if (target === null) continue;
    // gitdir names the worktree's .git file, as commondir names the common dir: the same reading.
    const root = dirname(parseCommonDir(target, gitDir));
    if (isPresent(join(root, '.git'))) out.push({ root, gitDir, main: false });
  }
  return out;
}

/** The size in bytes of the repository's object names, from `extensions.objectFormat`; null for a format this reader does not know. */
export function objectNameSize(commonDir: string): number | null {
  const text = readTextIfExists(join(commonDir, 'config'));
  const format = text === null ? undefined : parseConfigValues(text, 'extensions', 'objectformat').at(-1)?.toLowerCase();
  return format === undefined || format === 'sha1' ? 20 : format === 'sha256' ? 32 : null;
}

/** Index extensions that say nothing about which paths are tracked (entries come before them): the reader's answer stands. */
const HARMLESS_EXTENSIONS = new Set(['TREE', 'REUC', 'UNTR', 'FSMN', 'EOIE', 'IEOT']);

/**
 * Whether `relPath` is in the index of a worktree (i.e. tracked), read from the
 * index file itself (versions 2 to 4, object names of `hashSize` bytes). Returns
 * null when the index cannot be read this way (an unknown version or extension,
 * a split or sparse index, anything that does not add up): the caller then asks git.
 */
export function isTrackedInIndex(gitDir: string, relPath: string, hashSize: number | null = 20): boolean | null {
  if (hashSize === null) return null;
  let buf: Buffer;
  try {
    buf = readFileSync(join(gitDir, 'index'));
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    return null;
  }
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  const count = buf.readUInt32BE(8);
  if (version < 2 || version > 4) return null;
  const want = Buffer.from(relPath, 'utf8');
  let off = 12;
  let prev: Buffer = Buffer.alloc(0);
  let found = false;
  for (let i = 0; i < count; i++) {
    const start = off;
    off += 40 + hashSize;
    if (off + 2 > buf.length) return null;
    const flags = buf.readUInt16BE(off);
    off += 2;
    if (version >= 3 && flags & 0x4000) off += 2;
    let path: Buffer;
    if (version === 4) {
      let strip = 0;
      let b: number;
      do { b = buf[off++]; strip = (strip << 7) | (b & 0x7f); if (b & 0x80) strip += 1; } while (b & 0x80);
      const end = buf.indexOf(0, off);
      if (end < 0 || strip > prev.length) return null;
      path = Buffer.concat([prev.subarray(0, prev.length - strip), buf.subarray(off, end)]);
      off = end + 1;
      prev = path;
    } else {
      const end = buf.indexOf(0, off);
      if (end < 0) return null;
      path = buf.subarray(off, end);
      off = start + ((end - start + 8) & ~7);
    }
    if (path.equals(want)) found = true;
  }
  // The extensions, then the checksum, which has the object names' size: a
  // length that does not add up means a format this reader does not know.
  const last = buf.length - hashSize;
  while (off < last) {
    if (off + 8 > last) return null;
    const sig = buf.toString('latin1', off, off + 4);
    const size = buf.readUInt32BE(off + 4);
    if (!HARMLESS_EXTENSIONS.has(sig)) return null; // link (split index), sdir (sparse index), or unknown
    off += 8 + size;
  }
  return off === last ? found : null;
}

/**
 * Whether git tracks `relPath` in a worktree: read from its index, or, for an
 * index or object format the reader does not know, asked of git.
 */
export function isTracked(wt: Worktree, commonDir: string, relPath: string, env: Env, home: string): boolean {
  return isTrackedInIndex(wt.gitDir, relPath, objectNameSize(commonDir)) ?? gitTracks(wt.root, relPath, env, home);
}
