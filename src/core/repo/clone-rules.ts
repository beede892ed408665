// The config's include/exclude globs, compiled into a small sh file that the
// template's post-checkout hook sources on every clone, so that deciding
// whether to provision a clone never starts Node.
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
//     matched when picomatch matches its path or the path of a folder above it.
// The part of picomatch's dialect the hook matches exactly (checkCloneGlob
// rejects the rest when the config is read, so nothing is approximated):
//   - a glob starts with `/`, `~`, `~/` or `**` (it is matched against an absolute path);
//   - `*` matches any run of characters within one folder name, never `/`;
//   - `**` as a whole folder name matches any number of folders, none included
//     (elsewhere, `**` is `*`);
//   - `[abc]`, `[a-z]` match one character of a class of letters, digits, `.`, `_`, `-`;
//   - `{a,b*}` matches one of its alternatives (each without `/`, `{`, `**`);
//   - every other character is itself, but `?`, `\`, `"`, `(`, `)`, `|`, a negated class,
//     a `+` after `]` or `}`, a name starting with `**{`, and a `.`, `..` or empty
//     folder name are refused (picomatch gives them meanings of its own);
//   - picomatch's own rules hold: a path equal to the glob's text matches it, and
//     `**` takes at least one folder name right after the leading `/` (`/**/a`
//     does not match `/a`) and at the end after a name ending in `*`.
// `?` and `[!...]` are refused because picomatch counts UTF-16 units where the
// shell's `case` counts bytes: they would differ on a path with non-ASCII letters.
//
// The hook splits the path at `/` into the positional parameters and matches
// them folder name by folder name, each with one `case` pattern (where `*`
// cannot cross a `/`: there is none in a folder name), `**` by trying each
// number of folders in turn. test/clone-globs.test.ts runs the generated sh
// against picomatch on generated globs and paths.
// A clone is provisioned when include is absent or one include glob matches,
// and no exclude glob matches.
import { realpathSync, statSync, utimesSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeAtomic } from '../../fs/atomic.js';
import { readText } from '../../fs/read.js';
import { loadPicomatch } from '../../glob.js';
import { shQuote } from './templates.js';

/** What the rules are made of: the config file's include and exclude (user-config.ts reads them). */
export interface CloneRules {
  /** Globs on a new clone's absolute path; null: every clone. */
  include: string[] | null;
  /** Globs on a new clone's absolute path that are never provisioned. */
  exclude: string[];
}

export const RULES_FILE = 'clone-rules.sh';
/**
 * The dialect the rules file is compiled in: the hook takes a file of another
 * one (an older fleet-git's, where `*` crossed `/`) as stale and compiles it again.
 */
export const RULES_VERSION = '2';

/** One folder name's part of a glob: its alternatives, each a `case` pattern, or `**` and the fewest folder names it takes. */
type Segment = { globstar: 0 | 1 } | { alternatives: string[] };

/** At most this many alternatives in one folder name (braces multiply). */
const MAX_ALTERNATIVES = 256;

const CLASS = /^[A-Za-z0-9._-]+$/;

/** A glob as --include takes it: trimmed, without a trailing `/`. */
function normalized(glob: string): string {
  const g = glob.trim();
  return g.length > 1 ? g.replace(/\/+$/, '') : g;
}

/**
 * The `case` patterns of a piece of folder name without braces: one, or more
 * where picomatch has alternatives (a class of letters, digits and `_` also
 * matches its own text, `[ab]` the name `[ab]`: picomatch tries both).
 */
function atoms(s: string, fail: (what: string) => never): string[] {
  let alts = [''];
  let lit = '';
  const add = (...options: string[]) => {
    if (lit) alts = alts.map((a) => a + shQuote(lit));
    lit = '';
    alts = alts.flatMap((a) => options.map((o) => a + o));
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '*') {
      while (s[i + 1] === '*') i++;
      add('*');
    } else if (c === '[') {
      const end = s.indexOf(']', i + 1);
      if (end < 0) fail("a '[' without its ']'");
      const cls = s.slice(i + 1, end);
      if (cls.startsWith('!') || cls.startsWith('^')) fail('a negated class ([!...]) is not supported: list the characters it may be');
      if (!CLASS.test(cls)) fail('a [class] may hold only letters, digits, . _ - (ranges like a-z)');
      for (let j = 1; j + 1 < cls.length; j++)
        if (cls[j] === '-' && cls[j - 1] > cls[j + 1]) fail(`the range ${cls.slice(j - 1, j + 2)} is backwards`);
      if (/^[A-Za-z0-9_]+$/.test(cls)) add(`[${cls}]`, shQuote(`[${cls}]`));
      else add(`[${cls}]`);
      i = end;
    } else if (c === ']') fail("a ']' without its '['");
    else lit += c;
  }
  add('');
  return alts;
}

/** The alternatives of one folder name, braces expanded. */
function segmentAlternatives(seg: string, fail: (what: string) => never): string[] {
  let alts = [''];
  const times = (options: string[]) => {
    alts = alts.flatMap((x) => options.map((o) => x + o));
    if (alts.length > MAX_ALTERNATIVES) fail(`braces and classes make more than ${MAX_ALTERNATIVES} alternatives`);
  };
  let rest = seg;
  while (rest.length) {
    const open = rest.indexOf('{');
    const close = rest.indexOf('}');
    if (close >= 0 && (open < 0 || close < open)) fail("a '}' without its '{'");
    if (open < 0) {
      times(atoms(rest, fail));
      break;
    }
    times(atoms(rest.slice(0, open), fail));
    const end = rest.indexOf('}', open);
    if (end < 0) fail("a '{' without its '}' (an alternative may not hold '/')");
    const inner = rest.slice(open + 1, end);
    if (inner.includes('{')) fail('nested braces are not supported');
    if (inner.includes('..')) fail('ranges in braces ({1..3}) are not supported');
    if (!inner.includes(',')) fail('braces must hold alternatives separated by commas ({a,b})');
    const options = inner.split(',');
    if (options.some((o) => o === '')) fail('an alternative in braces is empty');
    if (options.some((o) => o.includes('**'))) fail("'**' inside braces is not supported");
    times(options.flatMap((o) => atoms(o, fail)));
    rest = rest.slice(end + 1);
  }
  return [...new Set(alts)];
}

class GlobError extends Error {}

/**
 * The glob as folder-name segments, `~` expanded to the physical home folder:
 * one list, or two where picomatch gives the glob a second reading. Throws GlobError.
 */
function compileGlob(glob: string, home: string): Segment[][] {
  const fail = (what: string): never => {
    throw new GlobError(what);
  };
  const g = normalized(glob);
  if (/[\x00-\x1f\x7f]/.test(g)) fail('control characters are not allowed');
  if (g.includes('\\')) fail('backslash escapes are not supported');
  if (g.includes('?')) fail("'?' is not supported: use * or a [class]");
  if (/[()|]/.test(g)) fail("'(', ')' and '|' are not supported: list each glob separately, or use {a,b}");
  if (g.includes('"')) fail('double quotes are not supported (picomatch takes them as quoting)');
  if (/[\]}]\+/.test(g)) fail("a '+' right after ']' or '}' is not supported (picomatch reads it as 'one or more')");
  if (/(^|\/)\*\*+\{/.test(g))
    fail("a folder name starting with '**{' is not supported (picomatch lets it cross '/'): write */{a,b} or *{a,b}");
  if (g !== '~' && !g.startsWith('~/') && !g.startsWith('/') && g !== '**' && !g.startsWith('**/'))
    fail("a glob must start with '/', '~/' or '**/' (it is matched against the clone's absolute path)");
  for (const s of (g.startsWith('~') ? g.slice(2) : g.startsWith('/') ? g.slice(1) : g).split('/')) {
    if (s === '' && g !== '~' && g !== '/') fail("an empty folder name ('//') matches no path");
    if (s === '.' || s === '..') fail(`a '${s}' folder name matches no physical path`);
  }
  let head: Segment[] = [];
  let rest = g;
  const lit = physicalHead(g, home);
  if (lit) {
    head = (lit.head === '/' ? [''] : lit.head.split('/')).map((s) => ({ alternatives: [s === '' ? "''" : shQuote(s)] }));
    rest = lit.rest;
  }
  const segs = rest === '' ? [] : rest.split('/');
  const out: Segment[] = head;
  let last = '';
  for (const s of segs) {
    if (s !== '**') out.push({ alternatives: segmentAlternatives(s, fail) });
    else if (!('globstar' in (out.at(-1) ?? {}))) out.push({ globstar: 0 }); // `**/**` is `**`, as picomatch reads it
    if (s !== '**') last = s;
  }
  // picomatch's exceptions, where `**` takes at least one folder name: right after the leading `/` with more after it
  // (`/**/a` does not match `/a`, where `/x/**/a` matches `/x/a`), and at the end after a name ending in `*`
  // (`/x/*/**` does not match `/x/b`, where `/x/b/**` matches `/x/b`).
  const [root, second] = out;
  if (second && 'globstar' in second && out.length > 2 && 'alternatives' in root && root.alternatives[0] === "''") second.globstar = 1;
  const end = out.at(-1)!;
  if (out.length > 2 && 'globstar' in end && last.endsWith('*')) end.globstar = 1;
  // And `X/**/*` (a last name that can be empty) also matches X itself: `**` taking none, then `*` nothing.
  const before = out.at(-2);
  if (out.length > 2 && before && 'globstar' in before && before.globstar === 0 && 'alternatives' in end && end.alternatives.includes('*'))
    return [out, out.slice(0, -2)];
  return [out];
}

/** What is wrong with a clone glob, or null when the hook matches it exactly. */
export function checkCloneGlob(g: string): string | null {
  try {
    compileGlob(g, '/');
    return null;
  } catch (e) {
    if (e instanceof GlobError) return e.message;
    throw e;
  }
}

/** The home folder as the hook sees paths: physical. */
export function physicalHome(home: string): string {
  try {
    return realpathSync(home);
  } catch {
    return home;
  }
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

const heads = new Map<string, { head: string; rest: string } | null>();

/**
 * The glob's literal beginning as the hook sees paths: `~` (the home folder,
 * its characters literal) and the folder names after it or after the leading
 * `/` that hold no glob character, physical (physicalPath); `rest`, the glob
 * after them. null for a glob starting with `**`. Read once per glob and home.
 */
function physicalHead(g: string, home: string): { head: string; rest: string } | null {
  const key = `${home}\0${g}`;
  if (heads.has(key)) return heads.get(key)!;
  let out: { head: string; rest: string } | null = null;
  const tilde = g === '~' || g.startsWith('~/');
  if (tilde || g.startsWith('/')) {
    const names = (tilde ? g.slice(2) : g.slice(1)).split('/').filter((n, i) => n !== '' || i > 0);
    let n = 0;
    while (n < names.length && !/[*[\]{}]/.test(names[n]!)) n++;
    const start = tilde ? home : '';
    const literal = `${start === '/' ? '' : start}/${names.slice(0, n).join('/')}`;
    out = { head: physicalPath(literal.length > 1 ? literal.replace(/\/+$/, '') : literal), rest: names.slice(n).join('/') };
  }
  heads.set(key, out);
  return out;
}

/** The glob with its literal beginning physical (physicalHead): `escape` makes that part's glob characters literal for picomatch. */
function expandedGlob(glob: string, home: string, escape: boolean): string {
  const g = normalized(glob);
  const lit = physicalHead(g, home);
  if (!lit) return g;
  let h = lit.head;
  if (escape) h = h.replace(/[\\*?[\]{}()!+@|^$,"]/g, '\\$&');
  return lit.rest === '' ? h : `${h === '/' ? '' : h}/${lit.rest}`;
}

/**
 * Whether the glob covers `path` (absolute, physical): picomatch matches it or
 * a folder above it. picomatch also takes a path equal to the glob's own text
 * as a match (`/a[x]` matches the folder named `/a[x]`), `~` expanded.
 */
export function cloneGlobMatches(glob: string, path: string, home: string): boolean {
  const m = loadPicomatch()(expandedGlob(glob, home, true), { dot: true });
  const text = expandedGlob(glob, home, false);
  const covers = (p: string) => m(p) || p === text;
  if (covers('/')) return true;
  for (let i = path.indexOf('/', 1); ; i = path.indexOf('/', i + 1)) {
    if (covers(i < 0 ? path : path.slice(0, i))) return true;
    if (i < 0) return false;
  }
}

/** Line breaks, which picomatch's `**` and a leading `*` do not match (its `.`), and the shell's do. */
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

/**
 * One glob as sh functions `<name>_<k>`, each matching the glob's segments
 * from the k-th on against the folder names in "$@"; `<name>_0` is the glob.
 */
function globFunctions(name: string, segs: Segment[]): string[] {
  const lines: string[] = [];
  let k = 0;
  let i = 0;
  while (i < segs.length) {
    const s = segs[i];
    const fn = `${name}_${k}`;
    if ('globstar' in s) {
      // Any number of folder names (at least s.globstar), the fewest first: each tried in turn.
      lines.push(`${fn}() {`, ...(s.globstar ? ['\t[ $# -gt 0 ] || return 1', '\tshift'] : []));
      lines.push('\twhile :; do', `\t\t${name}_${k + 1} "$@" && return 0`, '\t\t[ $# -gt 0 ] || return 1', '\t\tshift', '\tdone', '}');
      i++;
    } else {
      // The run of plain segments up to the next `**`, one folder name each.
      const run: string[][] = [];
      while (i < segs.length && !('globstar' in segs[i])) run.push((segs[i++] as { alternatives: string[] }).alternatives);
      lines.push(`${fn}() {`, `\t[ $# -ge ${run.length} ] || return 1`);
      for (const alts of run) lines.push(`\tcase $1 in ${alts.join(' | ')}) ;; *) return 1 ;; esac`, '\tshift');
      lines.push(i < segs.length ? `\t${name}_${k + 1} "$@"` : '\treturn 0', '}');
    }
    k++;
  }
  if (segs.length === 0 || 'globstar' in segs.at(-1)!) lines.push(`${name}_${k}() {`, '\treturn 0', '}');
  return lines;
}

/** The text of the compiled rules file (every glob checked by checkCloneGlob: one that is not throws). */
export function renderRules(c: CloneRules | null, configFile: string, home: string): string {
  const lines = [
    `# fleet-git clone rules, compiled from ${configFile.replace(/\n/g, ' ')}.`,
    '# Do not edit: the clone hook (or fleet-git setup) compiles it again when the config file changes.',
    '# shellcheck shell=sh disable=SC2034 # the two variables are read by post-checkout.sh, which sources this file',
    `fleet_git_rules_version=${RULES_VERSION}`,
    `fleet_git_rules_cfg=${c === null ? 'absent' : 'present'}`,
  ];
  const conf = c ?? { include: null, exclude: [] };
  const names = (kind: string, globs: string[]) =>
    globs.map((g, i) => {
      const name = `fleet_git_${kind}${i}`;
      lines.push(`# ${kind} ${JSON.stringify(g)}`);
      const readings = compileGlob(g, home).map((segs, r) => {
        lines.push(...globFunctions(`${name}r${r}`, segs));
        return `${name}r${r}_0 "$@"`;
      });
      // A path equal to the glob's text, or below it, matches too (as picomatch has it), glob characters and all.
      const text = expandedGlob(g, home, false);
      if (!/[*[\]{}]/.test(text) && readings.length === 1) return readings[0];
      lines.push(`${name}() {`);
      if (/[*[\]{}]/.test(text)) lines.push(`\tcase $fleet_git_path in ${shQuote(text)} | ${shQuote(text)}/*) return 0 ;; esac`);
      lines.push(`\t${readings.join(' || ')}`, '}');
      return `${name} "$@"`;
    });
  const inc = conf.include === null ? null : names('include', conf.include);
  const exc = names('exclude', conf.exclude);
  lines.push('# Whether a clone at $1 (an absolute, physical path) is provisioned.', 'fleet_git_included() {');
  if (inc !== null && inc.length === 0) lines.push('\treturn 1');
  else {
    if (inc !== null || exc.length) {
      // The folder names of $1 as "$@", without expanding a glob character in them.
      lines.push(
        `\tcase $1 in ${LINE_BREAKS.map((b) => `*${shQuote(b)}*`).join(' | ')}) return 1 ;; esac`,
        '\tfleet_git_path=$1',
        '\tcase $- in *f*) fleet_git_f= ;; *) fleet_git_f=1; set -f ;; esac',
        '\tfleet_git_ifs=${IFS-unset}',
        '\tIFS=/',
        '\t# shellcheck disable=SC2086 # split at each / on purpose (IFS=/, no globbing)',
        '\tset -- $1',
        '\tif [ "$fleet_git_ifs" = unset ]; then unset IFS; else IFS=$fleet_git_ifs; fi',
        '\t[ -z "$fleet_git_f" ] || set +f',
      );
    }
    if (inc !== null) lines.push(`\t${inc.join(' || ')} || return 1`);
    if (exc.length) lines.push(`\tif ${exc.join(' || ')}; then return 1; fi`);
    lines.push('\treturn 0');
  }
  lines.push('}', '');
  return lines.join('\n');
}

function mtimeNs(path: string): bigint | null {
  try {
    return statSync(path, { bigint: true }).mtimeNs;
  } catch {
    return null;
  }
}

/**
 * Writes the rules file for this config (c null: no config file, the defaults).
 * The hook takes the rules as current unless the config file is newer than
 * them (`[ cfg -nt rules ]`) or its presence differs from what they say.
 * Returns whether the file changed.
 */
export function writeRules(dataDir: string, c: CloneRules | null, configFile: string, home: string): boolean {
  const file = join(dataDir, RULES_FILE);
  const changed = writeAtomic(file, renderRules(c, configFile, home), { mode: 0o644, verify: true });
  if (!changed) {
    const now = new Date();
    utimesSync(file, now, now);
  }
  return changed;
}

/** Whether there is a rules file, and whether it still reflects the config file, judged as the hook judges it. */
export function rulesState(dataDir: string, configFile: string): 'absent' | 'stale' | 'current' {
  const rules = join(dataDir, RULES_FILE);
  const text = readText(rules);
  if (text === null) return 'absent';
  if (!text.includes(`\nfleet_git_rules_version=${RULES_VERSION}\n`)) return 'stale';
  const cfg = mtimeNs(configFile);
  if (!text.includes('\nfleet_git_rules_cfg=present\n')) return cfg !== null ? 'stale' : 'current';
  const r = mtimeNs(rules);
  return cfg === null || r === null || cfg > r ? 'stale' : 'current';
}
