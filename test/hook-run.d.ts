export declare const CLIENT: string;
export interface Ran {
    code: number | null;
    stdout: string;
    stderr: string;
    ms: number;
}
/** Runs the client with `args` and `input` on stdin; `shell`: through bash, as a hook command line would. */
export declare function runClient(env: Record<string, string>, args: string[], input: string | Buffer, shell?: boolean): Promise<Ran>;
