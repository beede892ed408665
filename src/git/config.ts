// Reads git configuration files the way git does, for the few keys fleet-git
// needs (core.hooksPath, extensions.worktreeConfig, init.templateDir), without a
// git process per repository. `include.path` is followed, and `includeIf.*.path`
// for the conditions `gitdir:`, `gitdir/i:` and `onbranch:`; a `hasconfig:`
// condition counts as not met.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { readSmall, readText, within } from '../fs/read.js';
import { loadPicomatch } from '../glob.js';
import { expandHome, type Env } from '../paths.js';

export type ConfigScope = 'system' | 'global' | 'local' | 'worktree';
export interface ConfigValue {
  value: string;
  scope: ConfigScope;
  file: string;
}

/** One `key = value` of a config file: its section lowercased, with the subsection as written (`includeif gitdir:~/w/`). */
export interface ConfigEntry {
  section: string;
  key: string;
  value: string;
}

/** A section header line (`[core]`, `[hook "x"]`), spaces around it allowed: its name lowercased, its subsection unescaped, and what follows on the line, trimmed; null when the line is not one. */
export function sectionHeader(line: string): { section: string; sub: string | undefined; rest: string } | null {
  const m = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
  return m ? { section: m[1].toLowerCase(), sub: m[2]?.replace(/\\(.)/g, '$1'), rest: m[3].trim() } : null;
}

/** Every entry of one file's text, in order. Section and key names are case-insensitive. */
function configEntries(text: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  let current = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].trim();
    if (line.startsWith('[')) {
      const h = sectionHeader(line);
      // A subsection ([core "x"]) is another section than [core].
      current = h === null ? '' : h.sub === undefined ? h.section : `${h.section} ${h.sub}`;
      line = h?.rest ?? '';
      if (!line) continue;
    }
    if (!current || !line || line.startsWith('#') || line.startsWith(';')) continue;
    const km = /^([A-Za-z][A-Za-z0-9-]*)\s*(=\s*(.*))?$/.exec(line);
    if (!km) continue;
    if (km[2] === undefined) {
      out.push({ section: current, key: km[1].toLowerCase(), value: 'true' });
      continue;
    }
    let raw = km[3];
    while (raw.endsWith('\\') && i + 1 < lines.length) raw = raw.slice(0, -1) + lines[++i];
    out.push({ section: current, key: km[1].toLowerCase(), value: unquote(raw) });
  }
  return out;
}

const KEY_LINE = /^[A-Za-z][A-Za-z0-9-]*\s*(=(.*))?$/;

/**
 * The number (from 1) of the first line of a config file's text that git may
 * refuse ("fatal: bad config line N"), or null: a section header or a key
 * that is not one, a value whose quotes are not closed. Cheap, and on the
 * cautious side: a caller asks git itself before it says so (gitRefusal).
 */
export function suspectConfigLine(text: string): number | null {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].trim();
    if (line === '' || line[0] === '#' || line[0] === ';') continue;
    if (line[0] === '[') {
      const h = sectionHeader(line);
      if (!h) return i + 1;
      line = h.rest;
      if (line === '' || line[0] === '#' || line[0] === ';') continue;
    }
    const km = KEY_LINE.exec(line);
    if (!km) return i + 1;
    let value = km[2] ?? '';
    const start = i;
    while (/(^|[^\\])(\\\\)*\\$/.test(value) && i + 1 < lines.length) value = value.slice(0, -1) + lines[++i];
    let quoted = false;
    for (let j = 0; j < value.length; j++) {
      const c = value[j];
      if (c === '\\') j++;
      else if (c === '"') quoted = !quoted;
      else if (!quoted && (c === '#' || c === ';')) break;
    }
    if (quoted) return start + 1;
  }
  return null;
}

/** All values of `section.key` in one file's text, last one last (includes not followed). */
export function parseConfigValues(text: string, section: string, key: string): string[] {
  const want = section.toLowerCase();
  const wantKey = key.toLowerCase();
  return configEntries(text)
    .filter((e) => e.section === want && e.key === wantKey)
    .map((e) => e.value);
}

function unquote(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i];
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
      continue;
    }
    if (!quoted && (c === '#' || c === ';')) break;
    out += c;
  }
  return quoted ? out : out.replace(/\s+$/, '');
}

/** The configuration files git reads outside a repository, in order. */
function globalConfigFiles(env: Env, home = env.HOME || homedir()): { scope: ConfigScope; file: string }[] {
  const files: { scope: ConfigScope; file: string }[] = [];
  if (!env.GIT_CONFIG_NOSYSTEM) files.push({ scope: 'system', file: env.GIT_CONFIG_SYSTEM || '/etc/gitconfig' });
  if (env.GIT_CONFIG_GLOBAL !== undefined) {
    if (env.GIT_CONFIG_GLOBAL) files.push({ scope: 'global', file: env.GIT_CONFIG_GLOBAL });
  } else {
    files.push({ scope: 'global', file: join(env.XDG_CONFIG_HOME || join(home, '.config'), 'git', 'config') });
    files.push({ scope: 'global', file: join(home, '.gitconfig') });
  }
  return files;
}

/** No entries: what a file's text gives when it cannot hold the key asked for (see mayHold). */
const NONE: readonly ConfigEntry[] = Object.freeze([]);

/**
 * Whether a config file's text, lowercased, can hold an entry whose key is one
 * of `keys` (lowercase): a key is written whole on one line, so a text that does not
 * contain it, in any case, has no such entry. A repository's own file seldom
 * names the keys fleet-git asks for (hooksPath, objectFormat, worktreeConfig, an
 * include's path), so most are not parsed at all.
 */
function mayHold(lower: string, keys: readonly string[]): boolean {
  return keys.some((k) => lower.includes(k));
}

/** A repository's own config file as read once: its text (and lowercased, once asked), and its entries once parsed. */
interface LocalFile {
  file: string;
  text: string | null;
  lower?: string;
  entries?: readonly ConfigEntry[];
}

function localEntries(f: LocalFile, keys: readonly string[]): readonly ConfigEntry[] | null {
  if (f.text === null) return null;
  if (f.entries) return f.entries;
  if (!mayHold((f.lower ??= f.text.toLowerCase()), keys)) return NONE;
  return (f.entries = configEntries(f.text));
}

/** A cache of parsed files, so a run over many repositories reads and parses the global ones once. */
export class ConfigReader {
  private parsed = new Map<string, ConfigEntry[] | null>();
  /** A repository's own file as localText or localValues read it, for the next localValues or get on it (a repository's state asks them in a row), dropped by that get or forgetLocal. */
  private handoff: LocalFile | undefined;
  private globals: { scope: ConfigScope; file: string }[] | undefined;
  readonly home: string;
  constructor(private readonly env: Env) {
    this.home = env.HOME || homedir();
  }

  /** A file's entries (null: no such file), kept for the run. */
  private entries(file: string): ConfigEntry[] | null {
    if (this.parsed.has(file)) return this.parsed.get(file) ?? null;
    const text = readSmall(file)?.toString('utf8') ?? null;
    const entries = text === null ? null : configEntries(text);
    this.parsed.set(file, entries);
    return entries;
  }

  /** The last repository file read, for localText; dropped by forgetLocal when a repository is read anew. */
  private last: LocalFile | undefined;

  /** A repository's own file (or a worktree's), read now: it differs per repository, so it is not kept for the run. */
  private local(file: string): LocalFile {
    return (this.last = { file, text: readSmall(file)?.toString('utf8') ?? null }); // one open, read and close into a reused buffer: a scan reads thousands
  }

  /** Drops what localText would give: a repository's state is read anew (its config may have been written since). */
  forgetLocal(): void {
    this.last = undefined;
    this.handoff = undefined;
  }

  /** A repository's own config file's text (null: none): what this reader read of it last, when that was the last repository file it read. */
  localText(commonDir: string): string | null {
    const file = within(commonDir, 'config');
    return (this.last?.file === file ? this.last : (this.handoff = this.local(file))).text;
  }

  /** The values of `section.key` in a repository's own config file only, in order (e.g. extensions.*, which git reads from there alone). */
  localValues(commonDir: string, section: string, key: string): string[] {
    const file = within(commonDir, 'config');
    const f = (this.handoff = this.handoff?.file === file ? this.handoff : this.local(file)); // localText's read, not yet used
    const want = section.toLowerCase();
    const wantKey = key.toLowerCase();
    return (localEntries(f, [wantKey]) ?? NONE).filter((e) => e.section === want && e.key === wantKey).map((e) => e.value);
  }

  /** The effective value of `section.key` for a repository (or outside one when commonDir is null). */
  get(section: string, key: string, commonDir: string | null, gitDir: string | null = commonDir): ConfigValue | null {
    const files: { scope: ConfigScope; file: string; entries?: readonly ConfigEntry[] | null }[] = (this.globals ??= globalConfigFiles(
      this.env,
      this.home,
    )).slice();
    const want = section.toLowerCase();
    const wantKey = key.toLowerCase();
    if (commonDir) {
      // The repository's own file is read once per call (not cached: it differs per repository). It matters through
      // the key itself, an include's path, or worktreeConfig (which adds the worktree's file): a text naming none is not parsed.
      const file = within(commonDir, 'config');
      const f = this.handoff?.file === file ? this.handoff : this.local(file);
      this.handoff = undefined;
      const keys = [wantKey, 'path', 'worktreeconfig'];
      const local = localEntries(f, keys);
      files.push({ scope: 'local', file, entries: local });
      const worktreeConfig = local?.filter((e) => e.section === 'extensions' && e.key === 'worktreeconfig').at(-1)?.value;
      if (gitDir && isTrue(worktreeConfig)) {
        const file = join(gitDir, 'config.worktree');
        files.push({ scope: 'worktree', file, entries: localEntries(this.local(file), keys) });
      }
    }
    let found: ConfigValue | null = null;
    const walk = (entries: readonly ConfigEntry[], file: string, scope: ConfigScope, depth: number): void => {
      for (const e of entries) {
        if (e.section === want && e.key === wantKey) found = { value: e.value, scope, file };
        else if (
          e.key === 'path' &&
          depth < MAX_INCLUDE_DEPTH &&
          (e.section === 'include' || (e.section.startsWith('includeif ') && this.includes(e.section.slice(10), file, gitDir)))
        ) {
          // The included file's values stand where the include is, in the including file's scope.
          const included = includePath(e.value, file, this.home);
          const inc = included === null ? null : this.entries(included);
          if (included !== null && inc !== null) walk(inc, included, scope, depth + 1);
        }
      }
    };
    for (const f of files) {
      const entries = f.entries !== undefined ? f.entries : this.entries(f.file);
      if (entries !== null) walk(entries, f.file, f.scope, 0);
    }
    return found;
  }

  /** Whether an includeIf condition holds for the repository whose git dir is `gitDir` (none: outside a repository). */
  private includes(condition: string, file: string, gitDir: string | null): boolean {
    const m = /^(gitdir|gitdir\/i|onbranch):(.*)$/.exec(condition);
    if (!m || gitDir === null) return false;
    let pattern = m[2];
    if (m[1] === 'onbranch') {
      const head = readText(join(gitDir, 'HEAD'));
      const branch = /^ref: refs\/heads\/(.+?)\s*$/.exec(head ?? '')?.[1];
      if (!branch) return false;
      if (pattern.endsWith('/')) pattern += '**';
      return loadPicomatch()(pattern, { dot: true })(branch);
    }
    // As git: ~/ is the home folder, ./ the including file's folder, a relative pattern matches anywhere, a final / means everything below.
    // (Text substitution, as git does: no .. is resolved.)
    if (pattern.startsWith('~/')) pattern = this.home.replace(/\/+$/, '') + pattern.slice(1);
    else if (pattern.startsWith('./')) pattern = dirname(file) + pattern.slice(1);
    else if (!isAbsolute(pattern)) pattern = `**/${pattern}`;
    if (pattern.endsWith('/')) pattern += '**';
    const match = loadPicomatch()(pattern, { dot: true, nocase: m[1] === 'gitdir/i' });
    if (match(gitDir)) return true;
    try {
      return match(realpathSync(gitDir));
    } catch {
      return false;
    }
  }
}

/** How many includes deep git follows (it stops with an error beyond 10; fleet-git stops reading). */
const MAX_INCLUDE_DEPTH = 10;

/** Where an include's path points: relative to the including file's folder, ~/ from home; null for a relative path in a file without a folder. */
function includePath(value: string, from: string, home: string): string | null {
  if (value === '') return null;
  const v = expandHome(value, home);
  return isAbsolute(v) ? v : resolve(dirname(from), v);
}

export function isTrue(v: string | undefined): boolean {
  return v !== undefined && ['true', 'yes', 'on', '1'].includes(v.toLowerCase());
}
