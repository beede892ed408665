// The user config file, ${XDG_CONFIG_HOME:-~/.config}/fleet-git/config.json5:
// which new clones the setup template provisions (include/exclude, matched by
// the clone hook with picomatch, see clone-rules.ts) and the
// folders `scan` walks when given none (scan.roots; unset, scan lists the recorded repositories)
// and the folders scan, enable --under and remove skip (scan.ignore);
// `trust: true` makes `enable` also list repositories in Copilot's trustedFolders;
// `vscode: false` keeps VS Code's agent sessions out of the observer (the hook
// client reads that key itself: src/copilot/vscode.ts).
// A missing or empty file means the defaults; an invalid one is one line naming
// the file, the line, what is wrong and what to do (UserConfigError), never a
// stack; the commands that take fleet-git away use the defaults then.
import { parseJson5 } from '../../json5.js';
import { unreadableReason, UsageError } from '../../errors.js';
import { readText } from '../../fs/read.js';
import { expandHome, userPaths, type Env } from '../../paths.js';
import { checkCloneGlob, type CloneRules } from '../repo/clone-rules.js';
import { VSCODE_KEY } from '../../copilot/vscode.js';

export interface UserConfig extends CloneRules {
  scan: {
    /** Folders `scan` walks when given none (`~/` expanded by expandHome). */
    roots: string[];
    /** Globs (picomatch, as discover's `ignore`) for folders the walk skips. */
    ignore: string[];
  };
  /** `enable` (one repository or --under) also lists each repository in Copilot's trustedFolders, as --trust does. */
  trust: boolean;
  /** VS Code's agent sessions show in the observer (it runs the same hook file); false keeps them out. */
  vscode: boolean;
}

export type ConfigKey = 'include' | 'exclude' | 'scan.roots' | 'scan.ignore' | 'trust' | typeof VSCODE_KEY;
export const CONFIG_KEYS: readonly ConfigKey[] = ['include', 'exclude', 'scan.roots', 'scan.ignore', 'trust', VSCODE_KEY];

export interface LoadedConfig {
  file: string;
  /** Whether the file exists (false: every value is the default). */
  exists: boolean;
  config: UserConfig;
  /** Where each value came from. */
  from: Record<ConfigKey, 'default' | 'file'>;
}

function defaultConfig(): UserConfig {
  return { include: null, exclude: [], scan: { roots: ['.'], ignore: [] }, trust: false, vscode: true };
}

function defaultFrom(): Record<ConfigKey, 'default' | 'file'> {
  return Object.fromEntries(CONFIG_KEYS.map((k) => [k, 'default'])) as Record<ConfigKey, 'default' | 'file'>;
}

/** An invalid config file: its message is the one line to print, ending with what to do. Exit code 2. */
export class UserConfigError extends UsageError {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly what: string,
  ) {
    super(`${file}${line ? `:${line}` : ''}: ${what}: fix it or move it aside`);
  }

  /** Where and what, without what to do. */
  get where(): string {
    return `${this.file}${this.line ? `:${this.line}` : ''}: ${this.what}`;
  }
}

/** The word of `line` around the 1-based `column` (what a syntax error points at), or null. */
function tokenAt(line: string | undefined, column: number | undefined): string | null {
  if (!line || !column || column > line.length) return null;
  const word = /[^\s{}[\]:]/;
  let a = column - 1;
  let b = column;
  while (a > 0 && word.test(line[a - 1])) a--;
  while (b < line.length && word.test(line[b])) b++;
  return line.slice(a, b).trim() || null;
}

/** The line where `key` first appears as a property name in the text (1-based), else null. */
function lineOf(text: string, key: string): number | null {
  const re = new RegExp(`(^|[\\s{,])(["']?)${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\2\\s*:`);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) if (re.test(lines[i])) return i + 1;
  return null;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Parses and validates the text of a config file. */
export function parseUserConfig(text: string, file: string): { config: UserConfig; from: Record<ConfigKey, 'default' | 'file'> } {
  const config = defaultConfig();
  const from = defaultFrom();
  // A file of nothing but white space and comments: the defaults.
  if (
    text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '')
      .trim() === ''
  )
    return { config, from };
  let doc: unknown;
  try {
    doc = parseJson5(text);
  } catch (e) {
    const err = e as SyntaxError & { lineNumber?: number; columnNumber?: number };
    const what = String(err.message ?? e)
      .replace(/^JSON5: /, '')
      .replace(/ at \d+:\d+$/, '');
    const token = tokenAt(text.split('\n')[(err.lineNumber ?? 0) - 1], err.columnNumber);
    throw new UserConfigError(
      file,
      err.lineNumber ?? null,
      `${what}${token !== null && token !== what.match(/'(.*)'$/)?.[1] ? ` in '${token}'` : ''}${err.columnNumber ? ` (column ${err.columnNumber})` : ''}`,
    );
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new UserConfigError(file, 1, `the file must hold one object ({ include: [...], ... }), not ${describe(doc)}`);
  const fail = (key: string, what: string): never => {
    throw new UserConfigError(file, lineOf(text, key.split('.').at(-1) as string), what);
  };
  const strings = (key: string, v: unknown): string[] => {
    if (!Array.isArray(v)) fail(key, `${key} must be a list of strings, not ${describe(v)}`);
    const list = v as unknown[];
    list.forEach((s, i) => {
      if (typeof s !== 'string') fail(key, `${key}[${i}] must be a string, not ${describe(s)}`);
      if ((s as string).trim() === '') fail(key, `${key}[${i}] is empty`);
    });
    return list as string[];
  };
  const top = doc as Record<string, unknown>;
  for (const k of Object.keys(top)) {
    if (!['include', 'exclude', 'scan', 'trust', VSCODE_KEY].includes(k))
      fail(k, `unknown key '${k}' (known: include, exclude, scan, trust, ${VSCODE_KEY})`);
  }
  for (const key of ['include', 'exclude'] as const) {
    if (!(key in top)) continue;
    const list = strings(key, top[key]);
    list.forEach((g, i) => {
      const bad = checkCloneGlob(g);
      if (bad) fail(key, `${key}[${i}] '${g}': ${bad}`);
    });
    config[key] = list;
    from[key] = 'file';
  }
  if ('scan' in top) {
    const scan = top.scan;
    if (scan === null || typeof scan !== 'object' || Array.isArray(scan))
      fail('scan', `scan must be an object ({ roots: [...], ignore: [...] }), not ${describe(scan)}`);
    const s = scan as Record<string, unknown>;
    for (const k of Object.keys(s))
      if (!['roots', 'ignore'].includes(k)) fail(`scan.${k}`, `unknown key 'scan.${k}' (known: scan.roots, scan.ignore)`);
    if ('roots' in s) {
      config.scan.roots = strings('scan.roots', s.roots);
      from['scan.roots'] = 'file';
    }
    if ('ignore' in s) {
      config.scan.ignore = strings('scan.ignore', s.ignore);
      from['scan.ignore'] = 'file';
    }
  }
  for (const key of ['trust', VSCODE_KEY] as const) {
    if (!(key in top)) continue;
    const v = top[key];
    if (typeof v !== 'boolean') fail(key, `${key} must be true or false, not ${describe(v)}${typeof v === 'string' ? ` ("${v}")` : ''}`);
    config[key] = v as boolean;
    from[key] = 'file';
  }
  return { config, from };
}

/** Loads the user config file; a missing file gives the defaults, an invalid one throws UserConfigError. */
export function loadUserConfig(env: Env, home: string): LoadedConfig {
  const file = userPaths(env, home).configFile;
  let text: string | null;
  try {
    text = readText(file);
  } catch (e) {
    throw new UserConfigError(file, null, unreadableReason(file, e));
  }
  if (text === null) {
    return { file, exists: false, config: defaultConfig(), from: defaultFrom() };
  }
  return { file, exists: true, ...parseUserConfig(text, file) };
}

/**
 * The config file for the commands that take fleet-git away, which must work
 * whatever the file holds: an invalid one gives the defaults, and its error
 * (`ignored`) for the command to say once.
 */
export function loadUserConfigOrDefaults(env: Env, home: string): LoadedConfig & { ignored: UserConfigError | null } {
  try {
    return { ...loadUserConfig(env, home), ignored: null };
  } catch (e) {
    if (!(e instanceof UserConfigError)) throw e;
    return { file: e.file, exists: true, config: defaultConfig(), from: defaultFrom(), ignored: e };
  }
}

/** scan.roots with `~` expanded, as absolute folders. */
export function scanRoots(c: UserConfig, home: string): string[] {
  return c.scan.roots.map((r) => expandHome(r, home));
}

/** The value of one key. */
export function configValue(c: UserConfig, key: ConfigKey): string[] | boolean | null {
  switch (key) {
    case 'include':
      return c.include;
    case 'exclude':
      return c.exclude;
    case 'scan.roots':
      return c.scan.roots;
    case 'scan.ignore':
      return c.scan.ignore;
    case 'trust':
      return c.trust;
    case VSCODE_KEY:
      return c.vscode;
  }
}
