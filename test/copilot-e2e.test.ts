// End to end with the real Copilot CLI (@github/copilot, pinned in package.json):
// `copilot -p` runs fully offline against a scripted OpenAI-compatible server
// on loopback, in a temporary repository enabled with the real `fleet-git
// enable`, and the test observer checks what reached the fleet socket.
// Needs `npm run build` (dist/cli.cjs and dist/cli-main.cjs, dist/hook-client.cjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isAlive, parentOf } from '../src/fs/process.js';
import { userPaths } from '../src/paths.js';
import { DEFAULT_SCRIPT as SCRIPT, startModelServer, type ModelServer } from '../src/copilot/model-server.js';
import {
  CLI,
  COPILOT,
  copilotCache,
  copilotSkip,
  copilotVersion,
  fleetGitNodes,
  fleetGitProcesses,
  hooksSettled,
  offlineCopilotEnv,
  sandbox,
} from './helpers.js';
import { observerSummary, sessionShape, sessionShapeOf, TestObserver, type Received } from './observer-server.js';

interface Run {
  code: number | null;
  output: string;
  pid: number;
}

/**
 * One case's world: a sandbox (HOME, data folder, spool, observer socket) with an enabled repository, its
 * observer, and what that saw about each SessionStart's ppid while Copilot ran. Cases share nothing but
 * Copilot's package cache, so they run at once. Call it in a describe's body (it registers hooks).
 */
function world(prefix: string, cache: string) {
  const sb = sandbox(prefix);
  const paths = userPaths(sb.env, sb.home);
  let repo = '';
  let copilotPid = 0;
  let copilotRunning = false;
  // What the observer saw about each SessionStart's ppid while Copilot ran.
  const ppidChecks: Array<{ ppid: number; alive: boolean; during: boolean; isCopilot: boolean | null; parent: number | null }> = [];
  let obs!: TestObserver;
  // Linux: the executables of fleet-git's node processes (the hook client, the forwarder) seen while Copilot ran:
  // the node first on PATH, the tests' own (.ci/run runs the suite so on each Node of its matrix).
  const nodes = new Set<string>();
  const lookAtNodes = () => {
    for (const { exe } of fleetGitNodes(sb.home)) nodes.add(exe);
  };

  before(async () => {
    assert.ok(existsSync(COPILOT), `the Copilot CLI is missing at ${COPILOT}: run npm ci (it is a pinned devDependency)`);
    assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build`);
    repo = sb.repo('demo');
    const enabled = sb.cli(repo, 'enable');
    assert.equal(enabled.status, 0, `fleet-git enable failed:\n${enabled.stdout}\n${enabled.stderr}`);
    assert.ok(existsSync(join(repo, '.github', 'hooks', 'fleet.json')));
    obs = await TestObserver.start(paths.fleetSocket, {
      onEvent(e) {
        if (e.event !== 'SessionStart' || typeof e.ppid !== 'number') return;
        const ppid = e.ppid;
        // The agent is the copilot process we started, or the native binary its loader started.
        const isCopilot = process.platform === 'linux' ? ppid === copilotPid || parentOf(ppid) === copilotPid : null;
        ppidChecks.push({ ppid, alive: isAlive(ppid), during: copilotRunning, isCopilot, parent: parentOf(ppid) });
      },
    });
  });
  after(() => obs?.close());

  function runCopilot(model: ModelServer, prompt: string, more: Record<string, string> = {}): Promise<Run> {
    const env = { ...offlineCopilotEnv(sb.env, model.baseUrl, 'e2e-profile'), XDG_CACHE_HOME: cache, ...more };
    const child = spawn(COPILOT, ['-p', prompt, '--allow-all', '--no-auto-update'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid ?? 0;
    copilotPid = pid;
    copilotRunning = true;
    const looking = process.platform === 'linux' ? setInterval(lookAtNodes, 25) : undefined;
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    return new Promise((resolve) => {
      child.on('error', (err) => {
        clearInterval(looking);
        copilotRunning = false;
        resolve({ code: -1, output: String(err), pid });
      });
      child.on('close', (code) => {
        clearInterval(looking);
        copilotRunning = false;
        resolve({ code, output, pid });
      });
    });
  }

  /**
   * This session's events, once its turn-end Stop (the one with the message) and its session-end Stop are in. Copilot
   * has exited, but the forwarder sends after it, in order: the session end, its last event, may come a moment
   * after the turn's end. When it does not come in 15 s, checkSession says so.
   */
  async function sessionEvents(): Promise<{ sid: string; events: Received[] }> {
    const start = obs.events.filter((e) => e.event === 'SessionStart').at(-1);
    assert.ok(start, `no SessionStart reached the observer; got ${JSON.stringify(obs.events.map((e) => e.event))}`);
    const sid = String(start.session_id);
    await obs.waitFor((e) => e.session_id === sid && e.event === 'Stop' && e.last_assistant_message !== null, 15_000);
    await obs.waitFor((e) => e.session_id === sid && e.event === 'Stop' && e.message === 'complete', 15_000).catch(() => undefined);
    return { sid, events: obs.events.filter((e) => e.session_id === sid) };
  }

  function checkSession(sid: string, events: Received[]) {
    const start = events.find((e) => e.event === 'SessionStart')!;
    assert.equal(start.cwd, repo);
    assert.equal(start.model, 'gpt-4.1');
    assert.equal(start.fleet_model_name, 'e2e-profile');
    assert.equal(start._tool, 'copilot');
    const check = ppidChecks.find((c) => c.ppid === start.ppid);
    assert.ok(check, 'the SessionStart carried no ppid');
    assert.equal(check.during, true, 'SessionStart arrived after Copilot exited');
    assert.equal(check.alive, true, `ppid ${start.ppid} was not alive while Copilot ran`);
    if (check.isCopilot !== null)
      assert.equal(check.isCopilot, true, `ppid ${start.ppid} is not the Copilot process (${copilotPid}) or its child`);

    const tools = events.filter((e) => e.event === 'PostToolUse');
    const bash = tools.find((e) => observerSummary(e.tool_name, e.tool_input).startsWith('Bash: '));
    assert.ok(bash, `no PostToolUse the observer shows as "Bash: ..."; got ${JSON.stringify(tools)}`);
    assert.equal(observerSummary(bash.tool_name, bash.tool_input), `Bash: ${SCRIPT.command}`);
    assert.match(String(bash.tool_output), /hello-from-tool/);
    const view = tools.find((e) => e.tool_name === 'Read');
    assert.ok(view, 'no PostToolUse for the failed view');
    assert.equal(observerSummary(view.tool_name, view.tool_input), 'Read xyz.txt');
    assert.equal(view.tool_output, 'Path does not exist');

    const stops = events.filter((e) => e.event === 'Stop');
    assert.ok(
      stops.some((e) => e.last_assistant_message === SCRIPT.finalText),
      `no Stop with the last message; got ${JSON.stringify(stops)}`,
    );
    assert.ok(
      stops.some((e) => e.message === 'complete'),
      'no Stop for the session end',
    );
    assert.deepEqual(obs.badLines, []);
    if (process.platform === 'linux')
      assert.deepEqual(
        [...nodes],
        [realpathSync(process.execPath)],
        `fleet-git's node processes ran another node than ${process.version}'s`,
      );

    const file = JSON.parse(readFileSync(join(paths.fleetSessions, `${sid}.json`), 'utf8'));
    assert.equal(file.sessionId, sid);
    assert.equal(file.tool, 'copilot');
    assert.equal(file.ppid, start.ppid);
    assert.equal(typeof file.stoppedAt, 'number');
    assert.equal(file.lastMessage?.text, SCRIPT.finalText);
  }

  return {
    sb,
    paths,
    ppidChecks,
    runCopilot,
    sessionEvents,
    checkSession,
    get obs() {
      return obs;
    },
  };
}

// Each case in a describe of its own (its world's hooks run for it alone). The two single sessions run at once;
// the 8 sessions after them, alone: ten Copilots starting together on 2 loaded cores can keep a sessionStart hook
// waiting past its timeoutSec.
describe(`Copilot CLI ${copilotVersion()} end to end`, { skip: copilotSkip, concurrency: 1 }, () => {
  const cache = copilotCache();

  describe('single sessions, side by side', { concurrency: 2 }, () => {
    describe('one session', () => {
      const w = world('fleet-git-e2e-', cache);
      test('a session: start with a live ppid, a bash call, a failed view, the final answer', { timeout: 120_000 }, async () => {
        const model = await startModelServer();
        try {
          const run = await w.runCopilot(model, 'list files');
          assert.equal(run.code, 0, `copilot -p failed:\n${run.output}`);
          assert.ok(model.requests.length >= 3, `the model server saw ${model.requests.length} requests`);
          const { sid, events } = await w.sessionEvents();
          w.checkSession(sid, events);
        } finally {
          await model.close();
        }
      });
    });

    describe('a slow final answer', () => {
      const w = world('fleet-git-e2e-slow-', cache);
      test('a slow final answer (the transcript lags behind agentStop) still reaches the observer', { timeout: 120_000 }, async () => {
        const model = await startModelServer({ finalDelayMs: 2500 });
        try {
          const run = await w.runCopilot(model, 'list files slowly');
          assert.equal(run.code, 0, `copilot -p failed:\n${run.output}`);
          const { sid, events } = await w.sessionEvents();
          w.checkSession(sid, events);
        } finally {
          await model.close();
        }
      });
    });
  });

  describe('8 sessions at once', () => {
    const w = world('fleet-git-e2e-8-', cache);
    test(
      '8 sessions at once, 50 tool calls each: every event reaches the observer once, each session in order',
      { timeout: 600_000 },
      async () => {
        const model = await startModelServer({ toolCalls: 50 });
        const before = new Set(w.obs.events.map((e) => e.session_id));
        try {
          // Each session its own terminal; the forwarder lingers 1 s instead of 10 once idle.
          const terminal = (i: number) => ({
            TERM_PROGRAM: 'iTerm.app',
            ITERM_SESSION_ID: `w0t${i}p0:E2E-${i}`,
            FLEET_GIT_FORWARDER_IDLE_MS: '1000',
          });
          const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => w.runCopilot(model, `steps, session ${i}`, terminal(i))));
          for (const run of runs) assert.equal(run.code, 0, `copilot -p failed:\n${run.output}`);
          const sessions = () => [...new Set(w.obs.events.map((e) => e.session_id))].filter((s) => !before.has(s));
          await w.obs.waitFor(
            () =>
              sessions().length === 8 &&
              sessions().every((sid) => w.obs.events.some((e) => e.session_id === sid && e.message === 'complete')),
            60_000,
          );
          // Every Copilot has exited: once no hook command or forwarder runs and the spool is empty (the forwarder
          // goes 1 s after the last event), nothing more can arrive, a second copy of anything included.
          const spool = join(w.paths.dataDir, 'spool');
          await hooksSettled(w.sb.home, spool, 15_000);
          for (const sid of sessions()) {
            assert.deepEqual(sessionShape(w.obs.events.filter((e) => e.session_id === sid)), sessionShapeOf(50), sid as string);
          }
          assert.deepEqual(w.obs.badLines, []);
          // Each SessionStart: the Copilot process of its own session as ppid (alive then), the hook's pid, its terminal, its model.
          const starts = sessions().map((sid) => w.obs.events.find((e) => e.session_id === sid && e.event === 'SessionStart')!);
          const runPids = runs.map((r) => r.pid);
          for (const start of starts) {
            const check = w.ppidChecks.find((c) => c.ppid === start.ppid);
            assert.ok(check, `${start.session_id}: no ppid`);
            assert.deepEqual(
              [check.during, check.alive],
              [true, true],
              `${start.session_id}: ppid ${start.ppid} not alive while Copilot ran`,
            );
            if (process.platform === 'linux')
              assert.ok(
                runPids.includes(start.ppid as number) || runPids.includes(check.parent as number),
                `${start.session_id}: ppid ${start.ppid} (parent ${check.parent}) is none of the Copilot processes ${runPids.join(', ')}`,
              );
            assert.equal(typeof start.pid, 'number');
            assert.notEqual(start.pid, start.ppid);
            assert.deepEqual([start.model, start.fleet_model_name, start.term_program], ['gpt-4.1', 'e2e-profile', 'iTerm.app']);
          }
          assert.equal(new Set(starts.map((e) => e.ppid)).size, 8, 'one Copilot process per session');
          assert.deepEqual(
            starts.map((e) => e.iterm_session_id).sort(),
            Array.from({ length: 8 }, (_, i) => `w0t${i}p0:E2E-${i}`),
            "each session's own terminal",
          );
          // Once no session sends anything, nothing of fleet-git runs (hooksSettled waited up to 15 s for that), and
          // the spool is an empty folder only its owner reads.
          assert.deepEqual(fleetGitProcesses(w.sb.home), [], 'processes left running with the sandbox HOME');
          assert.deepEqual(readdirSync(spool), []);
          assert.equal(statSync(spool).mode & 0o777, 0o700);
        } finally {
          await model.close();
        }
      },
    );
  });
});
