// VS Code's agent runs the hook files fleet-git writes too (it reads
// .github/hooks/*.json and runs each entry's `bash`): whether the user's
// config file lets its sessions show. Read by the hook client, which is
// self-contained, so json5 is bundled into it here rather than loaded from
// node_modules as src/json5.ts does for the command.
import { readFileSync } from 'node:fs';
import JSON5 from 'json5';

/** The config file's key: `vscode: false` keeps VS Code's agent sessions out of the observer (default true). */
export const VSCODE_KEY = 'vscode';

/**
 * Whether VS Code's agent sessions show, by the config file at `configFile`:
 * yes unless it sets `vscode: false`. A missing, unreadable or invalid file
 * gives the default (`fleet-git config` and `doctor` say what is wrong with it).
 */
export function vscodeSessionsShown(configFile: string): boolean {
  let text: string;
  try {
    text = readFileSync(configFile, 'utf8');
  } catch {
    return true;
  }
  if (!text.includes(VSCODE_KEY)) return true;
  try {
    const doc: unknown = JSON5.parse(text);
    return !(doc !== null && typeof doc === 'object' && (doc as Record<string, unknown>)[VSCODE_KEY] === false);
  } catch {
    return true;
  }
}

/** The shell VS Code's hook executor runs a command with on Linux and macOS (Node's `shell: true`). */
export const VSCODE_SHELL = '/bin/sh';

/** The environment VS Code's hook executor gives a hook: the editor's own, less every VSCODE_*, GITHUB_* and COPILOT_* variable (any case). */
export function vscodeHookEnv<T>(env: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^(vscode|github|copilot)_/i.test(k)));
}
