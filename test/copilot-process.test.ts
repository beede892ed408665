// A card names only a process that is its session's own (src/copilot/copilot-process.ts): fleet sends
// SIGTERM, then SIGKILL, to a card's ppid (claude-code-fleet 1.4.4's killWorker, which checks nothing
// first but that the ppid is set). Stand-ins, real processes: a Copilot CLI (argv[0] `copilot`) that runs
// the hook as the CLI does (/bin/bash --norc --noprofile -c), and an editor's extension host that runs it
// as VS Code's executor does (/bin/sh, test/vscode-executor.ts). Through the real hook, forwarder and a
// socket. (test/macos.test.ts: the same judgment without /proc, by ps.)
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isCopilotCommand, judgeParent } from '../src/copilot/copilot-process.js';
import { isAlive } from '../src/fs/process.js';
import { FIXTURES } from './helpers.js';
import { CLIENT, enabledHooks, until } from './hook-run.js';
import { TestObserver, type Received } from './observer-server.js';
import { start } from './spawn.js';
import { executorEnv } from './vscode-executor.js';

test('what a Copilot CLI command is', () => {
  assert.ok(isCopilotCommand(['/usr/lib/node_modules/@github/copilot-linux-x64/copilot', '-p', 'x']));
  assert.ok(isCopilotCommand(['copilot']));
  assert.ok(isCopilotCommand(['/usr/bin/node', '/usr/lib/node_modules/@github/copilot/index.js']));
  assert.ok(isCopilotCommand(['x'], '/opt/homebrew/bin/copilot'));
  assert.ok(isCopilotCommand(['/usr/bin/node', '/usr/local/bin/copilot', '-p', 'x']), 'node running the bin on PATH');
  for (const argv of [
    ['/usr/share/code/code', '--type=extensionHost'],
    ['/bin/bash', '-c', 'copilot'],
    ['node', '/home/u/copilot-wrapper.js'],
    ['/usr/bin/copilot-agent-host'],
    [''],
  ])
    assert.equal(isCopilotCommand(argv), false, argv.join(' '));
});

/**
 * Starts a stand-in process named `argv0` that runs `hooks` (a shell and its arguments, the command last, and
 * the payload for its stdin) one after another, as its children, then waits to be killed.
 */
function standIn(argv0: string, hooks: Array<{ shell: string[]; input: string }>, env: Record<string, string>): ChildProcess {
  const script = `
const { spawnSync } = require('child_process');
for (const h of JSON.parse(process.argv[1])) {
  const r = spawnSync(h.shell[0], h.shell.slice(1), { input: h.input, env: process.env, cwd: process.env.HOME });
  if (r.status !== 0 || String(r.stdout) !== '') process.exit(3);
}
setInterval(() => {}, 1000);
`;
  return start(process.execPath, ['-e', script, JSON.stringify(hooks)], { argv0, env }).child;
}

/** fleet's kill key on a card, as claude-code-fleet 1.4.4's Master.killWorker does it: SIGTERM to its ppid when it has one. */
function fleetKill(card: Received): boolean {
  if (typeof card.ppid !== 'number') return false;
  try {
    process.kill(card.ppid, 'SIGTERM');
    return true;
  } catch {
    return false;
  }
}

describe("a card's process: the Copilot CLI's own, or none", () => {
  const world = enabledHooks('fleet-git-parent-', 300);
  const { sb, paths, cmd } = world;
  let obs: TestObserver;
  const running: ChildProcess[] = [];
  before(async () => {
    assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`);
    obs = await TestObserver.start(paths.fleetSocket);
  });
  after(async () => {
    for (const p of running) p.kill('SIGKILL');
    await obs?.close();
  });
  const cliStart = (sid: string) =>
    readFileSync(join(FIXTURES, 'sessionStart.json'), 'utf8').replace(/"sessionId": *"[^"]+"/, `"sessionId": "${sid}"`);
  const exited = (p: ChildProcess) => new Promise<NodeJS.Signals | number | null>((r) => p.once('exit', (code, sig) => r(sig ?? code)));

  test("a Copilot CLI's card names its process; fleet's kill ends that session only", async () => {
    const env = { ...world.env, COPILOT_HOOK_DIR: join(world.repo, '.github', 'hooks') };
    const bash = (sid: string) => ({ shell: ['/bin/bash', '--norc', '--noprofile', '-c', cmd('sessionStart')], input: cliStart(sid) });
    const a = standIn('/opt/copilot/bin/copilot', [bash('cli-a')], env);
    const b = standIn('/opt/copilot/bin/copilot', [bash('cli-b')], env);
    running.push(a, b);
    const cardA = await obs.waitFor((e) => e.session_id === 'cli-a');
    const cardB = await obs.waitFor((e) => e.session_id === 'cli-b');
    assert.deepEqual([cardA.ppid, cardB.ppid], [a.pid, b.pid]);
    assert.equal(typeof cardA.pid, 'number');
    const gone = exited(a);
    assert.ok(fleetKill(cardA));
    assert.equal(await gone, 'SIGTERM');
    assert.ok(isAlive(b.pid!), 'the other session runs on');
  });

  test("a VS Code session's card names no process: fleet's kill leaves the editor's extension host running", async () => {
    // The editor's own environment; its executor leaves out VSCODE_*, GITHUB_*, COPILOT_* and runs /bin/sh -c.
    const payload = JSON.stringify({
      timestamp: new Date().toISOString(),
      hook_event_name: 'SessionStart',
      session_id: 'vscode-chat-1',
      transcript_path: join(sb.dir, 'Code', 'User', 'workspaceStorage', 'x', 'GitHub.copilot-chat', 'transcripts', 'vscode-chat-1.jsonl'),
      cwd: world.repo,
      source: 'new',
    });
    const env = executorEnv({ ...world.env, VSCODE_PID: '1', VSCODE_IPC_HOOK: '/tmp/x' });
    const host = standIn('/usr/share/code/code', [{ shell: ['/bin/sh', '-c', cmd('sessionStart')], input: payload }], env);
    running.push(host);
    const card = await obs.waitFor((e) => e.session_id === 'vscode-chat-1');
    assert.deepEqual([card.term_program, card.pid, card.ppid], ['vscode', null, null]);
    assert.equal(fleetKill(card), false, 'fleet asks about an unknown PID and does nothing');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(isAlive(host.pid!), 'the stand-in extension host still runs');
  });

  test('a CLI-shaped session whose hook parent is no Copilot CLI (a wrapper, a shell, an Agent Host) names no process', async () => {
    const env = { ...world.env, COPILOT_HOOK_DIR: join(world.repo, '.github', 'hooks') };
    const wrapper = standIn(
      '/usr/lib/agent-host/node',
      [{ shell: ['/bin/bash', '--norc', '--noprofile', '-c', cmd('sessionStart')], input: cliStart('wrapped') }],
      env,
    );
    running.push(wrapper);
    const card = await obs.waitFor((e) => e.session_id === 'wrapped');
    assert.deepEqual([card.pid, card.ppid], [null, null]);
    assert.ok(isAlive(wrapper.pid!));
  });

  test('judged: what it looked at, and a PID that started after the event is not trusted', async () => {
    const p = standIn('copilot', [], world.env);
    running.push(p);
    await until('the stand-in runs', () => judgeParent(p.pid!, Date.now()).isCopilot, 5000);
    const now = judgeParent(p.pid!, Date.now());
    assert.equal(now.why, 'a Copilot CLI process, running since before the event');
    assert.match(String(now.command), /^copilot -e /);
    assert.ok(Math.abs(now.startedMs! - Date.now()) < 10_000, String(now.startedMs));
    const before = judgeParent(p.pid!, Date.now() - 60_000);
    assert.deepEqual([before.isCopilot, before.why], [false, 'it started after the event (a PID reused)']);
    assert.deepEqual(judgeParent(process.pid, Date.now()).why, 'not a Copilot CLI process');
    // A Copilot CLI that node runs from its bin on PATH (a script named copilot): as the kernel starts it, `node .../copilot`.
    const bin = join(sb.dir, 'node-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'copilot'), `#!${process.execPath}\nsetInterval(() => {}, 1000);\n`, { mode: 0o755 });
    const script = start(join(bin, 'copilot'), [], { env: world.env }).child;
    running.push(script);
    await until('the script runs', () => judgeParent(script.pid!, Date.now()).command !== null, 5000);
    const judged = judgeParent(script.pid!, Date.now() + 1000);
    assert.deepEqual(
      [judged.isCopilot, judged.why, judged.command],
      [true, 'a Copilot CLI process, running since before the event', `${process.execPath} ${join(bin, 'copilot')}`],
    );
    p.kill('SIGKILL');
    await exited(p);
    assert.equal(judgeParent(p.pid!, Date.now()).why, 'the process is gone');
  });
});
