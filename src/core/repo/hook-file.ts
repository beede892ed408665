// The Copilot hook file, .github/hooks/fleet.json: the one writer and the one
// reader of it, shared by enable, disable, status, scan and the Copilot adapter.
import { FLEET_MARK, hasFleetGitCommand, hookCommands } from '../../copilot/hook-mark.js';
import { readTemplate, render, shInQuotes, shQuote } from './templates.js';
import { CLIENT_FILE, HOOK_SCRIPT } from '../../paths.js';
import { EVENT_ENV } from '../../copilot/normalize.js';

/** Where a worktree's Copilot hook file is, relative to the worktree's top folder. */
export const HOOK_FILE_PATH = '.github/hooks/fleet.json';

export interface ClientLocation {
  /**
   * fleet-git's per-user data folder: it holds the stable copy of the hook
   * client (hook-client.cjs) and, in `node`, the node binary to use when none is
   * on Copilot's PATH. The hook file names only this folder, so it stays the
   * same across fleet-git upgrades and Node version switches.
   */
  dataDir: string;
}

export const NODE_FILE = 'node';
/** The templates the hook file is made of: its events, and each event's command. */
export const HOOK_FILE_TEMPLATE = 'fleet.json';
export const HOOK_COMMAND_TEMPLATE = 'hook-command.sh';

/** Where enable --force keeps a hook file it replaced (in the worktree's git dir), to put it back on disable. */
export const REPLACED_FILE = 'fleet-git-replaced-fleet.json';

/**
 * The format of the shims fleet-git writes into repositories: the hook file's
 * commands (templates/hook-command.sh) and the post-checkout hook
 * (templates/post-checkout). Raised only when their text must change: a
 * repository whose shims have an older format is outdated; a change to the
 * data folder's scripts or the hook client is not (core/repo/kit.ts).
 */
export const HOOK_FORMAT = 2;

/**
 * The shell command Copilot runs for one event (templates/hook-command.sh, its
 * last line), the shim: it sources the data folder's hook.sh, which writes the
 * event to the spool folder and starts the forwarder when none runs
 * (src/copilot/forwarder.ts), all without starting node on Copilot's path.
 */
export function hookCommand(event: string, where: ClientLocation): string {
  const text = readTemplate(HOOK_COMMAND_TEMPLATE).trim().split('\n').pop()!;
  return render(text, { data: shInQuotes(where.dataDir), event, format: String(HOOK_FORMAT) });
}

/** The whole hook file, as bytes to write. */
export function renderHookFile(where: ClientLocation): string {
  return hookFileWith((event) => hookCommand(event, where));
}

/**
 * The hook file for another hook client, fleet's own (`node <client> --tool
 * copilot`), which passes no event on: each command names its event in the
 * environment (EVENT_ENV), which the adapter's normalizePayload reads. It runs
 * `node` from Copilot's PATH and exits 0 when the client or node is gone; it
 * carries fleet's mark only, so it is fleet's file (upstream), not fleet-git's.
 */
export function renderClientHookFile(clientPath: string): string {
  const template = readTemplate('fleet-client-command.sh').trim();
  return hookFileWith((event) => render(template, { client: shQuote(clientPath), hint: EVENT_ENV, event }));
}

function hookFileWith(command: (event: string) => string): string {
  const doc = JSON.parse(readTemplate(HOOK_FILE_TEMPLATE)) as { hooks: Record<string, { bash: string }[]> };
  for (const [event, entries] of Object.entries(doc.hooks)) {
    for (const entry of entries) entry.bash = command(event);
  }
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export type HookFileKind =
  | 'absent'
  | 'ours' // written by fleet-git
  | 'upstream' // written by the upstream `fleet hooks install` (claude-code-fleet, not fleet-git)
  | 'foreign'; // anything else: the user's own file

export interface HookFileInfo {
  kind: HookFileKind;
  /** For ours: equal to what enable would write now. */
  current: boolean;
  /** For ours: the files in a data folder its commands run (the shim's hook.sh, an older file's hook client), to tell a stale file. */
  readonly clients: readonly string[];
  /** For ours: the hook format of its commands (1: written before the shim, by fleet-git 0.1.0 or earlier). */
  format?: number;
  /**
   * For upstream: every command names its event (renderClientHookFile, the
   * adapter's file for fleet's own hook client), so its events reach the observer.
   */
  hinted?: boolean;
}

/** No file: the one answer a scan gives thousands of times. */
const ABSENT: HookFileInfo = Object.freeze({ kind: 'absent', current: false, clients: Object.freeze([]) });
/** The end of a shim's command: fleet-git's mark, then the format. */
const FORMAT_AT_END = / fleet-git hook (\d+)$/;
const HINT = ` ${EVENT_ENV}=`;

/** The answer for the file enable writes now, kept: a scan of enabled repositories reads that same text thousands of times. */
let current: { text: string; info: HookFileInfo } | undefined;

/** Tells whose a hook file is, from its text (null: no file). */
export function classifyHookFile(text: string | null, expected: string): HookFileInfo {
  if (text === null) return ABSENT;
  if (text === expected) {
    if (current?.text !== expected) current = { text: expected, info: Object.freeze(classifyText(expected, expected)) };
    return current.info;
  }
  return classifyText(text, expected);
}

function classifyText(text: string, expected: string): HookFileInfo {
  const commands = hookCommands(text) ?? [];
  if (hasFleetGitCommand(commands)) {
    const ours = commands.filter((c) => hasFleetGitCommand([c]));
    const format = Math.min(...ours.map((c) => Number(FORMAT_AT_END.exec(c)?.[1] ?? 1)));
    // A shim runs the data folder's hook.sh; an older command, its hook client.
    const runs = format >= 2 ? HOOK_SCRIPT : CLIENT_FILE;
    const dirs = ours.map((c) => /^d='((?:[^']|'\\'')*)';/.exec(c)?.[1]?.replace(/'\\''/g, "'"));
    const clients = [...new Set(dirs.filter((d): d is string => !!d).map((d) => `${d}/${runs}`))];
    return { kind: 'ours', current: text === expected, clients, format };
  }
  if (commands.some((c) => c.includes(FLEET_MARK)))
    return { kind: 'upstream', current: false, clients: [], hinted: commands.every((c) => c.includes(HINT)) };
  return { kind: 'foreign', current: false, clients: [] };
}
