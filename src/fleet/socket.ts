// Hands events to the fleet observer: NDJSON lines on its Unix socket.
// The observer never answers, so "sent" means the line reached the kernel
// (a LineSender's line: into a connection still there).
// With no observer (no socket file: ENOENT; a stale one: ECONNREFUSED) this
// gives up at once; with one that accepts and never reads, within `timeoutMs`.
// Never throws, never rejects.
//
// sendEvent sends one line on a connection of its own: the hook client of a
// hook file written before the spool runs it on Copilot's path, where loading
// `net` (and with it the whole stream stack) and building a net.Socket costs
// about 3 ms, more than a tenth of starting Node. So that line goes out
// through Node's own pipe handle (the object net.Socket wraps), about 0.3 ms;
// when that handle is not there in the shape expected (another Node version,
// --throw-deprecation), through `net`. A LineSender, the forwarder's, sends
// consecutive lines on one connection, through `net`: it runs off Copilot's
// path and starts once for many events.
import { statSync } from 'node:fs';
import type { Socket } from 'node:net';

const SEND_TIMEOUT_MS = 300;

/**
 * The longest line sent, its newline included; a longer one is not sent at all
 * (normalizePayload keeps every event well below it). A line this size goes out
 * in one write that a fresh connection's kernel buffer takes whole (Linux's
 * default for a Unix socket is 208 KiB), so the give-up timer cannot cut one;
 * and giving up closes the connection without sending what is still queued,
 * so the observer, which needs a line's newline, never gets a part of a line.
 */
export const LINE_MAX = 64 * 1024;

export type Transport = 'auto' | 'net';

/** One JSON line to the observer socket. Resolves true when the whole line was written. */
export function sendEvent(
  socketPath: string,
  event: unknown,
  timeoutMs = SEND_TIMEOUT_MS,
  transport: Transport = 'auto',
): Promise<boolean> {
  const line = lineOf(event);
  if (line === null) return Promise.resolve(false);
  return (transport === 'auto' && sendViaPipeHandle(socketPath, line, timeoutMs)) || sendViaNet(socketPath, line, timeoutMs);
}

/** Settles once: clears the give-up timer and closes whatever is open. */
function settle(timeoutMs: number, close: () => void, resolve: (ok: boolean) => void) {
  let done = false;
  const finish = (ok: boolean) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    // Written data already sits in the observer's receive queue: closing now
    // loses nothing (the observer then reads an end of file), and waiting for
    // its side to close would hang on an observer that never reads.
    try {
      close();
    } catch {
      /* ignore */
    }
    resolve(ok);
  };
  // Given up only after the I/O that was ready when the timer came due has been run: a process that was
  // stopped (SIGSTOP, a machine asleep) or starved of CPU for longer than the limit finds its timer due and
  // its connect done at once, and node runs due timers before I/O callbacks, so giving up there lost a
  // line the observer was taking. setImmediate runs after this turn's I/O.
  const timer = setTimeout(() => setImmediate(() => finish(false)), timeoutMs);
  return finish;
}

function sendViaNet(socketPath: string, line: string, timeoutMs: number): Promise<boolean> {
  // Loaded here, not at the top: the usual path never needs it. The limit starts with the connect, as the
  // fast path's does.
  return import('node:net').then(
    ({ createConnection }) =>
      new Promise((resolve) => {
        let sock: Socket | undefined;
        const finish = settle(timeoutMs, () => sock?.destroy(), resolve);
        try {
          sock = createConnection(socketPath);
        } catch {
          return finish(false);
        }
        sock.on('error', () => finish(false));
        // write's callback fires once the line is in the kernel: no shutdown round trip needed.
        sock.on('connect', () => sock!.write(line, (err) => finish(!err)));
      }),
    () => false,
  );
}

// The parts of Node's internal pipe binding used here (lib/net.js uses the same).
interface PipeHandle {
  connect(req: object, path: string): number;
  writeUtf8String(req: object, data: string): number;
  writeQueueSize: number;
  close(): void;
}
interface PipeBinding {
  Pipe: new (type: number) => PipeHandle;
  PipeConnectWrap: new () => { oncomplete?: (status: number) => void };
  WriteWrap: new () => { handle?: PipeHandle; oncomplete?: (status: number) => void };
  socketType: number;
}

/** Node's pipe binding, or null when it is not there in the shape expected (another Node version, --throw-deprecation). */
function pipeBinding(): PipeBinding | null {
  try {
    const binding = (process as unknown as { binding?: (name: string) => Record<string, unknown> }).binding;
    if (typeof binding !== 'function') return null;
    const pipe = binding('pipe_wrap');
    const stream = binding('stream_wrap');
    const constants = pipe.constants as { SOCKET?: unknown } | undefined;
    if (
      typeof pipe.Pipe !== 'function' ||
      typeof pipe.PipeConnectWrap !== 'function' ||
      typeof stream.WriteWrap !== 'function' ||
      typeof constants?.SOCKET !== 'number'
    )
      return null;
    return {
      Pipe: pipe.Pipe,
      PipeConnectWrap: pipe.PipeConnectWrap,
      WriteWrap: stream.WriteWrap,
      socketType: constants.SOCKET,
    } as PipeBinding;
  } catch {
    return null;
  }
}

/** The fast path; null when the pipe handle is unavailable (then the caller uses net). */
function sendViaPipeHandle(socketPath: string, line: string, timeoutMs: number): Promise<boolean> | null {
  const b = pipeBinding();
  if (!b) return null;
  let handle: PipeHandle;
  try {
    handle = new b.Pipe(b.socketType);
    if (typeof handle.connect !== 'function' || typeof handle.writeUtf8String !== 'function') return null;
  } catch {
    return null;
  }
  return new Promise((resolve) => {
    const finish = settle(timeoutMs, () => handle.close(), resolve);
    try {
      const req = new b.PipeConnectWrap();
      req.oncomplete = (status) => {
        if (status < 0) return finish(false); // ENOENT, ECONNREFUSED: no observer
        try {
          const write = new b.WriteWrap();
          write.handle = handle;
          write.oncomplete = (st) => finish(st >= 0);
          if (handle.writeUtf8String(write, line) < 0) return finish(false);
          // Usually the kernel takes the whole line at once; otherwise oncomplete
          // fires when it has, or the timer gives up on an observer that never reads.
          if (handle.writeQueueSize === 0) finish(true);
        } catch {
          finish(false);
        }
      };
      if (handle.connect(req, socketPath) < 0) finish(false);
    } catch {
      finish(false);
    }
  });
}

/** The line of one event, null when it cannot be made or is longer than LINE_MAX. */
function lineOf(event: unknown): string | null {
  try {
    const line = JSON.stringify(event) + '\n';
    return line.length > LINE_MAX || Buffer.byteLength(line) > LINE_MAX ? null : line;
  } catch {
    return null;
  }
}

/**
 * How long a LineSender waits for the kernel to take a line: long, since an observer starved of CPU on
 * a loaded machine may read nothing for seconds, and a line given up is lost (sent again on another
 * connection, it could pass the lines still queued on this one).
 */
const WRITE_WAIT_MS = 30_000;
/** How often a LineSender looks at the socket path while a line waits for the kernel. */
const WATCH_MS = 100;

/**
 * Which socket a path names (device, inode and the time it was made: an inode number freed by one
 * observer's socket may come back with the next one's); null when it names none.
 */
function socketAt(path: string): string | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st?.isSocket() ? `${st.dev}:${st.ino}:${st.ctimeMs}` : null;
  } catch {
    return null;
  }
}

/**
 * The forwarder's sender: its lines share one connection, kept until end()
 * while its observer is there, and so reach the observer in the order sent
 * (the observer reads each connection's lines as they come; lines of two
 * connections may interleave).
 * A backlog of thousands of events is one connection, not one each, which an
 * observer's accept queue could not take at once (connect fails with EAGAIN
 * when it is full). A connection not made within `timeoutMs` gives the line
 * up, as sendEvent's.
 *
 * A line counts as sent once the kernel has taken it whole into a connection
 * that is still there. The connection is kept only while its observer is:
 * it is read (the observer never answers), so an end of file or a reset (the
 * observer exited or was killed) ends it at once; and before each line the
 * socket path must still name the socket it was made to (an observer that
 * closed its server may keep its connections open while a new one listens at
 * the path). A line the kernel refused or has not taken whole when the
 * connection ended (EPIPE: the observer had gone; or a new observer took the
 * path's place while the old one did not read) cannot have reached an
 * observer, whose lines need their newline: it is sent once more, on a new
 * connection, before any later line. A line the kernel had taken may sit
 * unread in a dead observer's buffer: it is not sent again, since the
 * protocol has no acknowledgement and the observer may have shown it (see
 * docs/how-it-works.md). A line the kernel has not taken within WRITE_WAIT_MS
 * (an observer that does not read) ends the connection and is given up.
 */
export class LineSender {
  private conn: Connection | null = null;
  private aborted = false;

  async send(socketPath: string, event: unknown, timeoutMs = SEND_TIMEOUT_MS): Promise<boolean> {
    const line = lineOf(event);
    if (line === null) return false;
    for (let tries = 0; tries < 2 && !this.aborted; tries++) {
      if (this.conn && !this.conn.current(socketPath)) this.end();
      const conn = this.conn ?? (await Connection.open(socketPath, timeoutMs));
      if (!conn) return false;
      if (this.aborted) {
        conn.sock.destroy();
        return false;
      }
      this.conn = conn;
      const written = await conn.write(line, WRITE_WAIT_MS);
      if (written === true) return true;
      conn.sock.destroy();
      if (this.conn === conn) this.conn = null;
      if (written === 'late') return false;
    }
    return false;
  }

  /** Ends the connection once what was written has gone. */
  end(): void {
    this.conn?.sock.end();
    this.conn = null;
  }

  /** Closes the connection at once and sends nothing more: a line still waiting for the kernel is given up. */
  abort(): void {
    this.aborted = true;
    this.conn?.sock.destroy();
    this.conn = null;
  }
}

/** A connection to an observer, and the socket it was made to. */
class Connection {
  /** Its observer closed it (an end of file, a reset) or it was closed here. */
  private closed = false;

  private constructor(
    readonly sock: Socket,
    private readonly path: string,
    private readonly socket: string,
  ) {
    sock.on('end', () => (this.closed = true));
    sock.on('close', () => (this.closed = true));
    sock.on('error', () => (this.closed = true));
    sock.resume(); // read, so that an end of file is seen; the observer sends nothing else
  }

  /** A connection to the observer at `socketPath`, null when there is none within `timeoutMs`. */
  static async open(socketPath: string, timeoutMs: number): Promise<Connection | null> {
    // The path looked at before and after the connect: a new observer may take its place meanwhile, and then
    // which of the two took the connection is not known.
    for (let tries = 0; tries < 3; tries++) {
      const before = socketAt(socketPath);
      const sock = await connect(socketPath, timeoutMs);
      if (!sock) return null;
      if (before !== null && socketAt(socketPath) === before) return new Connection(sock, socketPath, before);
      sock.destroy();
    }
    return null;
  }

  /** Whether it still leads to the observer at `socketPath`. */
  current(socketPath: string): boolean {
    return !this.closed && socketPath === this.path && socketAt(this.path) === this.socket;
  }

  /**
   * Writes a line: true once the kernel has it; 'late' when it has not after
   * `timeoutMs` (an observer that does not read: part of it may have gone, so it
   * is not written again); false when it cannot have reached the observer (an
   * error, the connection ended, another observer in the path's place).
   */
  write(line: string, timeoutMs: number): Promise<boolean | 'late'> {
    const sock = this.sock;
    let written = (_ok: boolean) => {};
    sock.write(line, (err) => written(!err)); // called back on a later tick
    // Usually the kernel takes the whole line at once; a write it refused at once (EPIPE) leaves the socket
    // errored, and one after the observer's end of file leaves it destroyed.
    if (sock.writableLength === 0 && !sock.destroyed && !sock.errored) return Promise.resolve(true);
    return new Promise((resolve) => {
      let settled = false;
      const done = (r: boolean | 'late') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        sock.off('close', ended);
        resolve(r);
      };
      const ended = () => done(false);
      written = done;
      // As settle's: given up only after the I/O that was ready when the limit came due.
      const timer = setTimeout(() => setImmediate(() => done('late')), timeoutMs);
      const watch = setInterval(() => this.current(this.path) || done(false), WATCH_MS);
      sock.once('close', ended);
    });
  }
}

/** A connection to the observer, null when there is none within `timeoutMs`. */
async function connect(socketPath: string, timeoutMs: number): Promise<Socket | null> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve) => {
    let sock: Socket;
    const finish = settle(
      timeoutMs,
      () => {},
      (ok) => {
        if (!ok) sock?.destroy();
        resolve(ok ? sock : null);
      },
    );
    try {
      sock = createConnection(socketPath);
    } catch {
      return finish(false);
    }
    sock.on('error', () => finish(false));
    sock.once('connect', () => finish(true));
  });
}
