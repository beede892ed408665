import type { Sandbox } from './helpers.js';
export interface CopilotRecord {
    argv: string[];
    cwd: string;
    env: Record<string, string>;
    signals: string[];
}
/**
 * Puts the fake copilot in `<sandbox>/bin` and writes fleet's models.json
 * (`models` as is when a string, as JSON otherwise, no file when undefined).
 * `env` is the sandbox environment with that bin first on PATH; `log` exists
 * only once copilot was started.
 */
export declare function fakeCopilot(sb: Sandbox, models: unknown): {
    bin: string;
    log: string;
    env: {
        PATH: string;
        FAKE_COPILOT_LOG: string;
    };
    paths: import("../src/paths.js").UserPaths;
    recorded: () => CopilotRecord;
};
