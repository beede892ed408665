// `fleet-git doctor --live`: prints the live probe's report (core/session/live-probe.ts)
// in words or as one JSON document. Exit 0 only when every expected event
// arrived exactly once (and its ppid was Copilot), 1 otherwise.
import { liveProbe, MAX_SESSION_S, type Cause, type EventReport, type LiveReport } from '../core/session/live-probe.js';
import { EXIT, InputError, type Context } from './base.js';
import { StatusLine } from './report.js';

const LABELS: Record<EventReport['id'], string> = {
  sessionStart: 'sessionStart',
  'postToolUse:bash': 'postToolUse (bash)',
  'postToolUse:view': 'postToolUse (view)',
  agentStop: 'agentStop',
  sessionEnd: 'sessionEnd',
};

const LEVEL_WORDS = {
  repo: "the repository's hook file",
  user: 'the user-level hook file',
  unknown: 'a hook file it could not tell',
} as const;

function eventLine(e: EventReport): string {
  const from = [...new Set(e.levels)].map((l) => LEVEL_WORDS[l]).join(' and ');
  const waited = e.waitedMs === null ? '' : `; Copilot waited ${e.waitedMs} ms on its hooks`;
  const what = e.status === 'missing' ? 'missing' : e.status === 'once' ? `once, from ${from}` : `${e.count} times, from ${from}`;
  return `${e.status === 'once' && !e.cause ? 'ok  ' : 'FAIL'}  ${LABELS[e.id]}: ${what}${waited}${e.cause ? ` (${e.cause.code})` : ''}`;
}

function causeLine(c: Cause): string {
  return `FAIL  ${c.code}: ${c.message}${c.fix ? `: ${c.fix}` : ''}`;
}

export function printLive(r: LiveReport, json: boolean, out: (line: string) => void): number {
  if (json) {
    out(JSON.stringify(r, null, 2));
    return r.ok ? EXIT.ok : EXIT.partial;
  }
  out(
    `one offline Copilot session in ${r.repo}: Copilot CLI ${r.copilot.version ?? '(version unknown)'} (${r.copilot.path}), ${(r.session.ms / 1000).toFixed(1)} s`,
  );
  for (const e of r.events) out(eventLine(e));
  const p = r.ppid;
  if (p.ppid === null) out('--    no sessionStart, so no ppid to check');
  else if (p.isCopilot === false)
    out(`FAIL  ppid ${p.ppid} is not the Copilot process (${p.copilotPid}): the observer cannot tell when the session ends`);
  else
    out(
      `${p.isCopilot ? 'ok  ' : '--  '}  ppid ${p.ppid} ${p.isCopilot ? 'is the Copilot process' : 'could not be checked on this system'}`,
    );
  for (const c of r.causes) out(causeLine(c));
  for (const n of r.notes) out(`--    ${n}`);
  const bad = r.events.filter((e) => e.status !== 'once' || e.cause);
  if (r.ok) out(`every expected event arrived once (${r.events.length})`);
  else {
    out(
      bad.length
        ? `${bad.length} of ${r.events.length} events missing, repeated or incomplete`
        : 'every expected event arrived once, but not from the Copilot process',
    );
  }
  return r.ok ? EXIT.ok : EXIT.partial;
}

export interface LiveOptions {
  repo?: string;
  copilot?: string;
  json: boolean;
  timeout?: string;
}

export async function doctorLive(context: Context, o: LiveOptions): Promise<number> {
  let timeoutMs: number | undefined;
  if (o.timeout !== undefined) {
    const n = Number(o.timeout);
    if (!Number.isInteger(n) || n < 1 || n > MAX_SESSION_S)
      throw new InputError(`--timeout ${o.timeout}: give a whole number of seconds from 1 to ${MAX_SESSION_S}`);
    timeoutMs = n * 1000;
  }
  // On a terminal, one line on stderr says what the probe is doing and for how long, redrawn each
  // 250 ms (a session takes seconds) and cleared before the report; nothing off a terminal.
  const line = StatusLine.on(context, 0);
  const started = Date.now();
  let step = 'starting';
  const draw = () => line?.show(`doctor --live: ${step}, ${Math.floor((Date.now() - started) / 1000)} s`);
  const ticker = line ? setInterval(draw, 250) : undefined;
  let report;
  try {
    report = await liveProbe({
      path: o.repo ?? context.cwd,
      cwd: context.cwd,
      copilot: o.copilot,
      env: context.env,
      home: context.home,
      timeoutMs,
      onStep: (what) => {
        step = what;
        draw();
      },
    });
  } finally {
    clearInterval(ticker);
    line?.clear();
  }
  return printLive(report, o.json, (line) => context.stdout.write(`${line}\n`));
}
