// Other processes: whether one is alive, and what Linux's /proc tells of it.
import { readFileSync } from 'node:fs';
import { isCode } from '../errors.js';

/** Whether process `pid` is alive: anything but "no such process" counts as alive (EPERM: another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return !isCode(e, 'ESRCH');
  }
}

/**
 * The fields of /proc/PID/stat after the command name, which may hold spaces
 * and parentheses (`PID (COMM) STATE PPID PGRP ...`): [0] the state, [1] the
 * parent's PID, [2] the process group, [19] the start time (field 22, clock
 * ticks since boot); null where it cannot be read (no /proc, no such process).
 */
export function procStat(pid: number | string): string[] | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The parent of process `pid` (Linux, from /proc), or null. */
export function parentOf(pid: number): number | null {
  const parent = Number(procStat(pid)?.[1]);
  return Number.isInteger(parent) ? parent : null;
}

/** When process `pid` started, in clock ticks since boot (Linux, from /proc); null where it cannot be read. */
export function processStart(pid: number): string | null {
  const start = procStat(pid)?.[19] ?? '';
  return /^\d+$/.test(start) ? start : null;
}
