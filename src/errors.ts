// What the user asked for or gave cannot be used: a missing folder, not a
// repository, an invalid config file or models.json, an unknown profile. Every
// command prints such an error as one line and exits 2 (commands/base.ts); the
// modules that find them throw a subclass, whatever their layer.
export class UsageError extends Error {}

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
