// Sleeping without returning to the event loop: for the synchronous waits of
// locks, the hook client's reads and polls for a file.
const cell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` milliseconds. */
export function sleepSync(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}
