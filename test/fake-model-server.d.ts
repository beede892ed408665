export declare const SCRIPT: {
    command: string;
    missingPath: string;
    finalText: string;
};
export interface FakeModelOptions {
    model?: string;
    /** Wait before the final answer (the transcript lags most when the answer is slow). */
    finalDelayMs?: number;
}
export interface FakeModel {
    /** The base URL to give Copilot as COPILOT_PROVIDER_BASE_URL (ends in /v1). */
    baseUrl: string;
    /** Every chat request received, parsed. */
    requests: Array<Record<string, unknown>>;
    close(): Promise<void>;
}
export declare function startFakeModel(opts?: FakeModelOptions): Promise<FakeModel>;
