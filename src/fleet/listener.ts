// A listener on a Unix socket of fleet-git's own that frames what arrives as
// the fleet observer does (fleet-observer-protocol.md): newline-separated JSON
// objects, lines that do not parse dropped, nothing ever answered.
// `doctor --live` points its probe session's hook client at one, so that
// nothing the probe does reaches the user's observer.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type Received = Record<string, unknown>;

/**
 * The longest Unix socket path fleet-git makes: macOS's (sun_path: 104 bytes,
 * its NUL included), the shorter of the two systems fleet runs on (Linux: 108),
 * so that a path that fits here fits on a Mac. A longer one is refused there
 * (on Linux, cut, and the socket made at the cut name).
 */
export const SOCKET_PATH_MAX = 103;

/** A new temporary folder (`prefix` and six characters) in which `socket` (a path relative to it) fits a Unix socket's path: in the system's temporary folder, or in /tmp under a long TMPDIR. */
export function socketTempDir(prefix: string, socket: string): string {
  const fits = Buffer.byteLength(join(tmpdir(), `${prefix}XXXXXX`, socket)) <= SOCKET_PATH_MAX;
  return mkdtempSync(join(fits ? tmpdir() : '/tmp', prefix));
}

export class EventListener {
  readonly events: Received[] = [];
  /** Lines that were not a JSON object. */
  readonly badLines: string[] = [];
  private readonly sockets = new Set<Socket>();
  private waiters: Array<() => void> = [];

  private constructor(
    readonly socketPath: string,
    private readonly server: Server,
    private readonly onEvent?: (e: Received) => void,
  ) {}

  /** Listens at `socketPath` (its folder made, an old socket file there replaced). */
  static start(socketPath: string, opts: { paused?: boolean; onEvent?: (e: Received) => void } = {}): Promise<EventListener> {
    if (Buffer.byteLength(socketPath) > SOCKET_PATH_MAX)
      return Promise.reject(new Error(`${socketPath} is too long for a Unix socket (${SOCKET_PATH_MAX} bytes at most)`));
    mkdirSync(dirname(socketPath), { recursive: true });
    rmSync(socketPath, { force: true });
    const server = createServer({ pauseOnConnect: !!opts.paused });
    const l = new EventListener(socketPath, server, opts.onEvent);
    server.on('connection', (c) => l.accept(c, !!opts.paused));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve(l));
    });
  }

  private accept(conn: Socket, paused: boolean): void {
    this.sockets.add(conn);
    conn.on('close', () => this.sockets.delete(conn));
    conn.on('error', () => {});
    if (paused) return;
    let buffer = '';
    conn.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        if (line.trim()) this.take(line);
      }
    });
  }

  private take(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = null;
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      this.onEvent?.(parsed as Received);
      this.events.push(parsed as Received);
    } else {
      this.badLines.push(line);
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Connections taken in and not yet closed (each is closed once its sender's end of file has been read). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Resolves once `done()` holds (checked at each event) or `ms` have passed; true when it held. */
  async waitUntil(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (done()) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Stops taking connections (the socket file goes with the server); those open are still read, as by an observer that closed its server and runs on. */
  stopListening(): void {
    this.server.close();
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) =>
      this.server.close(() => {
        rmSync(this.socketPath, { force: true });
        resolve();
      }),
    );
  }
}
