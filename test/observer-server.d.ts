export type Received = Record<string, unknown>;
export interface ObserverOptions {
    /** Accept connections and never read from them (a hung observer). */
    stuck?: boolean;
    /** Called on each parsed event as it arrives (e.g. to check the ppid while the agent runs). */
    onEvent?: (event: Received) => void;
}
export declare class TestObserver {
    readonly socketPath: string;
    private readonly server;
    private readonly opts;
    readonly events: Received[];
    readonly badLines: string[];
    private readonly sockets;
    private waiters;
    private constructor();
    static start(socketPath: string, opts?: ObserverOptions): Promise<TestObserver>;
    private accept;
    /** The first received event matching `pred`, waiting for it up to `timeoutMs`. */
    waitFor(pred: (e: Received) => boolean, timeoutMs?: number): Promise<Received>;
    close(): Promise<void>;
}
/**
 * The action text the observer shows for a PostToolUse, per the protocol doc:
 * its summarizer knows only Claude names and `file_path`/`command`/`pattern`.
 * Deliberately not our summarizeToolUse: it checks what the observer itself would show.
 */
export declare function observerSummary(toolName: unknown, toolInput: unknown): string;
