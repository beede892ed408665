// The user-level hook file, $COPILOT_HOME/hooks/fleet.json: the same bytes as
// a repository's .github/hooks/fleet.json, read by Copilot for every folder.
// Copilot runs every hook source it finds, so with both files one event would
// run the hook client twice; the client, run from a repository's file, does
// nothing when this file is fleet-git's (userLevelReports in hook-client.ts),
// so the user level wins and each event reaches the observer once.
import { existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { removeEmptyUpTo, writeAtomic } from '../../fs/atomic.js';
import { readText } from '../../fs/read.js';
import { makeDataDir } from '../../fs/data-dir.js';
import { isUnder } from '../../paths.js';
import { copilotConfigFile, FolderIndex, readTrust, type CopilotConfigError } from '../../copilot/trust.js';
import type { RunContext } from '../repo/context.js';
import { classifyHookFile, type HookFileInfo } from '../repo/hook-file.js';
import { userHookFile, userHooksDir } from '../../copilot/hook-mark.js';
import { VSCODE_KEY, vscodeSessionsShown } from '../../copilot/vscode.js';
import { notAsWritten, type RepoState } from '../repo/state.js';

export { userHookFile, userHooksDir } from '../../copilot/hook-mark.js';

/** The file in the data folder that records the topmost folder fleet-git made for $COPILOT_HOME/hooks, so that disable --user may remove them when empty. */
const HOOKS_DIR_MADE_FILE = 'created-copilot-hooks-dir';

export function userHookState(ctx: RunContext): HookFileInfo {
  return classifyHookFile(readText(userHookFile(ctx.user)), ctx.hookFile);
}

/** Installs (or updates) the user-level hook file. Throws when someone else's file is there. */
export function installUserHooks(ctx: RunContext): string | null {
  const file = userHookFile(ctx.user);
  const state = userHookState(ctx);
  if (state.kind === 'foreign' || state.kind === 'upstream') {
    throw new Error(`${file} was not written by fleet-git: move it away, then run fleet-git enable --user again`);
  }
  if (state.kind === 'ours' && state.current) return null;
  const dir = userHooksDir(ctx.user);
  if (!existsSync(dir)) {
    const made = mkdirSync(dir, { recursive: true }) ?? dir; // the topmost folder made: $COPILOT_HOME itself, maybe
    makeDataDir(ctx.user.dataDir);
    writeAtomic(join(ctx.user.dataDir, HOOKS_DIR_MADE_FILE), `${made}\n`);
  }
  writeAtomic(file, ctx.hookFile, { mode: 0o644 });
  return `${state.kind === 'ours' ? 'updated' : 'installed'} the user-level hook file ${file}: Copilot sessions in every folder now report to the fleet observer`;
}

/** The topmost folder fleet-git made for the user-level hook file ($COPILOT_HOME/hooks, or $COPILOT_HOME itself), if it made one. */
export function userHooksMade(ctx: RunContext): string | null {
  return readText(join(ctx.user.dataDir, HOOKS_DIR_MADE_FILE))?.trim() || null;
}

/** Removes the user-level hook file if it is fleet-git's. Returns what changed, or null. */
export function removeUserHooks(ctx: RunContext): { change: string | null; note: string | null } {
  const file = userHookFile(ctx.user);
  const state = userHookState(ctx);
  if (state.kind === 'absent') return { change: null, note: null };
  if (state.kind !== 'ours') return { change: null, note: `left ${file} alone: it was not written by fleet-git` };
  unlinkSync(file);
  const dir = userHooksDir(ctx.user);
  const made = userHooksMade(ctx);
  if (made && isUnder(dir, made)) {
    removeEmptyUpTo(dir, made); // the folders fleet-git made for it, when nothing else is in them
    unlinkSync(join(ctx.user.dataDir, HOOKS_DIR_MADE_FILE));
  }
  return { change: `removed the user-level hook file ${file}`, note: null };
}

/** The status line on the user level, from the file as copilotView read it (null: it could not be read). */
export function userLevelLine(ctx: RunContext, s: HookFileInfo | null): string {
  const file = userHookFile(ctx.user);
  if (s === null)
    return `user-level hooks: ${file} cannot be read, so Copilot cannot use it either; this repository reports through its own hook file`;
  if (s.kind === 'ours')
    return `user-level hooks: installed (${file}${s.current ? '' : `, which ${notAsWritten(s.format)}: run fleet-git enable --user`}); they report every folder, so the repository's own hook file stays quiet`;
  if (s.kind === 'absent')
    return 'user-level hooks: not installed (fleet-git enable --user reports every folder); this repository reports through its own hook file';
  return `user-level hooks: ${file} is not fleet-git's (left alone); this repository reports through its own hook file`;
}

/** Which fleet hook files report a repository's sessions. With both, each event is still sent once (the user level's). */
export type HookLevel = 'repo' | 'user' | 'both' | 'none';

/** What Copilot makes of the repositories of one run, read once however many there are. */
export interface CopilotView {
  /** $COPILOT_HOME/config.json, where trustedFolders is. */
  configFile: string;
  /** trustedFolders, indexed: which listed folder covers a path. */
  trusted: FolderIndex;
  /** config.json as fleet-git will not rewrite it (not valid JSON, ...): then enable --trust refuses, and advice says to fix it first. */
  configProblem: CopilotConfigError | null;
  /** The user-level fleet hook file is fleet-git's (installed, maybe from another version). */
  userLevel: boolean;
  /** That file as read (null: it could not be read). */
  userHook: HookFileInfo | null;
  /** VS Code's agent sessions show: the config file's `vscode`, as the hook client reads it. */
  vscode: boolean;
}

/** Reads Copilot's config.json and the user-level hook file, once. Never throws: what cannot be read counts as absent. */
export function copilotView(ctx: RunContext): CopilotView {
  let userHook: HookFileInfo | null = null;
  try {
    userHook = userHookState(ctx);
  } catch {
    /* unreadable: Copilot cannot read it either */
  }
  const trust = readTrust(ctx.user);
  return {
    configFile: copilotConfigFile(ctx.user),
    trusted: new FolderIndex(trust.folders),
    configProblem: trust.problem,
    userLevel: userHook?.kind === 'ours',
    userHook,
    vscode: vscodeSessionsShown(ctx.user.configFile),
  };
}

function hookLevel(s: RepoState, userLevel: boolean): HookLevel {
  const repoLevel = s.main?.enabled === true || s.worktrees.some((w) => w.enabled);
  return repoLevel ? (userLevel ? 'both' : 'repo') : userLevel ? 'user' : 'none';
}

/** The `copilot` key of status --json and of each usable scan row. */
export function copilotJson(v: CopilotView, s: RepoState): { trusted: boolean; hooks: HookLevel } {
  return { trusted: v.trusted.by(s.path) !== null, hooks: hookLevel(s, v.userLevel) };
}

/** The line `status` and `doctor` print about VS Code's agent, from CopilotView's `vscode`. */
export function vscodeLine(ctx: RunContext, v: CopilotView): string {
  const file = ctx.user.configFile;
  return v.vscode
    ? `VS Code's agent runs the same hook files: its sessions show as cards marked VSCode (${VSCODE_KEY}: false in ${file} keeps them out; its "Copilot CLI" sessions run the CLI's runtime and show as Copilot CLI sessions)`
    : `VS Code's agent sessions are kept out (${VSCODE_KEY}: false in ${file}): VS Code still runs the hook files, and the forwarder drops their events`;
}
