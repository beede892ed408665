export interface PtyResult {
    /** The exit code of the command (script -e passes it on; 128+n for a signal). */
    code: number | null;
    /** Everything the terminal showed, as written: \r\n line ends, escape codes, the echo of what was typed. */
    raw: string;
    /** `raw` with \r\n made \n. */
    text: string;
}
export interface PtySession {
    /** What the terminal has shown so far. */
    output(): string;
    /** Resolves once `pattern` shows up after the previous match; rejects, with the output so far, after `ms`. */
    waitFor(pattern: string | RegExp, ms?: number): Promise<void>;
    /** Types on the terminal (a line needs its "\n"). */
    type(text: string): void;
    /** The command's exit code and output once it has ended; rejects when it runs past the timeout (it is then killed). */
    done: Promise<PtyResult>;
}
export interface PtyOptions {
    cwd: string;
    env: Record<string, string>;
    /** Kill the command and fail after this long (default 30 s). */
    timeoutMs?: number;
}
/** Starts `argv` (the program and its arguments, never parsed by a shell) on a new pseudo-terminal. */
export declare function ptySpawn(argv: string[], opts: PtyOptions): PtySession;
/** Runs `argv` on a pseudo-terminal, answering each prompt (in order) as it shows up. */
export declare function ptyRun(argv: string[], opts: PtyOptions & {
    answers?: Array<[prompt: string | RegExp, answer: string]>;
}): Promise<PtyResult>;
