// The config's include/exclude globs, compiled into a small sh file of `case`
// patterns that the template's post-checkout hook sources on every clone, so
// that deciding whether to provision a clone never starts Node.
//
// The glob subset (the same meaning here and in the hook, which is `case`'s):
//   - matched against the clone's absolute, physical path (symbolic links resolved);
//   - `~` or a leading `~/` is the home folder (resolved when compiled);
//   - `*` matches any run of characters, `/` included (so `**` is the same as `*`);
//   - `?` matches one character, `/` included;
//   - `[abc]`, `[a-z]`, `[!abc]` match one character of (or not of) a class made
//     of letters, digits, `.`, `_` and `-`;
//   - everything else is literal; a trailing `/` is ignored;
//   - a glob that matches a folder matches everything under it too
//     (`~/code/work` covers `~/code/work/api`);
//   - not supported (rejected when the config is read): `{a,b}`, `\` escapes,
//     and a glob that starts with anything but `/`, `~`, `*`, `?` or `[`.
// A clone is provisioned when include is absent or one include glob matches,
// and no exclude glob matches.
import { realpathSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { VERIFY, readTextOrNull, writeAtomic } from '../fs/atomic.js';
import { expandHome } from '../paths.js';
import { shQuote } from './templates.js';

/** What the rules are made of: the config file's include and exclude (user-config.ts reads them). */
export interface CloneRules {
  /** Globs on a new clone's absolute path; null: every clone. */
  include: string[] | null;
  /** Globs on a new clone's absolute path that are never provisioned. */
  exclude: string[];
}

export const RULES_FILE = 'clone-rules.sh';

/** What is wrong with a clone glob, or null when it is in the supported subset. */
export function checkCloneGlob(g: string): string | null {
  if (/[\x00-\x1f]/.test(g)) return 'control characters are not allowed';
  if (g.includes('{') || g.includes('}')) return 'brace alternatives ({a,b}) are not supported: list each glob separately';
  if (g.includes('\\')) return 'backslash escapes are not supported';
  if (!/^(\/|~(\/|$)|[*?[])/.test(g))
    return "a glob must start with '/', '~/', '*', '?' or '[' (it is matched against the clone's absolute path)";
  for (let i = 0; i < g.length; i++) {
    if (g[i] === ']') return "a ']' without its '['";
    if (g[i] !== '[') continue;
    const end = g.indexOf(']', i + 1);
    if (end < 0) return "a '[' without its ']'";
    if (!/^!?[A-Za-z0-9._-]+$/.test(g.slice(i + 1, end))) return 'a [class] may hold only letters, digits, . _ - (and a leading !)';
    i = end;
  }
  return null;
}

type Token = { lit: string } | { star: true } | { any: true } | { cls: string };

function tokens(glob: string, home: string): Token[] {
  let g = expandHome(glob, home);
  if (g.length > 1) g = g.replace(/\/+$/, '');
  const out: Token[] = [];
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*') {
      while (g[i + 1] === '*') i++;
      out.push({ star: true });
    } else if (c === '?') out.push({ any: true });
    else if (c === '[') {
      const end = g.indexOf(']', i + 1);
      out.push({ cls: g.slice(i + 1, end) });
      i = end;
    } else {
      const last = out.at(-1);
      if (last && 'lit' in last) last.lit += c;
      else out.push({ lit: c });
    }
  }
  return out;
}

/** The home folder as the hook sees paths: physical. */
export function physicalHome(home: string): string {
  try {
    return realpathSync(home);
  } catch {
    return home;
  }
}

/** One glob as a `case` pattern list (`P|P/*`), every literal part quoted. */
function globToCase(glob: string, home: string): string {
  const p = tokens(glob, physicalHome(home))
    .map((t) => ('lit' in t ? shQuote(t.lit) : 'star' in t ? '*' : 'any' in t ? '?' : `[${t.cls}]`))
    .join('');
  return p.endsWith('*') ? p : `${p}|${p}/*`;
}

/** The same glob as a regular expression, with the same meaning as the `case` pattern. */
export function globToRegExp(glob: string, home: string): RegExp {
  const p = tokens(glob, physicalHome(home))
    .map((t) =>
      'lit' in t
        ? t.lit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        : 'star' in t
          ? '[\\s\\S]*'
          : 'any' in t
            ? '[\\s\\S]'
            : `[${t.cls.replace(/^!/, '^')}]`,
    )
    .join('');
  return new RegExp(`^${p}(/[\\s\\S]*)?$`);
}

/** Whether a new clone at `path` (absolute, physical) is provisioned under this config. */
export function isCloneIncluded(c: CloneRules, path: string, home: string): boolean {
  const m = (globs: string[]) => globs.some((g) => globToRegExp(g, home).test(path));
  return (c.include === null || m(c.include)) && !m(c.exclude);
}

/** The text of the compiled rules file. */
export function renderRules(c: CloneRules | null, configFile: string, home: string): string {
  const lines = [
    `# fleet-git clone rules, compiled from ${configFile.replace(/\n/g, ' ')}.`,
    '# Do not edit: the clone hook (or fleet-git setup) compiles it again when the config file changes.',
    `fleet_git_rules_cfg=${c === null ? 'absent' : 'present'}`,
    'fleet_git_included() {',
  ];
  const conf = c ?? { include: null, exclude: [] };
  if (conf.include !== null && conf.include.length === 0) lines.push('\treturn 1');
  else {
    if (conf.include !== null)
      lines.push('\tcase $1 in', `\t${conf.include.map((g) => globToCase(g, home)).join('|')}) ;;`, '\t*) return 1 ;;', '\tesac');
    if (conf.exclude.length)
      lines.push('\tcase $1 in', `\t${conf.exclude.map((g) => globToCase(g, home)).join('|')}) return 1 ;;`, '\tesac');
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
  const changed = writeAtomic(file, renderRules(c, configFile, home), 0o644, undefined, VERIFY);
  if (!changed) {
    const now = new Date();
    utimesSync(file, now, now);
  }
  return changed;
}

/** Whether there is a rules file, and whether it still reflects the config file, judged as the hook judges it. */
export function rulesState(dataDir: string, configFile: string): 'absent' | 'stale' | 'current' {
  const rules = join(dataDir, RULES_FILE);
  const text = readTextOrNull(rules);
  if (text === null) return 'absent';
  const cfg = mtimeNs(configFile);
  if (!text.includes('\nfleet_git_rules_cfg=present\n')) return cfg !== null ? 'stale' : 'current';
  const r = mtimeNs(rules);
  return cfg === null || r === null || cfg > r ? 'stale' : 'current';
}
