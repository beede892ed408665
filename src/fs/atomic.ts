// Writing files so that a failure halfway leaves the old file, or none, in place:
// a temporary file in the same folder, then a rename over the target.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isUnder } from '../paths.js';

/**
 * `join(dir, rel)` for a normalized absolute `dir` and a plain relative `rel`
 * (names without `.`, `..` or doubled slashes), without join's normalizing pass:
 * the paths a walk over thousands of repositories builds most.
 */
export function within(dir: string, rel: string): string {
  return dir.endsWith('/') ? dir + rel : `${dir}/${rel}`;
}

/** statSync options: undefined for a path that does not exist, instead of an error. */
export const NO_ENTRY_OK = { throwIfNoEntry: false } as const;

/** readdirSync options: each entry with its file type (one object for every call). */
export const DIRENTS = { withFileTypes: true } as const;

/** Whether a path exists, without the cost of an ENOENT error; true for one that cannot be checked (the read that follows then tells). */
export function isPresent(path: string): boolean {
  try {
    return statSync(path, NO_ENTRY_OK) !== undefined;
  } catch {
    return true;
  }
}

/** What is known of a path without asking again: true a symbolic link, false something else, null nothing there. */
export type LinkFacts = ReadonlyMap<string, boolean | null>;

/** lstat without an error for a path that is not there (or under a file): undefined. */
export function lstatIfPresent(path: string): Stats | undefined {
  try {
    return lstatSync(path, NO_ENTRY_OK);
  } catch {
    return undefined; // a file where a folder is named (ENOTDIR): nothing below it
  }
}

/** The names firstLink walks for a list of relative paths: each prefix once, in order, with the index of its parent prefix (-1 for none). */
const walks = new WeakMap<readonly string[], { rel: string; parent: number }[]>();
function walkOf(rels: readonly string[]): { rel: string; parent: number }[] {
  let w = walks.get(rels);
  if (w) return w;
  w = [];
  const index = new Map<string, number>();
  for (const rel of rels) {
    let parent = -1;
    let prefix = '';
    for (const name of rel.split('/')) {
      prefix = prefix ? `${prefix}/${name}` : name;
      let i = index.get(prefix);
      if (i === undefined) {
        index.set(prefix, (i = w.length));
        w.push({ rel: prefix, parent });
      }
      parent = i;
    }
  }
  walks.set(rels, w);
  return w;
}

/**
 * The first path, walking each of `rels` (plain relative paths) down from `base`
 * one name at a time, that is a symbolic link; null when none is. A name that
 * does not exist ends that walk (nothing below it exists either). fleet-git
 * checks this before it writes, creates or removes anything under `base`.
 * `known`: what reads made anyway already tell of some of these paths (one lstat less each).
 * `absentTo` gets each path found not to exist, as null (no file: see View).
 * (The walk of a list is worked out once: pass the same array each time.)
 */
export function firstLink(base: string, rels: readonly string[], known?: LinkFacts, absentTo?: Map<string, string | null>): string | null {
  const walk = walkOf(rels);
  const absent: boolean[] = [];
  for (let i = 0; i < walk.length; i++) {
    const { rel, parent } = walk[i];
    if (parent >= 0 && absent[parent]) {
      absent[i] = true;
      continue;
    }
    const p = within(base, rel);
    let link = known?.get(p);
    if (link === undefined) {
      const st = lstatIfPresent(p);
      link = st === undefined ? null : st.isSymbolicLink();
    }
    if (link) return p;
    if (link === null) {
      absent[i] = true;
      absentTo?.set(p, null);
    }
  }
  return null;
}

// The readers: three, by what the caller does with the file. Each reads the
// whole file, with no size limit, returns null when the path does not exist or
// a name on it is not a folder (ENOENT, ENOTDIR), and throws any other error
// (EACCES, EISDIR, EIO, ...). Pick:
//   readText   the text of a file (UTF-8): the default, for any file, present or not
//   readSmall  the bytes of a file read in every repository of a scan that is usually
//              there and small (a config, a hook file, info/exclude), as a view of one
//              reused buffer: compare them (sameText, textOf) or decode them at once
//   readBytes  the bytes in a buffer of its own, to keep or compare later

/**
 * The file's UTF-8 text, or null when it does not exist (ENOENT, ENOTDIR); other errors throw. A stat
 * first (isPresent), which makes no error for a missing file: a scan asks for many files that most
 * repositories do not have (commondir, a displaced hook), and an ENOENT error costs more than the stat.
 */
export function readText(path: string): string | null {
  if (!isPresent(path)) return null;
  const b = readBytes(path);
  return b === null ? null : b.toString('utf8');
}

/** The file's bytes in a buffer of its own, or null when it does not exist (ENOENT, ENOTDIR). Other errors throw. */
export function readBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (e) {
    if (isCode(e, 'ENOENT') || isCode(e, 'ENOTDIR')) return null;
    throw e;
  }
}

/** A read buffer for small files, made on first use and reused: reading thousands of them allocates nothing per file (and a process that reads none, the hook client, makes none). */
let small: Buffer | undefined;
const SMALL = 64 * 1024;

/** What readSmall gives for a path that is itself a symbolic link, when asked not to follow one. */
export const LINK = Symbol('symbolic link');

/**
 * The bytes of a file that is usually there and small (info/exclude, a hook file, a git config), read
 * in every repository of a scan: one open, one read into a reused 64 KiB buffer and one close, so the
 * bytes are a view of that buffer, good until the next call (compare or decode them at once); a larger
 * file is then read again whole into a buffer of its own, so there is no size limit. With `noFollow`,
 * LINK when the path itself is a symbolic link (O_NOFOLLOW: the open tells, no lstat needed).
 */
export function readSmall(path: string): Buffer | null;
export function readSmall(path: string, noFollow: boolean): Buffer | null | typeof LINK;
export function readSmall(path: string, noFollow = false): Buffer | null | typeof LINK {
  let fd: number;
  try {
    fd = openSync(path, noFollow ? constants.O_RDONLY | constants.O_NOFOLLOW : constants.O_RDONLY);
  } catch (e) {
    if (isCode(e, 'ENOENT') || isCode(e, 'ENOTDIR')) return null;
    if (noFollow && isCode(e, 'ELOOP')) return LINK;
    throw e;
  }
  try {
    const buf = (small ??= Buffer.allocUnsafe(SMALL));
    const n = readSync(fd, buf, 0, SMALL, 0);
    if (n < SMALL) return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
  return readBytes(path);
}

/** The bytes of the texts sameText was last asked about. */
const encoded = new Map<string, Buffer>();

/** Whether bytes (a view readSmall gave) are exactly `text` in UTF-8, without decoding them. */
export function sameText(bytes: Buffer, text: string): boolean {
  let b = encoded.get(text);
  if (b === undefined) {
    if (encoded.size >= 4) encoded.clear();
    encoded.set(text, (b = Buffer.from(text, 'utf8')));
  }
  return bytes.equals(b);
}

/** Bytes as text: `expected` itself when they are its bytes (the common case, compared without decoding), else decoded. */
export function textOf(bytes: Buffer, expected?: string): string {
  return expected !== undefined && sameText(bytes, expected) ? expected : bytes.toString('utf8');
}

/**
 * Writes all of `bytes` at the file's offset, or throws: a short write (a full
 * disk writes what fits, then fails) is never taken for a whole one.
 */
export function writeAll(fd: number, bytes: Buffer): void {
  for (let off = 0; off < bytes.length;) {
    const n = writeSync(fd, bytes, off, bytes.length - off);
    if (n <= 0) throw Object.assign(new Error(`wrote ${off} of ${bytes.length} bytes`), { code: 'EIO' });
    off += n;
  }
}

/** open() flags that never follow a symbolic link at the final component: such a name fails with ELOOP. */
const NOFOLLOW = constants.O_NOFOLLOW;
/** The temporary file's flags: made here and now (O_EXCL: never an existing file, nor a link of that name), never through a link. */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

/**
 * Appends `text` to a file (made when missing), whole or not at all: an append
 * that fails is cut back to the file's length before it, and a file it made is
 * removed. Never through a symbolic link (O_NOFOLLOW: refused, ELOOP). With
 * `create`, the file must not exist yet (O_EXCL: neither a file nor a link of that name).
 */
export function appendWhole(path: string, text: string, create = false): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | (create ? constants.O_EXCL : 0), 0o644);
  } catch (e) {
    throw isCode(e, 'ELOOP') || (isCode(e, 'EEXIST') && isLink(path)) ? linkRefused(path) : writeFailure(e, path);
  }
  let size = -1;
  try {
    size = fstatSync(fd).size;
    writeAll(fd, Buffer.from(text, 'utf8'));
  } catch (e) {
    if (size > 0) ftruncateSync(fd, size);
    else if (size === 0)
      try {
        unlinkSync(path);
      } catch {
        /* gone */
      }
    throw writeFailure(e, path);
  } finally {
    closeSync(fd);
  }
}

/** writeAtomic's `verify`: read the temporary file back and compare before renaming it into place (for the few files every hook runs). */
export const VERIFY = true;

/** The error for a symbolic link where fleet-git was about to write: code ELOOP, as open(O_NOFOLLOW) gives it. */
function linkRefused(path: string): Error {
  const e = Object.assign(new Error(`could not write ${path}: it is a symbolic link, and fleet-git never writes through one`), {
    code: 'ELOOP',
  });
  REFUSED.add(e);
  return e;
}
/** linkRefused's errors, which writeFailure passes on as they are. */
const REFUSED = new WeakSet<Error>();

/**
 * A file's bytes and mode, opened without following a symbolic link at `path`
 * (ELOOP for one, refused); null when there is no file.
 */
function readNoFollow(path: string): { bytes: Buffer; mode: number } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
  } catch (e) {
    if (isCode(e, 'ENOENT') || isCode(e, 'ENOTDIR')) return null;
    throw isCode(e, 'ELOOP') ? linkRefused(path) : writeFailure(e, path);
  }
  try {
    return { bytes: readFileSync(fd), mode: fstatSync(fd).mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}

/**
 * The mode of the file at `path`, by lstat: a symbolic link there is refused
 * (fleet-git replaces the file, never a link of the user's).
 */
function modeNoFollow(path: string): number | undefined {
  const st = lstatSync(path, NO_ENTRY_OK); // gone since the caller read it: made anew
  if (st?.isSymbolicLink()) throw linkRefused(path);
  return st && st.mode & 0o7777;
}

/**
 * Writes `data` to `path` atomically. The file keeps the mode of the file it
 * replaces; a new file gets `mode` (default 0644, less the umask). With
 * `verify`, the temporary file is read back and compared before the rename.
 * Returns false, without touching the file, when it already holds exactly `data`.
 * A symbolic link at `path` is never written through nor replaced: it is
 * refused (ELOOP), by an open with O_NOFOLLOW or an lstat just before the
 * rename (which itself never follows one). The temporary file is made with
 * O_EXCL and O_NOFOLLOW.
 * With `create`, the file must not exist: it is put in place by link(2),
 * which fails (EEXIST) on anything there, a link included, so that a name
 * that appeared after the caller looked is never replaced.
 */
export function writeAtomic(
  path: string,
  data: string | Buffer,
  mode?: number,
  current?: string | null,
  verify = false,
  create = false,
): boolean {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  // `current`: the file's text as the caller has just read it (null: no file), so as not to read it again.
  let old: Buffer | null;
  let oldMode: number | undefined;
  if (current === undefined) {
    const now = readNoFollow(path);
    old = now && now.bytes;
    oldMode = now?.mode;
  } else old = current === null ? null : Buffer.from(current, 'utf8');
  if (old !== null && oldMode === undefined) oldMode = modeNoFollow(path);
  if (old !== null && old.equals(bytes) && (mode === undefined || oldMode === mode)) return false;
  const keepMode: number | undefined = mode ?? (old !== null ? oldMode : undefined);
  const tmp = join(dirname(path), `.${basename(path)}.fleet-git-${process.pid}-${Date.now().toString(36)}.tmp`); // TEMP_NAME
  let fd: number;
  try {
    fd = openSync(tmp, TEMP_FLAGS, keepMode ?? 0o644);
  } catch (e) {
    throw writeFailure(e, path);
  }
  try {
    try {
      // No fsync, as git does not for such files by default: the rename keeps a
      // failure of fleet-git itself from leaving half a file, and a bulk run
      // over thousands of repositories stays fast.
      writeAll(fd, bytes);
      // open() gave the file keepMode less the umask: set it only when that differs (on the descriptor: never through a name).
      if (keepMode !== undefined && (keepMode & ~umask() & 0o777) !== keepMode) fchmodSync(fd, keepMode);
    } finally {
      closeSync(fd);
    }
    if (verify && !readFileSync(tmp).equals(bytes)) throw Object.assign(new Error(`${tmp} did not read back as written`), { code: 'EIO' });
    if (create) createFrom(tmp, path);
    else {
      if (isLink(path)) throw linkRefused(path); // a last look: rename would replace a link put there meanwhile
      renameSync(tmp, path);
    }
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw writeFailure(e, path);
  }
  return true;
}

/**
 * Puts the finished file `tmp` in place at `path`, which must not exist:
 * link(2) fails on any name there (a symbolic link included), where rename
 * would replace it. A file system without hard links gets a rename after a
 * last look.
 */
function createFrom(tmp: string, path: string): void {
  try {
    linkSync(tmp, path);
  } catch (e) {
    if (isCode(e, 'EEXIST') || lstatSync(path, NO_ENTRY_OK) !== undefined) throw isLink(path) ? linkRefused(path) : e;
    renameSync(tmp, path);
    return;
  }
  unlinkSync(tmp);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * fleet-git's temporary files: `.NAME.fleet-git-PID-TIME.tmp` (writeAtomic) and
 * `NAME.fleet-git-PID.tmp` (the git hook). A process killed between making one
 * and renaming it leaves it behind; the next fleet-git that changes the folder
 * removes it (removeStaleTemps).
 */
const TEMP_NAME = /^\.?[^/]+\.fleet-git-(\d+)(?:-[0-9a-z]+)?\.tmp$/;
/** No write of fleet-git's takes this long: a temporary file this old is stale whatever its PID says (PIDs are reused). */
const TEMP_STALE_MS = 60_000;

/** Whether process `pid` is alive: anything but "no such process" counts as alive (EPERM: another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return !isCode(e, 'ESRCH');
  }
}

/**
 * Removes fleet-git's temporary files in `dir` whose process is gone, or that
 * are older than a minute; any other file, a folder or a link of that name is
 * left. Returns the paths removed. One readdir, nothing more when there is none.
 */
export function removeStaleTemps(dir: string): string[] {
  return staleTemps(dir).filter((path) => {
    try {
      unlinkSync(path);
      return true;
    } catch {
      return false; // gone meanwhile, or not ours to remove
    }
  });
}

/** The temporary files of fleet-git in `dir` that removeStaleTemps removes (it only reads); `names`: the folder's listing, when made already. */
export function staleTemps(dir: string, names?: readonly string[]): string[] {
  if (names === undefined) {
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
  }
  const stale: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.tmp')) continue;
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const path = within(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isFile()) continue;
      if (isAlive(Number(m[1])) && Number(m[1]) !== process.pid && Date.now() - st.mtimeMs < TEMP_STALE_MS) continue;
      stale.push(path);
    } catch {
      /* gone meanwhile */
    }
  }
  return stale;
}

/**
 * Writes `data` to a file that holds `current`, as the caller has just read it
 * (null: no file). When `data` only adds to the end of `current`, or only cuts
 * its end off, and the file is still `current`'s size, the file is changed in
 * place with one append or one truncation: no new file (on some disks creating
 * one costs a third of a millisecond), and no byte that stays is written again;
 * a failed append is cut back off. Otherwise writeAtomic.
 */
export function writeInPlace(path: string, data: string, current: string | null): boolean {
  const grows = current !== null && data.length > current.length && data.startsWith(current);
  const shrinks = current !== null && data.length < current.length && current.startsWith(data);
  if (!grows && !shrinks) return writeAtomic(path, data, undefined, current);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | NOFOLLOW);
  } catch (e) {
    if (isCode(e, 'ELOOP')) throw linkRefused(path);
    if (!isCode(e, 'ENOENT')) throw writeFailure(e, path);
    return writeAtomic(path, data, undefined, null, false, true); // gone since it was read: made anew, never over a name that appeared
  }
  try {
    const size = fstatSync(fd).size;
    if (size === Buffer.byteLength(current!)) {
      if (shrinks) {
        ftruncateSync(fd, Buffer.byteLength(data));
        return true;
      }
      try {
        writeAll(fd, Buffer.from(data.slice(current!.length), 'utf8'));
      } catch (e) {
        ftruncateSync(fd, size);
        throw writeFailure(e, path);
      }
      return true;
    }
  } finally {
    closeSync(fd);
  }
  return writeAtomic(path, data, undefined, current); // changed since it was read: written whole
}

/** Removes a folder if it is empty: 'removed', 'gone' (there was none), or 'kept' (not empty, or it could not be read or removed). */
export function removeIfEmpty(path: string): 'removed' | 'gone' | 'kept' {
  try {
    if (readdirSync(path).length > 0) return 'kept';
    rmdirSync(path);
    return 'removed';
  } catch (e) {
    return isCode(e, 'ENOENT') ? 'gone' : 'kept';
  }
}

let umaskValue: number | undefined;
/** The process's umask, read once (fleet-git never changes it). */
function umask(): number {
  return (umaskValue ??= process.umask());
}

/** A short human reason for a file-system error: `permission denied (EACCES)`. */
export function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const words: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOENT: 'does not exist',
    ENOTDIR: 'not a folder',
    ELOOP: 'too many levels of symbolic links',
    EIO: 'input/output error',
    ENOSPC: 'no space left on the disk',
    EDQUOT: 'disk quota exceeded',
    EROFS: 'read-only file system',
    EEXIST: 'already exists',
    EMFILE: 'too many open files',
    ENAMETOOLONG: 'name too long',
  };
  if (code && words[code]) return `${words[code]} (${code})`;
  if (code) return `${e.message ?? 'error'} (${code})`.replace(/^[A-Z]+: /, '');
  return String((e as Error)?.message ?? err);
}

/** An error of writing `path`, in one line that says where: `could not write PATH: no space left on the disk (ENOSPC)`; the code is kept. */
export function writeFailure(e: unknown, path: string): Error {
  if (REFUSED.has(e as Error)) return e as Error; // says it already
  const code = (e as NodeJS.ErrnoException)?.code;
  return Object.assign(new Error(`could not write ${path}: ${describeError(e)}`), { code });
}

export function isCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;
}

/** Removes `from` and each folder above it up to `top` (included) while they are empty: folders fleet-git made. */
export function removeEmptyUpTo(from: string, top: string): void {
  for (let d = from; isUnder(d, top); d = dirname(d)) if (removeIfEmpty(d) === 'kept' || d === dirname(d)) return;
}
