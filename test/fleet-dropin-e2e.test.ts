// fleet-git's CopilotAdapter as fleet would use it, end to end with the real
// Copilot CLI run offline (see copilot-e2e.test.ts, src/copilot/model-server.ts): the hook file comes from
// installHooks(<fleet's hook client>, repo), and the client is a small stand-in
// for fleet's own (`node <client> --tool copilot`: it reads stdin, passes the
// payload to `new CopilotAdapter().normalizePayload` with no event, and sends
// the result to the observer's socket), loading fleet-git by its package name.
// Needs `npm run build` (dist/index.js).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CopilotAdapter } from '../src/core/adapter.js';
import { userPaths } from '../src/paths.js';
import { DEFAULT_SCRIPT as SCRIPT, startModelServer } from '../src/copilot/model-server.js';
import { COPILOT, copilotCache, copilotPrompt, hooksSettled, offlineCopilotEnv, ROOT, sandbox } from './helpers.js';
import { observerSummary, TestObserver } from './observer-server.js';

// What fleet's hook client does with a Copilot event, less its session files
// and notifications: the adapter found by --tool, the payload normalized with
// no event given, one line to the socket.
const STAND_IN = `'use strict';
const net = require('net');
const os = require('os');
const path = require('path');
const { CopilotAdapter } = require('fleet-git');
const tool = process.argv[process.argv.indexOf('--tool') + 1];
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const payload = new CopilotAdapter().normalizePayload(JSON.parse(input));
  if (!payload) return;
  payload._tool = tool;
  payload.tool = tool;
  const sock = net.connect(path.join(os.homedir(), '.config', 'claude-code-fleet', 'fleet.sock'), () => sock.end(JSON.stringify(payload) + '\\n'));
  sock.on('error', () => {});
});
`;

describe("fleet's hook client and fleet-git's CopilotAdapter, on the real Copilot CLI", () => {
  const sb = sandbox('fleet-git-dropin-');
  const paths = userPaths(sb.env, sb.home);
  const cache = copilotCache();
  let repo: string;
  let obs: TestObserver;

  before(async () => {
    assert.ok(existsSync(COPILOT), `the Copilot CLI is missing at ${COPILOT}: run npm ci (it is a pinned devDependency)`);
    assert.ok(existsSync(join(ROOT, 'dist', 'index.js')), 'dist/index.js is missing: run npm run build');
    // Where fleet keeps its hook client, with fleet-git installed beside it.
    const hooksDir = join(sb.home, '.config', 'claude-code-fleet', "hooks (fleet's)");
    mkdirSync(join(hooksDir, 'node_modules'), { recursive: true });
    symlinkSync(ROOT, join(hooksDir, 'node_modules', 'fleet-git'));
    const client = join(hooksDir, 'hook-client.js');
    writeFileSync(client, STAND_IN);
    repo = sb.repo('fleet-demo');
    new CopilotAdapter({ env: sb.env }).installHooks(client, repo);
    obs = await TestObserver.start(paths.fleetSocket);
  });
  after(() => obs?.close());

  test('SessionStart, PostToolUse (Bash: …), Stop with the last message and Stop at the end, each once', { timeout: 120_000 }, async () => {
    const model = await startModelServer();
    try {
      const env = { ...offlineCopilotEnv(sb.env, model.baseUrl, 'fleet-profile'), XDG_CACHE_HOME: cache };
      await copilotPrompt('list files', repo, env);

      const start = await obs.waitFor((e) => e.event === 'SessionStart', 15_000);
      const sid = start.session_id;
      await obs.waitFor((e) => e.session_id === sid && e.event === 'Stop' && e.message === 'complete', 15_000);
      // Copilot has exited, and it waits for every hook: once no fleet-git process runs and nothing is spooled, anything sent twice is in.
      await hooksSettled(sb.home, join(paths.dataDir, 'spool'));
      const events = obs.events.filter((e) => e.session_id === sid);
      assert.deepEqual(obs.badLines, []);
      assert.equal(events.length, obs.events.length, 'one session only');

      const starts = events.filter((e) => e.event === 'SessionStart');
      assert.equal(starts.length, 1);
      assert.deepEqual([start.cwd, start.model, start.fleet_model_name, start._tool], [repo, 'gpt-4.1', 'fleet-profile', 'copilot']);
      const bash = events.filter((e) => e.event === 'PostToolUse' && observerSummary(e.tool_name, e.tool_input).startsWith('Bash: '));
      assert.equal(bash.length, 1, JSON.stringify(events));
      assert.equal(observerSummary(bash[0]!.tool_name, bash[0]!.tool_input), `Bash: ${SCRIPT.command}`);
      assert.match(String(bash[0]!.tool_output), /hello-from-tool/);
      const stops = events.filter((e) => e.event === 'Stop');
      assert.equal(stops.filter((e) => e.last_assistant_message === SCRIPT.finalText).length, 1, JSON.stringify(stops));
      assert.equal(stops.filter((e) => e.message === 'complete').length, 1, JSON.stringify(stops));
      assert.equal(stops.length, 2);
    } finally {
      await model.close();
    }
  });
});
