// Reading files and folders: paths that may not exist, and the few small files
// a scan reads in every repository.
import { closeSync, constants, lstatSync, openSync, readFileSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isCode } from '../errors.js';

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

/** The path with symbolic links resolved (realpath); as it is when that fails (not there, not readable). */
export function physical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** lstat without an error for a path that is not there (or under a file): undefined. */
export function lstatIfPresent(path: string): Stats | undefined {
  try {
    return lstatSync(path, NO_ENTRY_OK);
  } catch {
    return undefined; // a file where a folder is named (ENOTDIR): nothing below it
  }
}

// The readers: three, by what the caller does with the file. Each reads the
// whole file, with no size limit, returns null when the path does not exist or
// a name on it is not a folder (ENOENT, ENOTDIR), and throws any other error
// (EACCES, EISDIR, EIO, ...). Each opens it with O_NONBLOCK: a FIFO put in a
// file's place reads as empty instead of holding the command (a git hook's, a
// checkout's) until something writes to it; a file reads the same either way. Pick:
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

/** How the readers open a file (see above). */
const READ = constants.O_RDONLY | constants.O_NONBLOCK;

/** The file's bytes in a buffer of its own, or null when it does not exist (ENOENT, ENOTDIR). Other errors throw. */
export function readBytes(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch (e) {
    if (isCode(e, 'ENOENT') || isCode(e, 'ENOTDIR')) return null;
    throw e;
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
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
    fd = openSync(path, noFollow ? READ | constants.O_NOFOLLOW : READ);
  } catch (e) {
    if (isCode(e, 'ENOENT') || isCode(e, 'ENOTDIR')) return null;
    if (noFollow && isCode(e, 'ELOOP')) return LINK;
    throw e;
  }
  try {
    const buf = (small ??= Buffer.allocUnsafe(SMALL));
    const n = readSync(fd, buf, 0, SMALL, null);
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
