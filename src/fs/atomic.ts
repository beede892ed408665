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
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isCode, linkRefused, writeFailure } from '../errors.js';
import { isUnder } from '../paths.js';
import { isLink } from './links.js';
import { isAlive } from './process.js';
import { NO_ENTRY_OK, within } from './read.js';

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

/** How writeAtomic writes; every field may be left out. */
export interface WriteOptions {
  /** The file's mode, set even on a file that has another (default: the mode of the file it replaces; a new file's 0644, less the umask). */
  mode?: number;
  /** The file's text as the caller has just read it (null: no file), so that it is not read again. */
  current?: string | null;
  /** Read the temporary file back and compare it before the rename (for the few files every hook runs). */
  verify?: boolean;
  /** The file must not exist: it is put in place by link(2), never over a name that appeared after the caller looked. */
  create?: boolean;
}

/**
 * Writes `data` to `path` atomically (options: WriteOptions). Returns false,
 * without touching the file, when it already holds exactly `data` (and the
 * mode asked, if any). A symbolic link at `path` is never written through nor
 * replaced: it is refused (ELOOP), by an open with O_NOFOLLOW or an lstat just
 * before the rename (which itself never follows one). The temporary file is
 * made with O_EXCL and O_NOFOLLOW. With `create`, link(2) fails (EEXIST) on
 * anything at `path`, a link included.
 */
export function writeAtomic(
  path: string,
  data: string | Buffer,
  { mode, current, verify = false, create = false }: WriteOptions = {},
): boolean {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
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

/**
 * fleet-git's temporary files: `.NAME.fleet-git-PID-TIME.tmp` (writeAtomic) and
 * `NAME.fleet-git-PID.tmp` (the git hook). A process killed between making one
 * and renaming it leaves it behind; the next fleet-git that changes the folder
 * removes it (removeStaleTemps).
 */
const TEMP_NAME = /^\.?[^/]+\.fleet-git-(\d+)(?:-[0-9a-z]+)?\.tmp$/;
/** No write of fleet-git's takes this long: a temporary file this old is stale whatever its PID says (PIDs are reused). */
const TEMP_STALE_MS = 60_000;

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
  if (!grows && !shrinks) return writeAtomic(path, data, { current });
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | NOFOLLOW);
  } catch (e) {
    if (isCode(e, 'ELOOP')) throw linkRefused(path);
    if (!isCode(e, 'ENOENT')) throw writeFailure(e, path);
    return writeAtomic(path, data, { current: null, create: true }); // gone since it was read: made anew, never over a name that appeared
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
  return writeAtomic(path, data, { current }); // changed since it was read: written whole
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

/** Removes `from` and each folder above it up to `top` (included) while they are empty: folders fleet-git made. */
export function removeEmptyUpTo(from: string, top: string): void {
  for (let d = from; isUnder(d, top); d = dirname(d)) if (removeIfEmpty(d) === 'kept' || d === dirname(d)) return;
}
