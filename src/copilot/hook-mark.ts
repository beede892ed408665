// How fleet-git tells its hook files from anyone else's, and where the
// user-level one lives. Nothing here but pure code (types aside): the hook
// client, bundled on its own, shares it with the CLI.
import { join } from 'node:path';
import type { UserPaths } from '../paths.js';

/** The text every command fleet-git writes ends with; it tells our file from anyone else's. */
export const HOOK_MARK = 'claude-code-fleet fleet-git';
/** What the fleet observer's own tools look for in a hook command. */
export const FLEET_MARK = 'claude-code-fleet';

/** The commands of a Copilot hook file (bash, command, powershell), or null when it is not a hook file's JSON. */
export function hookCommands(text: string): string[] | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  const hooks = (doc as { hooks?: unknown } | null)?.hooks;
  if (!hooks || typeof hooks !== 'object') return null;
  const out: string[] = [];
  for (const entries of Object.values(hooks as Record<string, unknown>)) {
    if (!Array.isArray(entries)) continue;
    for (const e of entries) {
      for (const k of ['bash', 'command', 'powershell']) {
        const v = (e as Record<string, unknown> | null)?.[k];
        if (typeof v === 'string') out.push(v);
      }
    }
  }
  return out;
}

/** Whether a hook file's commands include one fleet-git wrote. */
export function hasFleetGitCommand(commands: string[]): boolean {
  return commands.some((c) => c.includes(HOOK_MARK));
}

/** Whether a hook file's text is one fleet-git wrote: one of its commands carries the mark. */
export function isOurHookFile(text: string): boolean {
  return hasFleetGitCommand(hookCommands(text) ?? []);
}

/** The hook client's argument for the git hook's question "is this hook file fleet-git's?" (exit 0: yes). */
export const OURS_FLAG = '--ours';

/** Copilot's user-level hook folder, $COPILOT_HOME/hooks: read for every folder. */
export function userHooksDir(paths: Pick<UserPaths, 'copilotHome'>): string {
  return join(paths.copilotHome, 'hooks');
}

/** The user-level fleet hook file, $COPILOT_HOME/hooks/fleet.json. */
export function userHookFile(paths: Pick<UserPaths, 'copilotHome'>): string {
  return join(userHooksDir(paths), 'fleet.json');
}
