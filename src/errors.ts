import { accessSync, constants } from 'node:fs';
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
    ? `cannot enter ${blocked}: permission denied (EACCES); fleet-git needs to enter every folder above it (ls -ld ${blocked})`
    : 'permission denied (EACCES): check the permissions of the folders above it';
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
 * as one line saying what could not be done and what to check; null for any other error.
 */
export function permissionLine(err: unknown): string | null {
  const e = err as NodeJS.ErrnoException;
  if (!e || (e.code !== 'EACCES' && e.code !== 'EPERM' && e.code !== 'EROFS') || typeof e.path !== 'string') return null;
  const [verb, needs] = ACTS[e.syscall ?? ''] ?? [e.syscall ?? 'use', 'reach'];
  const folder = e.path.slice(0, Math.max(1, e.path.lastIndexOf('/')));
  if (e.code === 'EROFS') return `cannot ${verb} ${e.path}: the file system is read-only (EROFS)`;
  const fix =
    needs === 'write-parent'
      ? `${folder} must be writable by you (see ls -ld ${folder}; fix its owner or mode, or run as its owner)`
      : `check that you can read it and enter every folder above it (ls -ld ${folder}), or run as its owner`;
  return `cannot ${verb} ${e.path}: permission denied (${e.code}); ${fix}`;
}

/** For a file that could not be read: its error code, and for a permission error what to check. */
export function unreadableReason(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code ?? 'error';
  return code === 'EACCES' || code === 'EPERM'
    ? `cannot be read (${code}): check that you can read it and enter every folder above it (ls -ld ${dirname(file)} ${file})`
    : `cannot be read (${code})`;
}
