// The forwarder: hands the events the hook command spooled to the observer,
// in the order Copilot fired them, and exits once no event came for a while.
//
// The hook command (templates/hook.sh, which each hook file command sources) runs no node: it writes each
// event into the spool folder (mode 0700, files 0600) as one file,
// `<EPOCHREALTIME digits>.<hook pid>.ev` (bash 3.2, macOS's, has no
// EPOCHREALTIME: `n.<hook pid>.ev`, or `n.<pid>.<random>.ev` while a file of
// the same PID still waits, the PID having come back after a wrap), holding
// the payload and then the hook's facts, each ended by a NUL byte (bash strips
// NULs from the payload):
//
//   payload, event, ppid, pid, HOME, COPILOT_HOME, COPILOT_HOOK_DIR,
//   COPILOT_MODEL, FLEET_MODEL_NAME, TERM_PROGRAM, ITERM_SESSION_ID,
//   FLEET_GIT_OBSERVER_DIR, FLEET_GIT_PROBE, TRAILER
//
// A file without the trailer is still being written (or its writer died: it is
// removed after ORPHAN_MS). Then the hook reads `forwarder.pid` and starts this
// process (detached, its own process group, no stdio) when that process is not
// alive or, where /proc tells, is neither a forwarder (its name, below, as the
// kernel keeps it: 15 characters) nor the shell that starts one; it never
// waits for it. With no `forwarder.pid` at all (the last forwarder left), only
// the hook that creates it (bash's noclobber: created exclusively, holding the
// hook's pid until it has started the forwarder) starts one: sessions whose
// hooks fire at once start one forwarder, not one each. An empty one (a claim
// that could not be written) is removed, and the next event starts one.
//
// One forwarder per spool folder: it holds `forwarder.sock`, a Unix socket it
// listens on and never reads (a killed forwarder's socket refuses connections:
// the next one removes it). It writes its pid to `forwarder.pid` for the hook.
// Before it exits it removes that file and looks at the spool once more, so an
// event whose hook still saw it alive is not left behind: a hook that reads the
// file after that starts a new forwarder, which waits for the lock. It first
// waits for the hook that started it to be gone (STARTER_VAR), whose own write
// to that file could otherwise come after it and name a process long gone.
//
// Why three parts and not one (looked at 2026-12-01): the socket lock alone is
// exact; the hook's claim of `forwarder.pid` only saves a node start per event
// burst, and its "empty and the oldest event over 5 s" rule only judges a claim
// whose hook died before it started a forwarder. A claim by `mkdir` of a folder
// the forwarder writes its pid into would keep all three: a claim judged
// abandoned can be wrong (a hook stalled past the limit), so the socket lock
// still makes one forwarder; the abandoned case still needs its rule; and the
// hook still reads a pid to tell a live forwarder. It would also start a process
// (bash has no `mkdir` builtin, where noclobber needs none) on Copilot's path
// each time a forwarder is started, and two (`rm -r`, `mkdir`) to take over a
// killed one's folder.
//
// Per session, events are delivered one after another in spool order; an
// agentStop whose final message is not in the transcript yet holds back only
// its own session's later events. Each file is removed just before its event
// is sent, one event at a time: a killed forwarder loses at most that one.
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { constants } from 'node:os';
import { isAlive, NO_ENTRY_OK } from '../fs/atomic.js';
import { pipeBinding, type PipeHandle } from '../fleet/socket.js';
import { OBSERVER_DIR_VAR } from '../paths.js';
import { PROBE_VAR } from './normalize.js';
import { awaitFinalMessage, deliver, prepare, stopWaitMs, type HookRun, type Prepared } from './hook-event.js';

/** argv[2] of the forwarder, argv[3] its spool folder. */
export const FORWARD_FLAG = '--forward';
/** The last field of a complete spool file (the hook command writes it last). */
export const SPOOL_TRAILER = 'fleet-git-event-1';
const SPOOL_FIELDS = 14;
/** The variables the hook command writes, in its order (the normalizer and the user's paths read them). */
const SPOOL_ENV = [
  'HOME',
  'COPILOT_HOME',
  'COPILOT_HOOK_DIR',
  'COPILOT_MODEL',
  'FLEET_MODEL_NAME',
  'TERM_PROGRAM',
  'ITERM_SESSION_ID',
  OBSERVER_DIR_VAR,
  PROBE_VAR,
] as const;
export const PID_FILE = 'forwarder.pid';
const LOCK_FILE = 'forwarder.sock';
/** How long the forwarder stays after the last event (IDLE_MS_VAR overrides, for tests and doctor's one test event). */
export const IDLE_MS = 10_000;
export const IDLE_MS_VAR = 'FLEET_GIT_FORWARDER_IDLE_MS';
/** A spool file without its trailer this old lost its writer. */
const ORPHAN_MS = 60_000;
/** How long a new forwarder waits for one that is leaving to let go of the lock. */
const LOCK_WAIT_MS = 3000;
/**
 * The pid of the hook that started this forwarder (hook.sh sets it to its own `$$`). That hook writes the pid
 * of the shell it started this in to forwarder.pid just after the start; stalled (a loaded machine, a laptop
 * put to sleep), it may write it after this forwarder has gone, leaving a pid file that names a process that
 * is gone or, once that pid comes back, another one. So before it leaves, a forwarder waits for its starter to
 * have gone (at most STARTER_WAIT_MS: a pid that came back is not waited for longer).
 */
export const STARTER_VAR = 'FLEET_GIT_STARTER';
const STARTER_WAIT_MS = 10_000;
const { errno } = constants;

function idleMs(): number {
  const n = Number(process.env[IDLE_MS_VAR]);
  return Number.isFinite(n) && n >= 50 && n <= 600_000 ? n : IDLE_MS;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves once the hook that started this forwarder has gone (see STARTER_VAR), at once when none is named. */
async function starterGone(): Promise<void> {
  const pid = Number(process.env[STARTER_VAR]);
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return;
  const deadline = Date.now() + STARTER_WAIT_MS;
  while (isAlive(pid) && Date.now() < deadline) await sleep(10);
}

function remove(name: string): void {
  try {
    unlinkSync(name);
  } catch {
    /* gone already */
  }
}

/** A spool file's hook run; 'incomplete' while its trailer is missing. */
export function parseSpooled(buf: Buffer): HookRun | 'incomplete' {
  const parts = buf.toString('utf8').split('\0');
  if (parts.length < SPOOL_FIELDS + 1 || parts[parts.length - 1] !== '' || parts[parts.length - 2] !== SPOOL_TRAILER) return 'incomplete';
  const f = parts.slice(parts.length - SPOOL_FIELDS, parts.length - 1);
  const [event, ppid, pid, ...values] = f;
  const env: Record<string, string> = {};
  SPOOL_ENV.forEach((k, i) => {
    if (values[i]) env[k] = values[i]!;
  });
  const num = (s: string | undefined) => (s && /^[1-9]\d*$/.test(s) ? Number(s) : null);
  return {
    event: event || undefined,
    text: parts.slice(0, parts.length - SPOOL_FIELDS).join('\0'),
    env,
    pid: num(pid),
    ppid: () => num(ppid),
  };
}

/**
 * Spool order: the hook's clock in the file name (microseconds), else (bash
 * 3.2) the file's time, then the time Copilot gave the event. The file's time
 * is as fine as the kernel keeps it (on Linux, one clock tick: 4 ms at 250 Hz),
 * too coarse alone for one session's events in a burst, and a name's PID says
 * nothing of order once PIDs wrap.
 */
function orderOf(name: string, ev: Prepared['ev']): [number, number] {
  const digits = name.slice(0, name.indexOf('.'));
  if (/^\d+$/.test(digits)) return [Number(digits), 0];
  return [(statSync(name, NO_ENTRY_OK)?.mtimeMs ?? 0) * 1000, ev.timestamp];
}

/** The lock held: closing it removes the socket file. */
interface Held {
  close(): void;
}
type Listen = Held | 'busy' | 'stale' | 'error';

const uvError = (name: 'EADDRINUSE' | 'ECONNREFUSED' | 'ENOENT') => -(errno[name] ?? Number.NaN);

/**
 * The lock through Node's pipe handle, as the events are sent: `import('node:net')`
 * (the ES module loader, then net and the stream stack) cost a cold forwarder
 * 9 to 13 ms of CPU before its first event, against 0.5 ms for this: a fifth
 * of what it does from its start to its first send (measured 2026-12-01, in
 * CPU time, the machine loaded). Null when the handle is not there in the
 * shape expected (then `net`).
 */
function tryListenFast(): Promise<Listen> | null {
  const b = pipeBinding();
  if (!b) return null;
  let server: PipeHandle;
  try {
    server = new b.Pipe(b.serverType);
    if (typeof server.bind !== 'function' || typeof server.listen !== 'function') return null;
  } catch {
    return null;
  }
  try {
    server.onconnection = (_status, client) => client?.close();
    const bound = server.bind(LOCK_FILE);
    if (bound === 0 && server.listen(16) === 0) return Promise.resolve({ close: () => server.close() });
    server.close(); // removes the socket file only when it bound it
    if (bound !== uvError('EADDRINUSE')) return Promise.resolve('error');
  } catch {
    return Promise.resolve('error');
  }
  return new Promise((resolve) => {
    const refused = (status: number) => status === uvError('ECONNREFUSED') || status === uvError('ENOENT');
    try {
      const probe = new b.Pipe(b.socketType);
      const req = new b.PipeConnectWrap();
      req.oncomplete = (status) => {
        probe.close();
        resolve(status === 0 ? 'busy' : refused(status) ? 'stale' : 'error');
      };
      const started = probe.connect(req, LOCK_FILE);
      if (started < 0) {
        probe.close();
        resolve(refused(started) ? 'stale' : 'error');
      }
    } catch {
      resolve('error');
    }
  });
}

async function tryListen(): Promise<Listen> {
  const fast = tryListenFast();
  if (fast) return fast;
  const { createConnection, createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer((c) => c.destroy());
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EADDRINUSE') return resolve('error');
      const probe = createConnection(LOCK_FILE);
      probe.once('connect', () => {
        probe.destroy();
        resolve('busy');
      });
      probe.once('error', (err: NodeJS.ErrnoException) =>
        resolve(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'stale' : 'error'),
      );
    });
    server.listen(LOCK_FILE, () => resolve(server));
  });
}

/** The spool folder's lock, waiting for a forwarder that is leaving; null when another keeps it. */
async function takeLock(): Promise<Held | null> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let stale = 0; ;) {
    const r = await tryListen();
    if (typeof r !== 'string') return r;
    if (r === 'error') return null;
    if (r === 'stale') {
      if (++stale > 3) return null;
      remove(LOCK_FILE);
      continue;
    }
    if (Date.now() >= deadline) return null;
    await sleep(25);
  }
}

function writePid(): void {
  try {
    const tmp = `${PID_FILE}.${process.pid}`;
    writeFileSync(tmp, String(process.pid), { mode: 0o600 });
    renameSync(tmp, PID_FILE);
  } catch {
    /* the hook then starts another, which finds the lock taken */
  }
}

function readPid(): string | null {
  try {
    return readFileSync(PID_FILE, 'utf8').trim();
  } catch {
    return null;
  }
}

interface Item {
  name: string;
  order: [number, number];
  run: Prepared;
}

export async function forward(spool: string): Promise<void> {
  try {
    process.chdir(spool);
  } catch {
    return;
  } // relative names: a socket path has at most 103 bytes on a Mac (SOCKET_PATH_MAX)
  process.title = 'fleet-git-forwarder'; // the hook command looks for it in /proc/PID/comm
  // Its own process group already; a terminal's Ctrl-C or hang-up is not for it.
  for (const sig of ['SIGINT', 'SIGHUP', 'SIGPIPE'] as const) process.on(sig, () => {});
  let starterSeenGone = false;
  let lock = await takeLock();
  if (!lock) {
    // Another forwarder keeps the spool. Once the hook that started this one has written its pid there, that
    // one puts its own back while it runs; when it left before that write, this one takes the lock after it.
    await starterGone();
    starterSeenGone = true;
    lock = await takeLock();
    if (!lock) return;
  }
  const ino = statSync(LOCK_FILE, NO_ENTRY_OK)?.ino;
  const ownsLock = () => ino !== undefined && statSync(LOCK_FILE, NO_ENTRY_OK)?.ino === ino;
  writePid();

  const idle = idleMs();
  const known = new Set<string>();
  const chains = new Map<string, Promise<void>>();
  let busy = 0;
  let sending: Promise<void> = Promise.resolve();
  let wake = () => {};
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch('.', () => wake());
    watcher.on('error', () => {
      watcher = undefined;
    });
  } catch {
    /* polled instead */
  }

  /** One event at a time: its file goes, then its line is sent. */
  const send = (item: Item) =>
    (sending = sending.then(
      async () => {
        remove(item.name);
        known.delete(item.name); // a name comes back (bash 3.2's, once its PID does)
        await deliver(item.run.ev, item.run.paths);
      },
      () => {},
    ));

  const enqueue = (item: Item) => {
    busy++;
    const sid = item.run.ev.session_id;
    const next = (chains.get(sid) ?? Promise.resolve())
      .then(async () => {
        if (item.run.waitFor) await awaitFinalMessage(item.run.ev, item.run.waitFor, stopWaitMs(process.env));
        await send(item);
      })
      .catch(() => {})
      .finally(() => {
        busy--;
        if (chains.get(sid) === next) chains.delete(sid);
        wake();
      });
    chains.set(sid, next);
  };

  /** Takes in the complete files not seen yet, oldest first; true when there were any. */
  const scan = (): boolean => {
    let names: string[];
    try {
      names = readdirSync('.');
    } catch {
      return false;
    }
    const fresh: Item[] = [];
    for (const name of names) {
      if (!name.endsWith('.ev') || known.has(name)) continue;
      let buf: Buffer;
      try {
        buf = readFileSync(name);
      } catch {
        continue;
      }
      const run = parseSpooled(buf);
      if (run === 'incomplete') {
        const st = statSync(name, NO_ENTRY_OK);
        if (st && Date.now() - st.mtimeMs > ORPHAN_MS) remove(name);
        continue;
      }
      known.add(name);
      let prepared: Prepared | null = null;
      try {
        prepared = prepare(run);
      } catch {
        /* not an event */
      }
      if (!prepared) {
        remove(name);
        known.delete(name);
        continue;
      }
      fresh.push({ name, order: orderOf(name, prepared.ev), run: prepared });
    }
    fresh.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || (a.name < b.name ? -1 : 1));
    for (const item of fresh) enqueue(item);
    return fresh.length > 0;
  };

  let last = Date.now();
  for (;;) {
    if (scan()) last = Date.now();
    if (!ownsLock()) break; // another forwarder took a lock it thought stale: leave it the spool
    // A hook that saw no forwarder alive (a stale pid there) wrote the pid of the
    // one it started, which finds the lock taken and leaves: the next hooks would
    // each start another. The write wakes this one, which puts its own back (a
    // pid file that is gone stays gone: the spool may be being removed).
    const named = readPid();
    if (named !== null && named !== String(process.pid)) writePid();
    if (busy === 0 && Date.now() - last >= idle) {
      if (!starterSeenGone) {
        // The hook that started this one may still be about to write its shell's pid: once it has gone, look again.
        await starterGone();
        starterSeenGone = true;
        continue;
      }
      if (readPid() === String(process.pid)) remove(PID_FILE);
      // A hook that read the pid file before it went wrote its event before: it is here now.
      if (!scan()) break;
      writePid();
      last = Date.now();
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, watcher ? 250 : 25);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
  while (busy > 0)
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  watcher?.close();
  // Closing removes the socket file: only while it is still ours.
  if (ownsLock()) lock.close();
}
