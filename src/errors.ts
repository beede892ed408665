import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
// What the user asked for or gave cannot be used: a missing folder, not a
// repository, an invalid config file or models.json, an unknown profile. Every
// command prints such an error as one line and exits 2 (commands/base.ts); the
// modules that find them throw a subclass, whatever their layer.
export class UsageError extends Error {}

/** The first folder on the way to `path` that cannot be entered (EACCES), or null. */
function closedAbove(path: string): string | null {
  const parts = resolve(path).split('/').filter(Boolean);
  for (let i = 0, p = ''; i < parts.length; i++) {
    p = `${p}/${parts[i]}`;
    try {
      accessSync(p, constants.X_OK);
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EACCES' ? p : null;
    }
  }
  return null;
}

/**
 * Why a path named on the command line cannot be reached, for an EACCES on it: the folder
 * above it that cannot be entered, named as such (not "no such folder"), and what to do.
 */
export function unreachableReason(path: string): string {
  const blocked = closedAbove(path);
  return blocked
    ? `cannot enter ${blocked}: permission denied; fleet-git needs to enter every folder above it (ls -ld ${blocked})`
    : 'permission denied: check the permissions of the folders above it';
}

const ACTS: Record<string, [verb: string, needs: 'write-parent' | 'reach']> = {
  mkdir: ['create the folder', 'write-parent'],
  rename: ['replace', 'write-parent'],
  unlink: ['remove', 'write-parent'],
  rmdir: ['remove the folder', 'write-parent'],
  symlink: ['create', 'write-parent'],
  link: ['create', 'write-parent'],
  copyfile: ['write', 'write-parent'],
  open: ['open', 'reach'],
  scandir: ['list the folder', 'reach'],
  stat: ['reach', 'reach'],
  lstat: ['reach', 'reach'],
  realpath: ['reach', 'reach'],
  access: ['reach', 'reach'],
  chmod: ['change the mode of', 'reach'],
  utime: ['touch', 'reach'],
  write: ['write', 'reach'],
};

/**
 * A file-system error the user can cause with permissions (EACCES, EPERM, EROFS),
 * or a folder that cannot be made under a file, as one line saying what could
 * not be done and what to check; null for any other error.
 */
export function permissionLine(err: unknown): string | null {
  const e = err as NodeJS.ErrnoException;
  const blocked = e?.syscall === 'mkdir' && typeof e.path === 'string' ? blockedMkdir(e) : null;
  if (blocked) return blocked;
  if (!e || (e.code !== 'EACCES' && e.code !== 'EPERM' && e.code !== 'EROFS') || typeof e.path !== 'string') return null;
  const [verb, needs] = ACTS[e.syscall ?? ''] ?? [e.syscall ?? 'use', 'reach'];
  const folder = e.path.slice(0, Math.max(1, e.path.lastIndexOf('/')));
  if (e.code === 'EROFS') return `cannot ${verb} ${e.path}: the file system is read-only`;
  const fix =
    needs === 'write-parent'
      ? `${folder} must be writable by you (see ls -ld ${folder}; fix its owner or mode, or run as its owner)`
      : `check that you can read it and enter every folder above it (ls -ld ${folder}), or run as its owner`;
  return `cannot ${verb} ${e.path}: ${describeError(e)}; ${fix}`;
}

/**
 * Any error as one line in words: a permission error as permissionLine says it, another
 * system error as `cannot VERB PATH: reason` (never Node's `ENOENT: no such file or
 * directory, open '...'`), any other error by its message.
 */
export function errorLine(err: unknown): string {
  const line = permissionLine(err);
  if (line) return line;
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string') {
    const [verb] = ACTS[e.syscall] ?? [e.syscall];
    return `cannot ${verb} ${e.path}: ${describeError(e)}`;
  }
  if (typeof e?.code === 'string' && e.message?.startsWith(`${e.code}: `)) return describeError(e);
  return e instanceof Error ? e.message : String(err);
}

/**
 * A folder made with all the folders above it (mkdir's recursive option) that
 * failed because of what is above it: the deepest path there is cannot be
 * written (EACCES, or ENOENT on some Node versions), or is a file (ENOTDIR).
 * Says which folder could not be made and what is in the way, which the
 * error's own path does not say. Null otherwise.
 */
function blockedMkdir(e: NodeJS.ErrnoException): string | null {
  if (e.code !== 'EACCES' && e.code !== 'ENOENT' && e.code !== 'ENOTDIR') return null;
  let missing = resolve(e.path!);
  while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
  const above = dirname(missing);
  if (!statSync(above, { throwIfNoEntry: false })?.isDirectory())
    return `cannot create the folder ${missing}: ${above} is a file, not a folder; move it aside, or set the variable that points there (XDG_DATA_HOME, XDG_CONFIG_HOME, COPILOT_HOME) to a folder`;
  try {
    accessSync(above, constants.W_OK | constants.X_OK);
    return null; // writable: not what stopped it
  } catch {
    return `cannot create the folder ${missing}: permission denied; ${above} must be writable by you (see ls -ld ${above}; fix its owner or mode, or run as its owner)`;
  }
}

/** For a file that could not be read: why, in words, and for a permission error what to check. */
export function unreadableReason(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'EACCES' || code === 'EPERM'
    ? `cannot be read: ${describeError(err)}; check that you can read it and enter every folder above it (ls -ld ${dirname(file)} ${file})`
    : `cannot be read: ${describeError(err)}`;
}

// File-system errors in words: what could not be written and why, in one line.

/** The error for a symbolic link where fleet-git was about to write: code ELOOP, as open(O_NOFOLLOW) gives it. */
export function linkRefused(path: string): Error {
  const e = Object.assign(new Error(`could not write ${path}: it is a symbolic link, and fleet-git never writes through one`), {
    code: 'ELOOP',
  });
  REFUSED.add(e);
  return e;
}
/** linkRefused's errors, which writeFailure passes on as they are. */
const REFUSED = new WeakSet<Error>();

/**
 * A short human reason for a file-system error, in words and without its code: `permission denied`.
 * A code not listed here is said in the system's words that Node puts in the message
 * (`EXDEV: cross-device link not permitted, rename ...` gives `cross-device link not permitted`).
 */
export function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const words: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOENT: 'does not exist',
    ENOTDIR: 'not a folder',
    EISDIR: 'is a folder, not a file',
    ELOOP: 'too many levels of symbolic links',
    EIO: 'input/output error',
    ENOSPC: 'no space left on the disk',
    EDQUOT: 'disk quota exceeded',
    EROFS: 'read-only file system',
    EEXIST: 'already exists',
    EMFILE: 'too many open files',
    ENAMETOOLONG: 'name too long',
  };
  if (code && words[code]) return words[code];
  const message = String((e as Error)?.message ?? err);
  if (code && message.startsWith(`${code}: `)) return message.slice(code.length + 2).replace(/, [a-z]+(?: '.*)?$/, '');
  return message;
}

/** An error of writing `path`, in one line that says where: `could not write PATH: no space left on the disk`; the error's code is kept on it. */
export function writeFailure(e: unknown, path: string): Error {
  if (REFUSED.has(e as Error)) return e as Error; // says it already
  const code = (e as NodeJS.ErrnoException)?.code;
  return Object.assign(new Error(`could not write ${path}: ${describeError(e)}`), { code });
}

/** Whether `e` is an error with this code (`ENOENT`, ...). */
export function isCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;
}
