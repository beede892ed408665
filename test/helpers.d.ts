import { type SpawnSyncReturns } from 'node:child_process';
export declare const ROOT: string;
/** Real payloads and transcript lines captured from Copilot CLI 1.0.102 (home folder rewritten to /home/dev). */
export declare const FIXTURES: string;
export declare const CLI: string;
export interface Sandbox {
    dir: string;
    home: string;
    env: Record<string, string>;
    /** Runs git with the sandbox environment. Returns stdout (trimmed). */
    git(cwd: string, ...args: string[]): string;
    /** Runs the built fleet-git CLI as a process. */
    cli(cwd: string, ...args: string[]): SpawnSyncReturns<string>;
    /** A new repository with one commit on branch main. */
    repo(name: string): string;
    /** Runs git without throwing, for exit codes and stderr. */
    run(cwd: string, args: string[]): SpawnSyncReturns<string>;
}
/** An isolated HOME, global git config, XDG folders and COPILOT_HOME, removed after the test file. */
export declare function sandbox(prefix?: string): Sandbox;
/** Every file, folder and link under `root` with its mode and content: two snapshots are equal only when nothing changed. */
export declare function snapshot(root: string, skip?: (rel: string) => boolean): Record<string, string>;
export declare function run(cmd: string, args: string[], opts: {
    cwd: string;
    env: Record<string, string>;
    input?: string;
}): SpawnSyncReturns<string>;
/** git's own churn (index, logs, packed refs, the last fetch and commit message): not fleet-git's doing, left out of snapshots. */
export declare const gitChurn: (rel: string) => boolean;
