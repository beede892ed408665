// Whether a hook's parent process is a Copilot CLI's, judged by the forwarder
// (off Copilot's path) for a SessionStart. fleet sends SIGTERM and then SIGKILL
// to a card's ppid, and keeps the card while that process lives: so a card
// names the Copilot CLI process that ran the hook, or none. VS Code's agent runs
// hooks from its extension host (every chat's and extension's process); an
// Agent Host, a wrapper or a shell may be the parent too: none of them is named.
//
// A PID alone is never trusted. The parent is a Copilot CLI when its command
// is one (argv[0] or the executable named `copilot`, or node running a
// `copilot` script or @github/copilot's index.js, as CLIs before the native
// binary ran) and it
// started no later than the event was spooled (a PID reused after the CLI
// exited started later). Linux reads /proc; elsewhere (macOS) `ps`.
import { spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { procStat } from '../fs/process.js';

/** How much later than the event the process's start may read: /proc's boot time is in whole seconds, ps's start too. */
const CLOCK_SLACK_MS = 1000;

/** What the judgment looked at, and what it found. */
export interface ParentJudgment {
  pid: number | null;
  /** The process's command line, as far as it could be read. */
  command: string | null;
  /** When it started (ms of the wall clock), as far as it could be read. */
  startedMs: number | null;
  isCopilot: boolean;
  why: string;
}

/** Whether a command line (its words) runs the Copilot CLI. */
export function isCopilotCommand(argv: readonly string[], exe?: string | null): boolean {
  const name = (p: string | undefined | null) => (p ? basename(p) : '');
  if (name(exe) === 'copilot' || name(argv[0]) === 'copilot') return true;
  // A Copilot CLI that node runs: its bin (`copilot` on PATH, a script) or the package's own file.
  return (
    /^node(js)?$/.test(name(argv[0])) &&
    (name(argv[1]) === 'copilot' || /[\\/]@github[\\/]copilot[\\/](index|npm-loader)\.js$/.test(argv[1] ?? ''))
  );
}

/** Boot time in ms (Linux), read once. */
let bootMs: number | null | undefined;
function linuxBootMs(): number | null {
  if (bootMs !== undefined) return bootMs;
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    bootMs = btime ? Number(btime) * 1000 : null;
  } catch {
    bootMs = null;
  }
  return bootMs;
}

/** Clock ticks per second of /proc's start times: USER_HZ, 100 on every Linux that node runs on. */
const USER_HZ = 100;

/** The command and start of process `pid` from /proc; null when there is no /proc. */
function fromProc(pid: number): { argv: string[]; exe: string | null; startedMs: number | null } | null {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
  let exe: string | null = null;
  try {
    exe = readlinkSync(`/proc/${pid}/exe`);
  } catch {
    /* another user's: the command line says enough */
  }
  const ticks = Number(procStat(pid)?.[19]);
  const boot = linuxBootMs();
  return {
    argv: cmdline.replace(/\0$/, '').split('\0'),
    exe,
    startedMs: boot !== null && Number.isFinite(ticks) ? boot + (ticks * 1000) / USER_HZ : null,
  };
}

/** The command and start of process `pid` from `ps` (macOS: no /proc); null when ps cannot tell. */
function fromPs(pid: number): { argv: string[]; exe: null; startedMs: number | null } | null {
  const r = spawnSync('ps', ['-o', 'lstart=', '-o', 'args=', '-p', String(pid)], {
    encoding: 'utf8',
    timeout: 5000,
    env: { ...process.env, LC_ALL: 'C' },
  });
  const line = r.status === 0 ? (r.stdout ?? '').split('\n')[0]!.trim() : '';
  // `Mon Dec  7 02:42:10 2026 /path/to/copilot --flag`: the start is its first five words.
  const m = /^(\w{3}\s+\w{3}\s+\d+\s+\d+:\d+:\d+\s+\d{4})\s+(.*)$/.exec(line);
  if (!m) return null;
  const started = Date.parse(m[1]!.replace(/\s+/g, ' '));
  return { argv: m[2]!.split(/\s+/), exe: null, startedMs: Number.isFinite(started) ? started : null };
}

/**
 * Judges the hook's parent `pid` for an event spooled at `eventMs`: a Copilot
 * CLI process that was running then, or not (and why).
 */
export function judgeParent(pid: number | null, eventMs: number): ParentJudgment {
  if (pid === null || pid <= 1) return { pid, command: null, startedMs: null, isCopilot: false, why: 'no parent process' };
  const seen = fromProc(pid) ?? (procStat('self') === null ? fromPs(pid) : null);
  if (!seen) return { pid, command: null, startedMs: null, isCopilot: false, why: 'the process is gone' };
  const command = seen.argv.join(' ');
  const base = { pid, command, startedMs: seen.startedMs };
  if (!isCopilotCommand(seen.argv, seen.exe)) return { ...base, isCopilot: false, why: 'not a Copilot CLI process' };
  if (seen.startedMs === null) return { ...base, isCopilot: false, why: 'its start time cannot be read' };
  if (seen.startedMs > eventMs + CLOCK_SLACK_MS) return { ...base, isCopilot: false, why: 'it started after the event (a PID reused)' };
  return { ...base, isCopilot: true, why: 'a Copilot CLI process, running since before the event' };
}

/** The pid a card may name for a hook whose parent is `pid`: it, when a Copilot CLI's; else null. */
export const copilotParent = (pid: number | null, eventMs: number): number | null => (judgeParent(pid, eventMs).isCopilot ? pid : null);
