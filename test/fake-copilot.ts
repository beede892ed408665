// A fake `copilot` executable for `fleet-git run` tests: first on PATH, it
// records its arguments, environment, working folder and the signals it gets
// in a JSON file; `--exit N` exits with N, `--wait` waits for a signal
// (`--die` then dies of it, else exits 40).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userPaths } from '../src/paths.js';
import type { Sandbox } from './helpers.js';

const FAKE = `#!${process.execPath}
const fs = require('fs');
const log = process.env.FAKE_COPILOT_LOG;
const rec = { argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, signals: [] };
const save = () => fs.writeFileSync(log, JSON.stringify(rec));
save();
const a = process.argv.slice(2);
const i = a.indexOf('--exit');
if (a.includes('--wait')) {
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => { rec.signals.push(s); save(); if (a.includes('--die')) { process.removeAllListeners(s); process.kill(process.pid, s); } else process.exit(40); });
  fs.writeFileSync(log + '.ready', '');
  setInterval(() => {}, 1000);
} else process.exit(i >= 0 ? Number(a[i + 1]) : 0);
`;

export interface CopilotRecord {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  signals: string[];
}

/**
 * Puts the fake copilot in `<sandbox>/bin` and writes fleet's models.json
 * (`models` as is when a string, as JSON otherwise, no file when undefined).
 * `env` is the sandbox environment with that bin first on PATH; `log` exists
 * only once copilot was started.
 */
export function fakeCopilot(sb: Sandbox, models: unknown) {
  const bin = join(sb.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'copilot'), FAKE);
  chmodSync(join(bin, 'copilot'), 0o755);
  const log = join(sb.dir, 'copilot.log');
  const env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}`, FAKE_COPILOT_LOG: log };
  const paths = userPaths(sb.env, sb.home);
  mkdirSync(paths.fleetDir, { recursive: true });
  if (models !== undefined) writeFileSync(paths.fleetModels, typeof models === 'string' ? models : JSON.stringify(models));
  const recorded = () => JSON.parse(readFileSync(log, 'utf8')) as CopilotRecord;
  return { bin, log, env, paths, recorded };
}

// A fake `copilot -p` session for `doctor --live` tests, for what the real CLI
// does only on some versions and platforms (copilot-cli #1730): a Copilot that
// trusts the folder and still does not run the repository's hook for some
// events. It plays the session the probe's model scripts (a bash call, a view,
// the final answer) without asking the model, and runs the hook files as
// Copilot 1.0.102 does: every *.json of .github/hooks and $COPILOT_HOME/hooks,
// each entry's bash under `/bin/bash --norc --noprofile -c` in the repository
// root, the payload on stdin, COPILOT_HOOK_DIR set; it writes a transcript
// (session.start, hook.start/hook.end, the final assistant.message) and a log.
const SESSION = `#!${process.execPath}
const fs = require('fs'), path = require('path'), cp = require('child_process'), crypto = require('crypto');
const skip = new Set(JSON.parse(process.env.FAKE_COPILOT_SKIP || '[]'));
const home = process.env.COPILOT_HOME, root = process.cwd(), sid = crypto.randomUUID();
const tr = path.join(home, 'session-state', sid, 'events.jsonl');
fs.mkdirSync(path.dirname(tr), { recursive: true });
fs.mkdirSync(path.join(home, 'logs'), { recursive: true });
const logFile = path.join(home, 'logs', 'process-' + process.pid + '.log');
const log = (l) => fs.appendFileSync(logFile, new Date().toISOString() + ' [DEBUG] ' + l + '\\n');
const t = (type, data) => fs.appendFileSync(tr, JSON.stringify({ type, data, id: crypto.randomUUID(), timestamp: new Date().toISOString() }) + '\\n');
log('Starting Copilot CLI: 1.0.102');
const files = [];
const walk = (d) => { let es = []; try { es = fs.readdirSync(d, { withFileTypes: true }); } catch {} for (const e of es) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name.endsWith('.json')) files.push(p); } };
walk(path.join(root, '.github', 'hooks'));
if (process.env.FAKE_COPILOT_REPO_HOOKS !== 'unloaded') log('loaded repo hooks from ' + path.join(root, '.github', 'hooks'));
else files.length = 0;
walk(path.join(home, 'hooks'));
const hooks = files.map((f) => { try { return { dir: path.dirname(f), hooks: JSON.parse(fs.readFileSync(f, 'utf8')).hooks || {} }; } catch { return null; } }).filter(Boolean);
const base = () => ({ sessionId: sid, timestamp: Date.now(), cwd: root });
function fire(type, payload) {
  if (skip.has(type)) return;
  const id = crypto.randomUUID();
  t('hook.start', { hookInvocationId: id, hookType: type, input: payload });
  for (const h of hooks)
    for (const entry of h.hooks[type] || [])
      cp.spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', entry.bash], {
        cwd: root, input: JSON.stringify(payload), stdio: ['pipe', 'ignore', 'ignore'],
        env: { ...process.env, COPILOT_HOOK_DIR: h.dir, COPILOT_PROJECT_DIR: root, COPILOT_CLI: '1' }, timeout: (entry.timeoutSec || 30) * 1000,
      });
  t('hook.end', { hookInvocationId: id, success: true });
}
t('session.start', { sessionId: sid, copilotVersion: '1.0.102', selectedModel: process.env.COPILOT_MODEL });
fire('sessionStart', { ...base(), source: 'new', initialPrompt: process.argv[process.argv.indexOf('-p') + 1] });
// A real session asks its model now (a round trip), by which time the forwarder has taken the event (and judged this
// process, its hook's parent, alive): wait until the spool of doctor --live's runtime folder holds no event.
const spool = path.join(process.env.XDG_RUNTIME_DIR || '/nonexistent', 'fleet-git');
const waiting = () => { try { return fs.readdirSync(spool).some((n) => n.endsWith('.ev')); } catch { return false; } };
for (const until = Date.now() + 10000; waiting() && Date.now() < until; ) cp.spawnSync('sleep', ['0.02']);
fire('postToolUse', { ...base(), toolName: 'bash', toolArgs: { command: 'echo fleet-git doctor --live' }, toolResult: { resultType: 'success', textResultForLlm: 'fleet-git doctor --live' } });
fire('postToolUse', { ...base(), toolName: 'view', toolArgs: { path: root }, toolResult: { resultType: 'success', textResultForLlm: '' } });
// The scripted model's final answer (core/session/live-probe.ts).
t('assistant.message', { content: 'fleet-git doctor --live: done.', toolRequests: [] });
t('assistant.turn_end', { turnId: '0' });
fire('agentStop', { ...base(), transcriptPath: tr, stopReason: 'end_turn', stop_hook_active: false });
fire('sessionEnd', { ...base(), reason: 'complete' });
console.log('fleet-git doctor --live: done.');
`;

/**
 * Writes that fake session as `<sandbox>/fake-session/copilot` and returns its
 * path and the environment to run it with: `skip` lists the events whose hooks
 * it never runs; `repoHooks: 'unloaded'` makes it load no repository hook file
 * (its log then lacks the line saying it did).
 */
export function fakeCopilotSession(sb: Sandbox, o: { skip?: string[]; repoHooks?: 'loaded' | 'unloaded' } = {}) {
  const bin = join(sb.dir, 'fake-session');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'copilot'), SESSION);
  chmodSync(join(bin, 'copilot'), 0o755);
  const env = { ...sb.env, FAKE_COPILOT_SKIP: JSON.stringify(o.skip ?? []), FAKE_COPILOT_REPO_HOOKS: o.repoHooks ?? 'loaded' };
  return { path: join(bin, 'copilot'), env };
}
