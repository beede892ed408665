// Hands one event to the fleet observer: one NDJSON line on its Unix socket.
// The observer never answers, so "sent" means the line reached the kernel.
// With no observer (no socket file: ENOENT; a stale one: ECONNREFUSED) this
// gives up at once; with one that accepts and never reads, within `timeoutMs`.
// Never throws, never rejects.
import { createConnection, type Socket } from 'node:net';

export const SEND_TIMEOUT_MS = 300;

/** One JSON line to the observer socket. Resolves true when the whole line was written. */
export function sendEvent(socketPath: string, event: unknown, timeoutMs = SEND_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let line: string;
    try {
      line = JSON.stringify(event) + '\n';
    } catch {
      resolve(false);
      return;
    }
    let sock: Socket | undefined;
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // Written data already sits in the observer's receive queue: closing now loses nothing,
      // and waiting for its side to close would hang on an observer that never reads.
      try { sock?.destroy(); } catch { /* ignore */ }
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    try {
      sock = createConnection(socketPath);
      sock.on('error', () => finish(false));
      sock.on('connect', () => sock!.end(line, () => finish(true)));
    } catch {
      finish(false);
    }
  });
}
