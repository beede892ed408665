// Finding a repository and reading what fleet-git needs from it, from the files
// git itself reads (.git, commondir, worktrees/*/gitdir, the index): no git
// process, so that the same code serves one repository and thousands.
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isPresent, readText, within } from '../fs/read.js';
import { isCode, unreachableReason, UsageError } from '../errors.js';
import type { Env } from '../paths.js';
import { parseConfigValues, type ConfigReader } from './config.js';
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

export interface Worktree {
  root: string;
  gitDir: string;
  main: boolean;
}

/** Why a path is not a repository fleet-git can work in. Exit code 2. */
export class NotARepoError extends UsageError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** A repository git itself refuses to work in (a config file it cannot parse): `reason` is git's own line. Exit code 2. */
export class GitRefusedError extends NotARepoError {}

function isGitDir(dir: string): boolean {
  return (
    isPresent(join(dir, 'HEAD')) && (isPresent(join(dir, 'commondir')) || (isPresent(join(dir, 'objects')) && isPresent(join(dir, 'refs'))))
  );
}

/**
 * The git dir named by a `.git` file's contents, resolved against the folder holding the file; null when unparsable.
 * As git reads it: everything after `gitdir:` but the final line ends, so a path holding a line break is whole.
 */
export function parseGitFile(content: string, folder: string): string | null {
  const m = /^gitdir:[ \t]*([\s\S]*?)[ \t]*[\r\n]*$/.exec(content);
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
  const c = readText(join(gitDir, 'commondir'));
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
    if (!isPresent(target))
      throw new NotARepoError(root, `its .git file points to ${target}, which does not exist (a stale worktree or submodule?)`);
    gitDir = target;
  } else if (st.isSymbolicLink()) {
    gitDir = realpathSync(dotGit);
  }
  if (!isGitDir(gitDir)) throw new NotARepoError(root, `${gitDir} is not a valid git dir (HEAD, objects or refs missing)`);
  const commonDir = commonDirOf(gitDir);
  return { root, gitDir, commonDir, linked: commonDir !== gitDir };
}

/** The repository containing the folder `start`, searching upwards as git does. */
export function locateRepo(start: string): Repo {
  let dir: string;
  try {
    dir = realpathSync(start);
  } catch (e) {
    throw new NotARepoError(start, isCode(e, 'EACCES') ? unreachableReason(start) : 'no such folder');
  }
  // A path to a file is refused, as scan, remove and --under refuse a root that is one (report.ts checkRoots).
  if (!statSync(dir).isDirectory()) throw new NotARepoError(start, 'not a folder');
  for (let d = dir; ; d = dirname(d)) {
    let hasDotGit = false;
    try {
      lstatSync(join(d, '.git'));
      hasDotGit = true;
    } catch (e) {
      if (!isCode(e, 'ENOENT') && !isCode(e, 'ENOTDIR')) throw e;
    }
    if (hasDotGit) return openRepo(d);
    if (isGitDir(d) && !(basename(dirname(d)) === 'worktrees' || basename(dirname(d)) === 'modules')) {
      if (basename(d) === '.git') return openRepo(dirname(d));
      throw new NotARepoError(
        dir,
        'a bare repository: it has no worktree for the Copilot hook file (run fleet-git in a clone or worktree of it)',
      );
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
    const target = readText(join(gitDir, 'gitdir'));
    if (target === null) continue;
    // gitdir names the worktree's .git file, as commondir names the common dir: the same reading.
    const root = dirname(parseCommonDir(target, gitDir));
    if (isPresent(join(root, '.git'))) out.push({ root, gitDir, main: false });
  }
  return out;
}

/**
 * The size in bytes of the repository's object names, from `extensions.objectFormat`;
 * null for a format this reader does not know. Read through the run's config
 * reader when given one: the repository's state reads its config file once for this and core.hooksPath.
 */
export function objectNameSize(commonDir: string, config?: ConfigReader): number | null {
  let values: string[];
  if (config) values = config.localValues(commonDir, 'extensions', 'objectformat');
  else {
    const text = readText(join(commonDir, 'config'));
    values = text === null ? [] : parseConfigValues(text, 'extensions', 'objectformat');
  }
  const format = values.at(-1)?.toLowerCase();
  return format === undefined || format === 'sha1' ? 20 : format === 'sha256' ? 32 : null;
}

/**
 * Index extensions that say nothing the entries do not (entries come before
 * them): the reader's answer stands. `sdir` only marks that folder entries are
 * among the entries, which the reader looks at where they are.
 */
const HARMLESS_EXTENSIONS = new Set(['TREE', 'REUC', 'UNTR', 'FSMN', 'EOIE', 'IEOT', 'sdir']);

/** How much of the index is read at a time: `.github/` sorts before letters and digits, so one read is all most indexes take. */
const INDEX_CHUNK = 64 * 1024;

/**
 * The index file, read forwards a piece at a time: a reader that stops early
 * reads only what it went through, not a 9 MB file of 80,000 entries.
 */
class IndexFile {
  /** The file offset of buf[0], and how many bytes from there buf holds. */
  private base = 0;

  /** `buf` holds the file's first `held` bytes already. */
  constructor(
    private readonly fd: number,
    readonly size: number,
    public buf: Buffer,
    private held: number,
  ) {}

  /** Makes bytes [pos, pos + n) of the file available at buf[pos - base]; false past the end of the file. */
  has(pos: number, n: number): boolean {
    if (pos >= this.base && pos + n <= this.base + this.held) return true;
    if (pos + n > this.size) return false;
    const keep = pos >= this.base && pos < this.base + this.held ? this.base + this.held - pos : 0;
    const want = Math.max(n, Math.min(INDEX_CHUNK, this.size - pos));
    if (want > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(want, this.buf.length * 2));
      this.buf.copy(bigger, 0, pos - this.base, pos - this.base + keep);
      this.buf = bigger;
    } else if (keep > 0) {
      this.buf.copy(this.buf, 0, pos - this.base, pos - this.base + keep);
    }
    this.base = pos;
    this.held = keep;
    while (this.held < want) {
      const got = readSync(this.fd, this.buf, this.held, Math.min(this.buf.length, this.size - pos) - this.held, pos + this.held);
      if (got === 0) return false; // the file shrank under us
      this.held += got;
    }
    return true;
  }

  /** Where buf holds file offset `pos` (after has()). */
  at(pos: number): number {
    return pos - this.base;
  }

  /** The file offset of the first NUL at or after `pos`, or -1. */
  nul(pos: number): number {
    for (let n = 256; ; n *= 2) {
      const avail = Math.min(n, this.size - pos);
      if (avail <= 0 || !this.has(pos, avail)) return -1;
      const i = this.buf.indexOf(0, this.at(pos));
      if (i >= 0 && i < this.at(pos) + avail) return this.base + i;
      if (avail < n) return -1;
    }
  }
}

/**
 * Whether the index at `indexDir/index` may be split: a split index names its
 * shared part, `sharedindex.<id>`, a file beside it (git removes one unused
 * for two weeks). Without such a file, an index has no `link` extension git could use.
 */
function maybeSplit(indexDir: string): boolean {
  try {
    return readdirSync(indexDir).some((n) => n.startsWith('sharedindex.'));
  } catch {
    return true;
  }
}

/**
 * Whether `relPath` is in the index of a worktree (i.e. tracked), read from the
 * index file itself (versions 2 to 4, object names of `hashSize` bytes). Returns
 * null when the index cannot be read this way (an unknown version or extension,
 * a split index, the path inside a sparse index's folder entry, anything that
 * does not add up): the caller then asks git.
 *
 * Entries are sorted bytewise by their full path, so the reader stops at the
 * path or at the first entry after it: its cost does not grow with the index.
 * What could still change the answer lies after the entries: a split index's
 * `link` (the entries held in a shared index), known to be absent when no
 * shared index is beside it, else read to the end.
 */
export function isTrackedInIndex(gitDir: string, relPath: string, hashSize: number | null = 20): boolean | null {
  if (hashSize === null) return null;
  let fd: number;
  try {
    fd = openSync(within(gitDir, 'index'), 'r');
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    return null;
  }
  try {
    // The first piece into a buffer every call reuses; a file shorter than that is all there, and needs no fstat for its size.
    const buf = (firstPiece ??= Buffer.allocUnsafe(INDEX_CHUNK));
    const n = readSync(fd, buf, 0, INDEX_CHUNK, 0);
    const size = n < INDEX_CHUNK ? n : fstatSync(fd).size;
    return readIndex(new IndexFile(fd, size, buf, Math.min(n, size)), gitDir, pathBytes(relPath), hashSize);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The buffer isTrackedInIndex reads the start of an index into (one for the run: a scan reads thousands). */
let firstPiece: Buffer | undefined;
let lastPath: { text: string; bytes: Buffer } | undefined;

/** A path's UTF-8 bytes, kept for the next call (a scan asks the same path thousands of times). */
function pathBytes(relPath: string): Buffer {
  if (lastPath?.text !== relPath) lastPath = { text: relPath, bytes: Buffer.from(relPath, 'utf8') };
  return lastPath.bytes;
}

function readIndex(f: IndexFile, gitDir: string, want: Buffer, hashSize: number): boolean | null {
  if (!f.has(0, 12) || f.buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = f.buf.readUInt32BE(4);
  const count = f.buf.readUInt32BE(8);
  if (version < 2 || version > 4) return null;
  let off = 12;
  // Version 4 names each path by what it keeps of the one before: the last path, rebuilt here.
  let path = Buffer.allocUnsafe(version === 4 ? 4096 : 0);
  let pathLen = 0;
  let passed = false;
  for (let i = 0; i < count; i++) {
    const start = off;
    if (!f.has(off, 42 + hashSize)) return null;
    const mode = f.buf.readUInt32BE(f.at(off) + 24);
    off += 40 + hashSize;
    const flags = f.buf.readUInt16BE(f.at(off));
    off += 2;
    if (version >= 3 && flags & 0x4000) off += 2;
    let cmp: number;
    let named: Buffer;
    let from: number;
    let to: number;
    if (version === 4) {
      let strip = 0;
      let b: number;
      do {
        if (!f.has(off, 1)) return null;
        b = f.buf[f.at(off++)];
        strip = (strip << 7) | (b & 0x7f);
        if (b & 0x80) strip += 1;
      } while (b & 0x80);
      const end = f.nul(off);
      if (end < 0 || strip > pathLen) return null;
      const keep = pathLen - strip;
      pathLen = keep + end - off;
      if (pathLen > path.length) {
        const bigger = Buffer.allocUnsafe(pathLen * 2);
        path.copy(bigger, 0, 0, keep);
        path = bigger;
      }
      f.buf.copy(path, keep, f.at(off), f.at(end));
      off = end + 1;
      named = path;
      from = 0;
      to = pathLen;
    } else {
      const end = f.nul(off);
      if (end < 0) return null;
      named = f.buf;
      from = f.at(off);
      to = f.at(end);
      off = start + ((end - start + 8) & ~7);
    }
    // Each entry's flags hold its path's length (up to 0xFFF): a cheap check that the entries add up (the object names' size among them).
    if ((flags & 0xfff) !== Math.min(to - from, 0xfff)) return null;
    if (passed) continue;
    cmp = want.compare(named, from, to);
    if (cmp === 0) return true;
    // A sparse index's folder entry (`.github/`) stands for every path under it: git knows which.
    if ((mode & 0o170000) === 0o040000 && to - from < want.length && want.compare(named, from, to, 0, to - from) === 0) return null;
    if (cmp < 0) {
      // Past the path. A whole index read already: its extensions tell. Else a shared index may hold the path only when one is beside it.
      if (f.size > INDEX_CHUNK && !maybeSplit(gitDir)) return false;
      passed = true;
    }
  }
  // The extensions, then the checksum, which has the object names' size: a
  // length that does not add up means a format this reader does not know.
  const last = f.size - hashSize;
  while (off < last) {
    if (off + 8 > last || !f.has(off, 8)) return null;
    const sig = f.buf.toString('latin1', f.at(off), f.at(off) + 4);
    const size = f.buf.readUInt32BE(f.at(off) + 4);
    if (!HARMLESS_EXTENSIONS.has(sig)) return null; // link (split index), or unknown
    off += 8 + size;
  }
  return off === last ? false : null;
}

/**
 * Whether git tracks `relPath` in a worktree: read from its index, or, for an
 * index or object format the reader does not know, asked of git.
 */
export function isTracked(wt: Worktree, commonDir: string, relPath: string, env: Env, home: string, config?: ConfigReader): boolean {
  return isTrackedInIndex(wt.gitDir, relPath, objectNameSize(commonDir, config)) ?? gitTracks(wt.root, relPath, env, home);
}
