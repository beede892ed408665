// Git's own hook configuration (git 2.54 and later): `hook.<name>.event` and
// `hook.<name>.command` in any config file make git run that command for that
// event, before the hooks folder's script and whatever core.hooksPath says (so
// under husky, lefthook or a user's core.hooksPath too). fleet-git names its
// entry `fleet-git` in a repository's own config (enable: its new worktrees)
// and `fleet-git-clone` in the global one (setup: every clone). The command
// runs a script in the data folder (the post-checkout hook as enable writes it,
// or setup's clone copy), only while it is there: git appends the hook's three
// arguments, and a missing script fails no git command. Older gits ignore the
// keys. Here: the text of those entries, read, added and taken out of a config
// file's text, leaving every other byte as it was.
import { join } from 'node:path';
import { parseConfigValues, sectionHeader, type ConfigReader } from '../../git/config.js';
import { HOOK_NAME } from './git-hook.js';
import { shQuote } from './templates.js';

/** The first git that runs hooks named in config. */
export const CONFIG_HOOKS_SINCE: readonly [number, number] = [2, 54];
/** The name of enable's entry in a repository's config. */
export const REPO_HOOK_ENTRY = 'fleet-git';
/** The name of setup's entry in the global config. */
export const CLONE_HOOK_ENTRY = 'fleet-git-clone';
/** The template hook (clone mode) as a stable file in the data folder: what setup's global entry runs, and the line for a user's global core.hooksPath hook (older gits). */
export const CLONE_HOOK = 'clone-hook';
/** The data folder's copy of the post-checkout hook enable writes, which a repository's config entry runs. */
export const REPO_HOOK = 'repo-hook';

/** Whether a git of this version runs hooks named in config. */
export function runsConfigHooks(version: readonly number[] | null): boolean {
  if (!version) return false;
  const [major, minor] = version;
  return major > CONFIG_HOOKS_SINCE[0] || (major === CONFIG_HOOKS_SINCE[0] && minor >= CONFIG_HOOKS_SINCE[1]);
}

/** The command of an entry that runs `script`: only when it is there and executable (git appends "$@"). */
export function configHookCommand(script: string): string {
  return `[ ! -x ${shQuote(script)} ] || ${shQuote(script)}`;
}

/** A value as git writes it in a config file: quoted, with `\` and `"` escaped (and newlines and tabs). */
function configQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}

/** The lines of fleet-git's entry `name` running `command`, as added to a config file. */
export function configHookBlock(name: string, command: string): string {
  return `[hook "${name}"]\n\tevent = ${HOOK_NAME}\n\tcommand = ${configQuote(command)}\n`;
}

export interface ConfigHookInfo {
  /** Whether the text has any key of the entry. */
  present: boolean;
  /** Whether the entry runs `command` on post-checkout, as fleet-git writes it. */
  current: boolean;
}

/** What a config file's text (null: no file) holds of the entry `name`. */
export function readConfigHook(text: string | null, name: string, command: string): ConfigHookInfo {
  if (text === null || !text.toLowerCase().includes(name)) return { present: false, current: false };
  const section = `hook ${name}`;
  const events = parseConfigValues(text, section, 'event');
  const commands = parseConfigValues(text, section, 'command');
  return {
    present: events.length > 0 || commands.length > 0,
    current: events.includes(HOOK_NAME) && commands.at(-1) === command,
  };
}

/**
 * The text without the entry `name`'s `event` and `command` keys (a value
 * continued on the next line with `\` goes with its key), and without its
 * section header where nothing else of the section is left; every other byte
 * as it was. The same text when there is none.
 */
export function withoutConfigHook(text: string, name: string): string {
  const lines = text.split(/(?<=\n)/);
  const out: string[] = [];
  let section: { at: number; kept: boolean } | null = null; // ours: where its header is in `out`, and whether anything else stays
  const close = () => {
    if (section && !section.kept) {
      // Only blank lines and the header are left of it: all go.
      const tail = out.slice(section.at + 1);
      if (tail.every((l) => l.trim() === '')) out.splice(section.at);
    }
    section = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const h = sectionHeader(line.replace(/\r?\n$/, ''));
    if (h) {
      close();
      if (h.section === 'hook' && h.sub === name && h.rest === '') section = { at: out.length, kept: false };
      out.push(line);
      continue;
    }
    if (section) {
      const t = line.trim();
      if (/^(event|command)\s*(=|$)/i.test(t)) {
        while (/\\\r?\n$/.test(lines[i]) && i + 1 < lines.length) i++; // its continuation lines
        continue;
      }
      if (t !== '') section.kept = true;
    }
    out.push(line);
  }
  close();
  return out.join('');
}

/** The text with the entry `name` running `command`: unchanged when it does already, else taken out and added at the end. */
export function withConfigHook(text: string, name: string, command: string): string {
  if (readConfigHook(text, name, command).current) return text;
  const base = withoutConfigHook(text, name);
  return `${base}${base === '' || base.endsWith('\n') ? '' : '\n'}${configHookBlock(name, command)}`;
}

/**
 * What the effective config (every global file, includes followed, as git
 * reads it) holds of setup's global entry: any key of it, and whether it is as
 * fleet-git writes it for the data folder `dataDir`; it then runs the clone
 * copy in every repository, which provisions the new worktrees of an enabled
 * one as enable's entry does.
 */
export function cloneEntry(config: ConfigReader, dataDir: string): ConfigHookInfo {
  const event = config.get(`hook ${CLONE_HOOK_ENTRY}`, 'event', null);
  const command = config.get(`hook ${CLONE_HOOK_ENTRY}`, 'command', null);
  return {
    present: !!(event || command),
    current: event?.value === HOOK_NAME && command?.value === configHookCommand(join(dataDir, CLONE_HOOK)),
  };
}
