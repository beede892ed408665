// The forwarder: hands the events the hook spooled to the observer, in the
// order Copilot fired them, and exits once no event came for a while.
//
// The protocol, in one place (templates/hook.sh is the other side):
//
// - The hook (templates/hook.sh, which each hook file command sources) runs no
//   node: it writes each event into the spool folder (mode 0700, files 0600)
//   as one file, `<EPOCHREALTIME digits>.<hook pid>.ev` (a shell without
//   EPOCHREALTIME, bash 3.2 or dash: `n.<hook pid>.ev`, or `n.<pid>.<count>.ev`
//   while a file of the same PID still waits), holding the payload and then the
//   hook's facts, each ended by a NUL byte (the shell strips NULs from the payload):
//
//     payload, event, ppid, pid, HOME, COPILOT_HOME, COPILOT_HOOK_DIR,
//     COPILOT_MODEL, FLEET_MODEL_NAME, TERM_PROGRAM, ITERM_SESSION_ID,
//     FLEET_GIT_OBSERVER_DIR, FLEET_GIT_PROBE, TRAILER
//
//   A file without the trailer is still being written (or its writer died: it
//   is removed after ORPHAN_MS).
// - Then the hook reads the lease, `forwarder.lease`: `<deadline> <pid>`, the
//   deadline in microseconds of the wall clock, which is also the file's time.
//   Before the deadline a forwarder runs and will see the event; the hook is
//   done. No PID decides anything: the pid is there for people and tests.
// - Otherwise the hook starts a forwarder (in a subshell of its own process
//   group, which starts it again when a signal other than SIGTERM ended it).
//   With a clock, it first writes a 3 s lease of its own (`<deadline>`), so the
//   hooks fired while node starts do not each start one.
// - One forwarder per spool folder: it holds `forwarder.sock`, a Unix socket it
//   listens on and never reads, put there only once it listens (takeLock; a
//   killed forwarder's socket refuses connections: the next one takes its
//   place), and sends an event only while that socket is its own. Only the
//   holder writes the lease, LEASE_MS ahead, every RENEW_MS, so a forwarder
//   that is gone (SIGKILL, a crash, a reboot with the spool on disk) stops
//   counting within LEASE_MS whatever its PID has become. It also sets the
//   socket file's time to the deadline less 5 s: a bash 3.2 hook (no clock)
//   that finds it later than its own event file takes the lease for one left
//   before the clock was set back.
// - It leaves IDLE_MS after its last event: it removes the lease, then looks
//   at the spool once more, so the event of a hook that still saw the lease is
//   not left behind (that hook wrote its event before it read the lease). A
//   hook that finds no lease starts another, which waits for the lock.
// - SIGTERM: it stops at once, sending no further event (they stay in the
//   spool, for the next forwarder; a line the observer had not taken yet is
//   given up), removes its lease, and exits 143.
//
// Per session, events are delivered one after another in spool order; an
// agentStop whose final message is not in the transcript yet (or a SessionStart
// whose model is to come from it) holds back only its own session's later
// events. Each file is removed just before its event is sent, one event at a
// time: a killed forwarder loses at most that one.
// A subagent's events are its root session's, decided in spool order as they
// are taken in (the rule: src/copilot/subagents.ts): they join that session's
// queue under its id, and its stops send nothing. A turn's end and a
// notification also go to fleet's notifier, in a detached process this one
// never waits for (src/fleet/notify.ts), whether or not the observer runs.
// Events that waited over STALE_MS (a forwarder that could not run for an
// hour) are dropped unsent, but for the Stops, which give each card its last
// state: a live dashboard has no use for an hour of tool calls.
// The files the watcher names are read by name, and the folder is listed only
// once a second (as a safety net) or when the watcher names no file: so a
// backlog drains, and a live stream is taken in, in time linear in its size.
import {
  linkSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NO_ENTRY_OK } from '../fs/read.js';
import { LineSender } from '../fleet/socket.js';
import { noticeFor, sendNotice } from '../fleet/notify.js';
import { SubagentRoutes } from './subagents.js';
import { OBSERVER_DIR_VAR } from '../paths.js';
import { PROBE_VAR } from './normalize.js';
import { copilotParent } from './copilot-process.js';
import { awaitFinalMessage, awaitSessionModel, deliver, msOf, prepare, stopWaitMs, type HookRun, type Prepared } from './hook-event.js';

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
/** The forwarder's lease (see the top of this file). */
export const LEASE_FILE = 'forwarder.lease';
const LOCK_FILE = 'forwarder.sock';
/** How far ahead the forwarder's lease runs, and how often it renews it (often: a loaded machine delays timers). */
const LEASE_MS = 3000;
const RENEW_MS = 250;
/** How long the forwarder stays after the last event (IDLE_MS_VAR overrides, for tests and doctor's one test event). */
export const IDLE_MS = 10_000;
export const IDLE_MS_VAR = 'FLEET_GIT_FORWARDER_IDLE_MS';
/** A spool file without its trailer this old lost its writer. */
const ORPHAN_MS = 60_000;
/** Events older than this are dropped unsent, but for Stops. */
const STALE_MS = 3_600_000;
/** How long a new forwarder waits for one that is leaving to let go of the lock. */
const LOCK_WAIT_MS = 3000;
/** How often the folder is listed when nothing wakes the forwarder: with a watcher, and without one. */
const RESCAN_MS = 1000;
const POLL_MS = 25;
/** The least time between two looks at the spool: a stream of events is taken in batches, not one wake-up each. */
const PASS_MS = 20;

/** The lease in a spool folder: its deadline (ms of the wall clock) and the pid that wrote it (0 for a hook's claim); null when there is none. */
export function readLease(spool: string): { deadline: number; pid: number } | null {
  try {
    const [deadline, pid] = readFileSync(join(spool, LEASE_FILE), 'utf8').trim().split(' ').map(Number);
    return Number.isSafeInteger(deadline) ? { deadline: deadline! / 1000, pid: Number.isSafeInteger(pid) ? pid! : 0 } : null;
  } catch {
    return null;
  }
}

/** Whether a forwarder runs in the spool folder, or is being started, as a hook judges it: before its lease's deadline. */
export const leaseHeld = (spool: string): boolean => (readLease(spool)?.deadline ?? 0) > Date.now();

let renewed = 0; // when renewLease last ran

/** Writes this forwarder's lease, LEASE_MS ahead, as the content and the file's time (bash 3.2's hook compares that). */
function renewLease(): void {
  renewed = Date.now();
  const deadline = renewed + LEASE_MS;
  const tmp = `${LEASE_FILE}.${process.pid}`;
  try {
    writeFileSync(tmp, `${deadline * 1000} ${process.pid}\n`, { mode: 0o600 });
    utimesSync(tmp, deadline / 1000, deadline / 1000);
    renameSync(tmp, LEASE_FILE);
    utimesSync(LOCK_FILE, deadline / 1000 - 5, deadline / 1000 - 5);
  } catch {
    remove(tmp); // the next hooks start another, which finds the lock taken
  }
}

/** Renews the lease when due: also on the way through a long batch, which a forwarder starved of CPU may take seconds over. */
function renewDue(): void {
  if (Date.now() - renewed >= RENEW_MS) renewLease();
}

/** Removes the lease when it is this forwarder's (a hook's claim written meanwhile is left). */
function dropLease(): void {
  if (readLease('.')?.pid === process.pid) remove(LEASE_FILE);
}

/** Removes a file; false when it was gone already. */
function remove(name: string): boolean {
  try {
    unlinkSync(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * A spool file's hook run; 'incomplete' while its trailer is missing. `firedAt`: when the hook spooled it
 * (ms), against which its parent is judged (a SessionStart's only: copilot-process.ts).
 */
export function parseSpooled(buf: Buffer, firedAt: () => number = Date.now): (HookRun & { parent: number | null }) | 'incomplete' {
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
    ppid: () => copilotParent(num(ppid), firedAt()),
    parent: num(ppid), // as the hook saw it, unjudged
  };
}

/** When the hook spooled file `name` (ms): its clock in the name, else the file's time. */
function spooledAt(name: string): number {
  const digits = name.slice(0, name.indexOf('.'));
  return /^\d+$/.test(digits) ? Number(digits) / 1000 : (statSync(name, NO_ENTRY_OK)?.mtimeMs ?? Date.now());
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

/** The lock held: `owned()` while this forwarder's socket is the one at LOCK_FILE; `release()` takes it from there and closes it. */
interface Held {
  owned(): boolean;
  release(): void;
}

/**
 * The spool folder's lock: a Unix socket this forwarder listens on, made under a name of its own and then put
 * at LOCK_FILE by link(2), which fails where that name exists. So LOCK_FILE only ever names a socket that
 * already listens, and one that refuses a connection was left by a forwarder that is gone (a killed one's
 * file stays): this one's socket takes its place by rename(2). Where two forwarders found it so, the socket
 * renamed there last holds the lock, and the other sees before its next event that it does not.
 * null when another forwarder keeps the lock. One that holds a lease runs on (a hook that started this one
 * saw it late, on a loaded machine) and lists the spool within RESCAN_MS: this one leaves at once. One
 * without (it is leaving, after its last look at the spool) is waited for.
 */
async function takeLock(): Promise<Held | null> {
  const { createConnection, createServer } = await import('node:net');
  const own = `forwarder.${process.pid}.sock`;
  remove(own); // a gone process's of the same PID
  const server = createServer((c) => c.destroy());
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(own, () => resolve(true));
  });
  const ino = listening ? statSync(own, NO_ENTRY_OK)?.ino : undefined;
  // Closing the server removes the name it listened on, `own` (where it still is).
  const giveUp = () => (server.close(), null);
  /** What is at `name`: a forwarder that listens, a socket nobody listens on, or nothing. */
  const probe = (name = LOCK_FILE) =>
    new Promise<'busy' | 'stale' | 'gone' | 'error'>((resolve) => {
      const c = createConnection(name);
      c.once('connect', () => (c.destroy(), resolve('busy')));
      c.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? 'stale' : e.code === 'ENOENT' ? 'gone' : 'error'));
    });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    if (ino === undefined || Date.now() >= deadline) return giveUp();
    try {
      linkSync(own, LOCK_FILE);
      remove(own);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return giveUp();
    }
    const found = await probe();
    if (found === 'error') return giveUp();
    if (found === 'stale') {
      try {
        renameSync(own, LOCK_FILE);
        break;
      } catch {
        return giveUp();
      }
    }
    if (found === 'busy') {
      const lease = readLease('.');
      if (lease && lease.pid > 0 && lease.deadline > Date.now()) return giveUp();
      await sleep(25);
    }
  }
  // The own sockets of forwarders killed before they left (each closes its own as it leaves).
  let names: string[] = [];
  try {
    names = readdirSync('.');
  } catch {
    /* none swept */
  }
  for (const name of names) if (/^forwarder\.\d+\.sock$/.test(name) && (await probe(name)) === 'stale') remove(name);
  const owned = () => statSync(LOCK_FILE, NO_ENTRY_OK)?.ino === ino;
  return {
    owned,
    // Taken from LOCK_FILE only while this one's is there: another forwarder replaces it only once it refuses.
    release: () => (owned() && remove(LOCK_FILE), server.close()),
  };
}

interface Item {
  name: string;
  order: [number, number];
  run: Prepared;
  /** The Copilot process that ran the hook (its $PPID when a Copilot CLI's), the same for a session and its subagents. */
  proc: number | null;
}

export async function forward(spool: string): Promise<void> {
  try {
    process.chdir(spool);
  } catch {
    return;
  } // relative names: a socket path has at most 103 bytes on a Mac (SOCKET_PATH_MAX)
  process.title = 'fleet-git-forwarder';
  // Its own process group already; a terminal's Ctrl-C or hang-up is not for it.
  for (const sig of ['SIGINT', 'SIGHUP', 'SIGPIPE'] as const) process.on(sig, () => {});
  let stopping = false;
  let wake = () => {};
  const sender = new LineSender();
  process.on('SIGTERM', () => {
    stopping = true;
    sender.abort(); // a line the observer has not taken yet is not waited for
    wake();
  });
  const lock = await takeLock();
  if (!lock) return;
  renewLease();
  const renewing = setInterval(renewDue, RENEW_MS);

  const idle = msOf(process.env, IDLE_MS_VAR, IDLE_MS, 600_000);
  const routes = new SubagentRoutes();
  // Each hook's parent, judged once per PID (copilot-process.ts: /proc, or a `ps` without it), not once per event:
  // every event of a session and its subagents has the same one, and it only ties subagents to their session. A
  // SessionStart's card judges its own afresh (HookRun.ppid).
  const parents = new Map<number, number | null>();
  const parentOf = (pid: number | null, name: string): number | null => {
    if (pid === null) return null;
    if (!parents.has(pid)) {
      if (parents.size >= 1024) parents.clear();
      parents.set(pid, copilotParent(pid, spooledAt(name)));
    }
    return parents.get(pid)!;
  };
  const known = new Set<string>();
  const chains = new Map<string, Promise<void>>();
  let busy = 0;
  let sending: Promise<void> = Promise.resolve();
  let routing: Promise<void> = Promise.resolve();
  let listed = 0;
  /** The `.ev` files the watcher named since the last look: read by name, the folder not listed (a name-less event lists it). */
  const named = new Set<string>();
  let changed = true;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch('.', (_type, name) => {
      if (name === null) changed = true;
      else if (name.endsWith('.ev')) named.add(name);
      else return;
      wake();
    });
    watcher.on('error', () => {
      watcher = undefined;
    });
  } catch {
    /* polled instead */
  }

  /**
   * One event at a time: its file goes, then its line is sent, while the lock is this forwarder's (where two
   * took a stale lock at once, the one whose socket was replaced sends nothing more: its events wait for the
   * other). The removal claims the event: only one forwarder removes a file. Once stopping, none.
   */
  const send = (item: Item) =>
    (sending = sending.then(
      async () => {
        renewDue();
        if (stopping || !lock.owned() || !remove(item.name)) return;
        known.delete(item.name); // a name comes back (bash 3.2's, once its PID does)
        const { ev, paths, kind } = item.run;
        const notice = noticeFor(ev, kind === 'agentStop');
        if (notice) sendNotice(process.argv[1]!, paths.fleetDir, paths.home, notice);
        await deliver(ev, paths, (path, e) => sender.send(path, e));
      },
      () => {},
    ));

  const enqueue = (item: Item) => {
    busy++;
    const sid = item.run.ev.session_id;
    const next = (chains.get(sid) ?? Promise.resolve())
      .then(async () => {
        if (item.run.waitModel && !stopping) await awaitSessionModel(item.run.ev, item.run.waitModel);
        if (item.run.waitFor && !stopping) await awaitFinalMessage(item.run.ev, item.run.waitFor, stopWaitMs(process.env));
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
  const scan = (only?: string[]): boolean => {
    let names: string[];
    if (only) names = only.sort();
    else {
      changed = false;
      listed = Date.now();
      named.clear();
      try {
        names = readdirSync('.');
      } catch {
        return false;
      }
    }
    const fresh: Item[] = [];
    const staleBefore = (Date.now() - STALE_MS) * 1000;
    for (const name of names) {
      if (!name.endsWith('.ev') || known.has(name)) continue;
      renewDue();
      let buf: Buffer;
      try {
        buf = readFileSync(name);
      } catch {
        continue;
      }
      const run = parseSpooled(buf, () => spooledAt(name));
      if (run === 'incomplete') {
        const st = statSync(name, NO_ENTRY_OK);
        if (st && Date.now() - st.mtimeMs > ORPHAN_MS) remove(name);
        continue;
      }
      let prepared: Prepared | null = null;
      try {
        prepared = prepare(run);
      } catch {
        /* not an event */
      }
      const order = prepared && orderOf(name, prepared.ev);
      if (!prepared || !order || (order[0] < staleBefore && prepared.ev.event !== 'Stop')) {
        remove(name);
        continue;
      }
      known.add(name);
      fresh.push({ name, order, run: prepared, proc: parentOf(run.parent, name) });
    }
    fresh.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || (a.name < b.name ? -1 : 1));
    for (const item of fresh) {
      // One after another in spool order: a subagent's event goes out as its root session's, or not at all (subagents.ts).
      busy++;
      routing = routing
        .then(async () => {
          const { ev, sub, paths } = item.run;
          const to = await routes.route(ev.session_id, sub, item.proc, paths.copilotHome);
          if (to === null) {
            if (!stopping && lock.owned() && remove(item.name)) known.delete(item.name);
            return;
          }
          ev.session_id = to;
          enqueue(item);
        })
        .catch(() => {})
        .finally(() => {
          busy--;
          wake();
        });
    }
    return fresh.length > 0;
  };

  let last = Date.now();
  let pass = 0;
  while (!stopping && lock.owned()) {
    if (Date.now() - pass < PASS_MS) await sleep(pass + PASS_MS - Date.now());
    pass = Date.now();
    // The files the watcher named; the whole folder every RESCAN_MS in case it missed one (or there is none).
    if (changed || Date.now() - listed >= (watcher ? RESCAN_MS : POLL_MS)) {
      if (scan()) last = Date.now();
    } else if (named.size) {
      const batch = [...named];
      named.clear();
      if (scan(batch)) last = Date.now();
    }
    if (busy === 0 && Date.now() - last >= idle) {
      dropLease();
      // A hook that read the lease before it went wrote its event before: it is here now.
      if (!scan()) break;
      renewLease();
      last = Date.now();
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.min(watcher ? RESCAN_MS : POLL_MS, busy ? Infinity : last + idle - Date.now()));
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
  clearInterval(renewing);
  dropLease();
  // Hook files of format 1 (fleet-git 0.1.0, until enable rewrites them) name their forwarder in this file.
  remove('forwarder.pid');
  if (stopping) await sending;
  else
    while (busy > 0)
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
  watcher?.close();
  sender.end();
  lock.release();
  if (stopping) process.exit(143);
}
