// Reads git configuration files the way git does, for the few keys fleet-git
// needs (core.hooksPath, extensions.worktreeConfig, init.templateDir), without a
// git process per repository. `include`/`includeIf` directives are not followed.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readTextIfExists } from '../fs/atomic.js';
import type { Env } from '../paths.js';

export type ConfigScope = 'system' | 'global' | 'local' | 'worktree';
export interface ConfigValue { value: string; scope: ConfigScope; file: string }

/** All values of `section.key` in one file's text, last one last. Names are case-insensitive. */
export function parseConfigValues(text: string, section: string, key: string): string[] {
  const want = section.toLowerCase();
  const wantKey = key.toLowerCase();
  const out: string[] = [];
  let current = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].trim();
    if (line.startsWith('[')) {
      const m = /^\[\s*([A-Za-z0-9.-]+)(\s+"(?:[^"\\]|\\.)*")?\s*\]\s*(.*)$/.exec(line);
      if (!m) { current = ''; continue; }
      // A subsection ([core "x"]) is another section than [core].
      current = m[2] === undefined ? m[1].toLowerCase() : `${m[1].toLowerCase()} ${m[2].trim()}`;
      line = m[3].trim();
      if (!line) continue;
    }
    if (current !== want || !line || line.startsWith('#') || line.startsWith(';')) continue;
    const km = /^([A-Za-z][A-Za-z0-9-]*)\s*(=\s*(.*))?$/.exec(line);
    if (!km || km[1].toLowerCase() !== wantKey) continue;
    if (km[2] === undefined) { out.push('true'); continue; }
    let raw = km[3];
    while (raw.endsWith('\\') && i + 1 < lines.length) raw = raw.slice(0, -1) + lines[++i];
    out.push(unquote(raw));
  }
  return out;
}

function unquote(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') { quoted = !quoted; continue; }
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
export function globalConfigFiles(env: Env, home = env.HOME || homedir()): { scope: ConfigScope; file: string }[] {
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

/** A cache of file texts, so a run over many repositories reads the global files once. */
export class ConfigReader {
  private texts = new Map<string, string | null>();
  private globals: { scope: ConfigScope; file: string }[] | undefined;
  readonly home: string;
  constructor(private readonly env: Env) {
    this.home = env.HOME || homedir();
  }

  text(file: string, cache: boolean): string | null {
    if (!cache) return readTextIfExists(file);
    if (!this.texts.has(file)) this.texts.set(file, readTextIfExists(file));
    return this.texts.get(file) ?? null;
  }

  /** The effective value of `section.key` for a repository (or outside one when commonDir is null). */
  get(section: string, key: string, commonDir: string | null, gitDir: string | null = commonDir): ConfigValue | null {
    const files: { scope: ConfigScope; file: string; text?: string | null }[] = (this.globals ??= globalConfigFiles(this.env, this.home)).slice();
    if (commonDir) {
      // The repository's own file is read once per call (not cached: it differs per repository).
      const local = this.text(join(commonDir, 'config'), false);
      files.push({ scope: 'local', file: join(commonDir, 'config'), text: local });
      if (gitDir && local && isTrue(parseConfigValues(local, 'extensions', 'worktreeConfig').at(-1))) {
        files.push({ scope: 'worktree', file: join(gitDir, 'config.worktree'), text: this.text(join(gitDir, 'config.worktree'), false) });
      }
    }
    let found: ConfigValue | null = null;
    for (const f of files) {
      const text = f.text !== undefined ? f.text : this.text(f.file, true);
      const v = text === null ? undefined : parseConfigValues(text, section, key).at(-1);
      if (v !== undefined) found = { value: v, scope: f.scope, file: f.file };
    }
    return found;
  }
}

export function isTrue(v: string | undefined): boolean {
  return v !== undefined && ['true', 'yes', 'on', '1'].includes(v.toLowerCase());
}
