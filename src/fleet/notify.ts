// fleet's desktop notifications for Copilot sessions, given as fleet gives
// them: fleet's own hook client loads `notifier.js` from its hooks folder
// (`fleet hooks install` copies it to ~/.config/claude-code-fleet/hooks/) and,
// as its notify.json allows, notifies on a Stop (title: the tool's display
// name, body: the last answer) and on a Notification (title: the name and
// ` 通知`, body: the message). fleet-git runs that same notifier, so one
// switch, `fleet notify --off`, governs every tool, and without it nothing is
// sent. The forwarder never waits for it: each notice runs in a detached node
// (the hook client with NOTIFY_FLAG), which loads fleet's notifier, reads its
// config, and lets it run osascript or notify-send.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FleetEvent } from './event.js';

/** argv[2] of the detached process that runs fleet's notifier; argv[3] its job (JSON). */
export const NOTIFY_FLAG = '--notify';

/** The name fleet's own Copilot adapter gives: the title of a Copilot session's notices. */
const DISPLAY_NAME = 'GitHub Copilot';

/** Where fleet keeps its notifier: the hooks folder beside its socket. */
export function notifierPath(fleetDir: string): string {
  return join(fleetDir, 'hooks', 'notifier.js');
}

/** One notice, as fleet's hook client passes it to sendNotification (less the platform and sound, which the notifier's side adds). */
export interface Notice {
  /** Which of notify.json's `events` allows it. */
  kind: 'stop' | 'notification';
  title: string;
  body: string | null;
  cwd: string | null;
  sessionId: string;
}

/** An event older than this (a spool kept over a reboot, a forwarder that could not run) is shown, not announced. */
const NOTICE_MAX_AGE_MS = 300_000;

/**
 * The notice fleet's hook client gives for an event of a Copilot session, or null: a Stop that ends a turn
 * (`turnEnd`: Copilot's agentStop; a sessionEnd after it is the same turn's end, and notifies nothing) and a
 * Notification, fired in the last NOTICE_MAX_AGE_MS.
 */
export function noticeFor(ev: FleetEvent, turnEnd: boolean, now = Date.now()): Notice | null {
  if (now - ev.timestamp > NOTICE_MAX_AGE_MS) return null;
  const base = { cwd: ev.cwd, sessionId: ev.session_id };
  if (ev.event === 'Stop' && turnEnd) return { kind: 'stop', title: DISPLAY_NAME, body: ev.last_assistant_message, ...base };
  if (ev.event === 'Notification') return { kind: 'notification', title: `${DISPLAY_NAME} 通知`, body: ev.message, ...base };
  return null;
}

/**
 * Hands a notice to fleet's notifier in a detached node (`client` with NOTIFY_FLAG), HOME being the session's
 * (the notifier reads notify.json from there); nothing when fleet has not installed its notifier. Never waits, never throws.
 */
export function sendNotice(client: string, fleetDir: string, home: string | undefined, notice: Notice): void {
  const notifier = notifierPath(fleetDir);
  if (!existsSync(notifier)) return;
  try {
    const child = spawn(process.execPath, [client, NOTIFY_FLAG, JSON.stringify({ notifier, notice })], {
      detached: true,
      stdio: 'ignore',
      env: home ? { ...process.env, HOME: home } : process.env,
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    /* no notice: never the session's concern */
  }
}

interface FleetNotifier {
  loadNotifyConfig(): { enabled?: unknown; sound?: unknown; events?: Record<string, unknown> };
  sendNotification(args: Record<string, unknown>): void;
}

/** In the detached process: fleet's notifier sends the notice, as its config says. */
export function runNotifier(arg: string | undefined): void {
  let job: { notifier: string; notice: Notice };
  try {
    job = JSON.parse(arg ?? '');
  } catch {
    return;
  }
  if (!job || typeof job.notifier !== 'string' || !job.notice) return;
  const n = createRequire(job.notifier)(job.notifier) as FleetNotifier;
  const config = n.loadNotifyConfig();
  if (!config.enabled || !config.events?.[job.notice.kind]) return;
  const { title, body, cwd, sessionId } = job.notice;
  n.sendNotification({ title, body, cwd, sessionId, platform: process.platform, sound: config.sound });
}
