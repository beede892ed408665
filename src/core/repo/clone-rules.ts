// The config's include/exclude globs: which new clones setup's post-checkout
// hook provisions (core/setup/checkout-hook.ts asks isCloneIncluded).
//
// One dialect with --include/--exclude/--ignore: a glob means what picomatch
// (with `dot`) means, matched against the clone's absolute, physical path
// (symbolic links resolved), and
//   - `~` alone or a leading `~/` is the home folder (its characters taken literally);
//   - the glob's leading folder names without a glob character are read as the
//     clone's path is, physically: a glob through a symbolic link (/tmp/work on a
//     Mac, where /tmp is /private/tmp; a home folder reached through one) decides
//     as the same glob with the real path;
//   - spaces around it and a trailing `/` are ignored, as for --include;
//   - a glob covers the folder it matches and everything below it: a clone is
//     matched when picomatch matches its path or the path of a folder above it;
//   - it starts with `/`, `~`, `~/` or `**` (checkCloneGlob refuses the rest when
//     the config is read).
// A clone is provisioned when include is absent or one include glob matches,
// and no exclude glob matches.
import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { loadPicomatch } from '../../glob.js';

/** What the rules are made of: the config file's include and exclude (user-config.ts reads them). */
export interface CloneRules {
  /** Globs on a new clone's absolute path; null: every clone. */
  include: string[] | null;
  /** Globs on a new clone's absolute path that are never provisioned. */
  exclude: string[];
}

/** A glob as --include takes it: trimmed, without a trailing `/`. */
function normalized(glob: string): string {
  const g = glob.trim();
  return g.length > 1 ? g.replace(/\/+$/, '') : g;
}

/** What is wrong with a clone glob, or null: it must name an absolute path (it is matched against the clone's). */
export function checkCloneGlob(glob: string): string | null {
  const g = normalized(glob);
  if (/[\x00-\x1f\x7f]/.test(g)) return 'control characters are not allowed';
  if (g !== '~' && !g.startsWith('~/') && !g.startsWith('/') && g !== '**' && !g.startsWith('**/'))
    return "a glob must start with '/', '~/' or '**/' (it is matched against the clone's absolute path)";
  return null;
}

/** `path` (absolute) with symbolic links resolved as far as it exists: the longest existing part physical, the rest as it is. */
function physicalPath(path: string): string {
  let tail = '';
  for (let p = path; ;) {
    try {
      const real = realpathSync(p);
      return tail === '' ? real : `${real === '/' ? '' : real}${tail}`;
    } catch {
      /* not there (yet), or not readable: the folder above */
    }
    const up = dirname(p);
    if (up === p) return path;
    tail = `/${basename(p)}${tail}`;
    p = up;
  }
}

/**
 * The glob's literal beginning as the hook sees paths: `~` (the home folder,
 * its characters literal) and the folder names after it or after the leading
 * `/` that hold no glob character, physical (physicalPath); `rest`, the glob
 * after them. null for a glob starting with `**`.
 */
function physicalHead(g: string, home: string): { head: string; rest: string } | null {
  const tilde = g === '~' || g.startsWith('~/');
  if (!tilde && !g.startsWith('/')) return null;
  const names = (tilde ? g.slice(2) : g.slice(1)).split('/').filter((n, i) => n !== '' || i > 0);
  let n = 0;
  while (n < names.length && !/[*[\]{}]/.test(names[n]!)) n++;
  const start = tilde ? home : '';
  const literal = `${start === '/' ? '' : start}/${names.slice(0, n).join('/')}`;
  return { head: physicalPath(literal.length > 1 ? literal.replace(/\/+$/, '') : literal), rest: names.slice(n).join('/') };
}

/**
 * Whether the glob covers `path` (absolute, physical): picomatch matches it,
 * its literal beginning made physical (physicalHead), or a folder above it.
 * picomatch also takes a path equal to the glob's own text as a match (`/a[x]`
 * matches the folder named `/a[x]`), `~` expanded.
 */
export function cloneGlobMatches(glob: string, path: string, home: string): boolean {
  const g = normalized(glob);
  const lit = physicalHead(g, home);
  // `escape`: the physical beginning's glob characters made literal for picomatch.
  const expanded = (escape: boolean) => {
    if (!lit) return g;
    const h = escape ? lit.head.replace(/[\\*?[\]{}()!+@|^$,"]/g, '\\$&') : lit.head;
    return lit.rest === '' ? h : `${h === '/' ? '' : h}/${lit.rest}`;
  };
  const m = loadPicomatch()(expanded(true), { dot: true });
  const text = expanded(false);
  const covers = (p: string) => m(p) || p === text;
  if (covers('/')) return true;
  for (let i = path.indexOf('/', 1); ; i = path.indexOf('/', i + 1)) {
    if (covers(i < 0 ? path : path.slice(0, i))) return true;
    if (i < 0) return false;
  }
}

/** Line breaks, which picomatch's `**` and a leading `*` do not match (its `.`). */
const LINE_BREAKS = ['\n', '\r', '\u2028', '\u2029'];

/**
 * Whether a new clone at `path` (absolute, physical) is provisioned under this
 * config. A path holding a line break is provisioned only when the config has
 * neither include nor exclude.
 */
export function isCloneIncluded(c: CloneRules, path: string, home: string): boolean {
  if ((c.include !== null || c.exclude.length) && LINE_BREAKS.some((b) => path.includes(b))) return false;
  const m = (globs: string[]) => globs.some((g) => cloneGlobMatches(g, path, home));
  return (c.include === null || m(c.include)) && !m(c.exclude);
}
