import { type Sandbox } from './helpers.js';
export interface WorkspaceOptions {
    /**
     * Enables fleet-git in a repository (later: `sb.cli(path, 'enable')`). When
     * given, `states/fleet-git` and `states/lefthook` are enabled, and lefthook is
     * then installed in `states/lefthook` so that it displaces fleet-git's hook.
     */
    enable?: (repoPath: string) => void;
    /** Installs upstream fleet's Copilot hook file; default writes `upstreamFleetJson()` untracked. */
    upstream?: (repoPath: string) => void;
    /** Make `locked/` unreadable (chmod 000). Default true. */
    locked?: boolean;
}
export interface Workspace {
    /** The folder to scan. */
    root: string;
    /** Outside `root`: the submodule's origin, the separate git dir, the symlink target. */
    outside: string;
    /** Absolute paths by role. */
    p: {
        solo: string;
        app: string;
        appWorktree: string;
        superproject: string;
        submodule: string;
        outer: string;
        inner: string;
        separate: string;
        separateGitDir: string;
        bare: string;
        stale: string;
        staleGitDir: string;
        broken: string;
        garbage: string;
        archived: string;
        nodeModulesRepo: string;
        loop: string;
        selfLink: string;
        linkedOutside: string;
        outsideRepo: string;
        locked: string;
        lockedRepo: string;
        fleetGit: string;
        upstream: string;
        tracked: string;
        lefthook: string;
    };
    /** True when `locked/` really cannot be read (false when running as root, where chmod 000 does not stop reads). */
    lockedUnreadable: boolean;
    /**
     * Gives `locked/` its permissions back. Must run before the sandbox is removed
     * (rm cannot enter a 000 folder as a user): node:test runs `after` hooks in the
     * order they were registered, so register `after(() => ws.unlock())` before calling sandbox().
     */
    unlock(): void;
}
/** What upstream `fleet hooks install --tools copilot` writes to `.github/hooks/fleet.json` (marked by `claude-code-fleet`). */
export declare function upstreamFleetJson(clientPath?: string): string;
/** A tracked (committed) fleet.json that is no fleet-git file: the user's own. */
export declare const TRACKED_FLEET_JSON: string;
export declare function buildWorkspace(sb: Sandbox, opts?: WorkspaceOptions): Workspace;
/** Every file and folder of the workspace and of its outside folder (git's churn left out), to compare before and after. */
export declare function workspaceSnapshot(ws: Workspace): Record<string, string>;
