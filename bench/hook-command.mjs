// What fleet-git's hook command costs Copilot on each event, run as Copilot
// runs it (/bin/bash --norc --noprofile -c, the payload on a pipe), against a
// hook command of `true` run the same way, interleaved in one run: with the
// forwarder alive (every event but the first of a burst), and in each case
// where something is broken (node missing, node broken, the spool unwritable,
// the observer absent or stuck, the forwarder stuck). Copilot waits for the
// hook's exit and the end of its output: so does this. Target: at most 50 ms
// in every case (on a loaded machine, at most 50 ms more than the slowest
// `true`), and a median close to `true`'s.
//
//   npm run build && node bench/hook-command.mjs [runs]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, built } from './lib/built.mjs';
import { median } from './lib/stats.mjs';
import { homeEnv } from './lib/home-env.mjs';

const root = ROOT;
const CLI = built('cli.cjs');
const runs = Number(process.argv[2]) || 30;
const payload = readFileSync(join(root, 'test', 'fixtures', 'copilot-1.0.102', 'postToolUse.json'));

const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-hook-'));
const home = join(dir, 'home');
const env = homeEnv(home, { LANG: 'C.UTF-8' });
const repo = join(dir, 'repo');
mkdirSync(repo);
execFileSync('git', ['init', '-q'], { cwd: repo, env });
execFileSync(process.execPath, [CLI, 'enable'], { cwd: repo, env, stdio: 'ignore' });
const cmd = JSON.parse(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8')).hooks.postToolUse[0].bash;
const data = join(env.XDG_DATA_HOME, 'fleet-git');
const spool = join(data, 'spool');
const input = join(dir, 'payload.json');
writeFileSync(input, payload);
const sockDir = join(home, '.config', 'claude-code-fleet');
mkdirSync(sockDir, { recursive: true });
const bin = join(dir, 'bin'); // a PATH with no node
mkdirSync(bin);
for (const t of ['cat', 'mkdir', 'rm', 'sh', 'sleep'])
  symlinkSync(execFileSync('/bin/sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).trim(), join(bin, t));

/**
 * One hook run as Copilot runs it, the payload on a pipe (`cat FILE | bash`,
 * for `true` alike, so both pay cat's start); waits for the exit and the end
 * of the output, as Copilot does.
 */
function timePipe(command, e = env) {
  const t = process.hrtime.bigint();
  const r = spawnSync('/bin/sh', ['-c', 'cat "$0" | /bin/bash --norc --noprofile -c "$1"', input, command], {
    env: e,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0 || r.stdout.length || r.stderr.length)
    throw new Error(`bench: the hook exited ${r.status} (${r.error?.code ?? ''}) with ${r.stdout}${r.stderr}`);
  return ms;
}

const observer = () =>
  new Promise((resolve) => {
    const s = createServer((c) => {
      c.on('data', () => {});
      c.on('error', () => {});
    });
    s.listen(join(sockDir, 'fleet.sock'), () => resolve(s));
  });
const stuckObserver = () =>
  new Promise((resolve) => {
    const s = createServer({ pauseOnConnect: true }, () => {});
    s.listen(join(sockDir, 'fleet.sock'), () => resolve(s));
  });
/** The pid in the forwarder's lease (src/copilot/forwarder.ts), 0 when there is none. */
const forwarderPid = () => {
  try {
    return Number(readFileSync(join(spool, 'forwarder.lease'), 'utf8').split(' ')[1]) || 0;
  } catch {
    return 0;
  }
};
/** Ends the forwarder and the shell that would start it again: its process group (Linux: /proc/PID/stat). */
const killForwarder = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    process.kill(-Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]), 'SIGKILL');
  } catch {
    /* gone */
  }
};
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const cases = [];
async function measure(name, setUp, tearDown, e = env) {
  const ctx = await setUp();
  try {
    for (let i = 0; i < 3; i++) {
      timePipe('true', e);
      timePipe(cmd, e);
    }
    const base = [];
    const hook = [];
    for (let i = 0; i < runs; i++) {
      base.push(timePipe('true', e));
      hook.push(timePipe(cmd, e));
    }
    cases.push({ name, base: median(base), hook: median(hook), max: Math.max(...hook), baseMax: Math.max(...base) });
  } finally {
    await tearDown?.(ctx);
  }
}

const close = (s) => new Promise((r) => s.close(() => r()));
await measure('forwarder alive, observer listening', observer, close);
await measure('observer absent', () => null);
await measure('observer stuck (accepts, never reads)', stuckObserver, close);
await measure(
  'forwarder stuck (SIGSTOP)',
  async () => {
    timePipe(cmd);
    for (let i = 0; i < 100 && !alive(forwarderPid()); i++) await new Promise((r) => setTimeout(r, 20));
    const pid = forwarderPid();
    process.kill(pid, 'SIGSTOP');
    return pid;
  },
  (pid) => killForwarder(pid),
);
const recorded = join(data, 'node');
const savedNode = readFileSync(recorded, 'utf8');
await measure(
  'node missing',
  () => writeFileSync(recorded, join(dir, 'no-such-node')),
  () => writeFileSync(recorded, savedNode),
  { ...env, PATH: bin },
);
await measure(
  'node broken (exits 1)',
  () => writeFileSync(join(bin, 'node'), '#!/bin/sh\nexit 1\n', { mode: 0o755 }),
  () => rmSync(join(bin, 'node')),
  { ...env, PATH: bin },
);
await measure(
  'spool unwritable',
  () => {
    rmSync(spool, { recursive: true, force: true });
    writeFileSync(spool, '');
  },
  () => rmSync(spool),
);

console.log(
  `hook command run as Copilot runs it, the payload (${payload.length} bytes) on a pipe, against \`true\` run the same way; medians of ${runs} (${new Date().toISOString().slice(0, 10)})`,
);
// On a loaded machine `true` alone can take tens of ms: the limit is on the
// slowest run's excess over the slowest `true` run, beside the medians.
let over = false;
for (const c of cases) {
  const excess = c.max - c.baseMax;
  over ||= c.max > 50 && excess > 50;
  console.log(
    `${c.name.padEnd(40)} median: true ${c.base.toFixed(1).padStart(5)} ms, fleet-git ${c.hook.toFixed(1).padStart(5)} ms (+${(c.hook - c.base).toFixed(1)}); slowest: true ${c.baseMax.toFixed(1)}, fleet-git ${c.max.toFixed(1)} ms (limit 50 ms: ${c.max <= 50 || excess <= 50 ? 'ok' : 'OVER'})`,
  );
}
{
  const pid = forwarderPid();
  if (pid && alive(pid)) killForwarder(pid);
}
rmSync(dir, { recursive: true, force: true });
process.exitCode = over ? 1 : 0;
