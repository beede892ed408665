// The types of scripts/memory-folder.mjs, for test/test-runner.test.ts.
export declare const MEMORY_FOLDER: string;
export declare function memoryFolderHere(): boolean;
