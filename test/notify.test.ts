// fleet's desktop notifications through the real hook command and forwarder (dist/hook-client.cjs): fleet's
// notifier in its hooks folder (test/fleet-notifier.ts), a `notify-send` on PATH that records its arguments. The
// real Copilot CLI's sessions: copilot-subagents-e2e.test.ts.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hooksSettled } from './helpers.js';
import { enabledHooks, runHook, tool, until } from './hook-run.js';
import { TestObserver } from './observer-server.js';
import { FLEET_NOTIFIER } from './fleet-notifier.js';

describe("fleet's notifications from the forwarder", () => {
  const t = enabledHooks('fleet-git-notify-', 300);
  const bin = join(t.sb.dir, 'bin');
  const log = join(t.sb.dir, 'notify-send.log');
  const release = join(t.sb.dir, 'release');
  const notifier = join(t.paths.fleetDir, 'hooks', 'notifier.js');
  // A notify-send that records its arguments, then (when `hold` exists) waits until `release` does.
  const hold = join(t.sb.dir, 'hold');
  const env = { ...t.env, PATH: `${bin}:${t.env.PATH}` };
  const notices = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter((l) => l.endsWith(']'))
          .map((l) => JSON.parse(l) as string[])
      : [];
  const settled = () => hooksSettled(t.sb.home, t.spool, 20_000);
  const stop = (sid: string, text: string) =>
    JSON.stringify({ sessionId: sid, timestamp: Date.now(), cwd: '/w/demo', stopReason: 'end_turn', last_assistant_message: text });

  before(() => {
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'notify-send'),
      `#!/usr/bin/env node
const fs = require('fs');
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');
if (fs.existsSync(${JSON.stringify(hold)})) { const w = () => { if (!fs.existsSync(${JSON.stringify(release)})) setTimeout(w, 20); }; w(); }
`,
    );
    chmodSync(join(bin, 'notify-send'), 0o755);
    mkdirSync(join(t.paths.fleetDir, 'hooks'), { recursive: true });
    writeFileSync(notifier, FLEET_NOTIFIER);
  });

  test("without an observer: a turn's end notifies, with its answer; a session's end after it does not", async () => {
    rmSync(log, { force: true });
    await runHook(t.cmd('agentStop'), stop('n-1', 'All finished.'), env, { cwd: t.repo });
    await runHook(t.cmd('sessionEnd'), JSON.stringify({ sessionId: 'n-1', reason: 'complete' }), env, { cwd: t.repo });
    await runHook(
      t.cmd('notification'),
      JSON.stringify({ sessionId: 'n-1', cwd: '/w/demo', message: 'Path permission needed: /etc', notification_type: 'permission_prompt' }),
      env,
      { cwd: t.repo },
    );
    await settled();
    // Each notice runs in a process of its own: two in a row may finish in either order.
    assert.deepEqual(notices().sort(), [
      ['GitHub Copilot 通知', 'Path permission needed: /etc'],
      ['GitHub Copilot', 'All finished.'],
    ]);
  });

  describe('with an observer', () => {
    let obs: TestObserver;
    before(async () => {
      obs = await TestObserver.start(t.paths.fleetSocket);
    });
    after(() => obs.close());

    test('a notify-send that does not return holds back no event: the next one reaches the observer meanwhile', async () => {
      rmSync(log, { force: true });
      writeFileSync(hold, '');
      try {
        await runHook(t.cmd('agentStop'), stop('n-2', 'Turn one.'), env, { cwd: t.repo });
        await until('the notice to start', () => notices().length === 1);
        await runHook(t.cmd('postToolUse'), tool('n-2', 7), env, { cwd: t.repo });
        await obs.waitFor((e) => e.session_id === 'n-2' && e.event === 'PostToolUse');
        assert.equal(existsSync(release), false);
      } finally {
        writeFileSync(release, '');
      }
      await settled();
      rmSync(hold);
      rmSync(release);
      assert.deepEqual(notices(), [['GitHub Copilot', 'Turn one.']]);
    });

    test("a subagent's stop notifies no one; without fleet's notifier nothing is sent, and the events still go", async () => {
      rmSync(log, { force: true });
      const sub = JSON.stringify({
        ...JSON.parse(stop('n-3-sub', 'sub done')),
        agentId: 'n-3-sub',
        agentType: 'task',
        parentAgentId: 'n-3',
      });
      await runHook(t.cmd('postToolUse'), tool('n-3', 0), env, { cwd: t.repo });
      await runHook(t.cmd('agentStop'), sub, env, { cwd: t.repo });
      await settled();
      assert.deepEqual(notices(), []);
      rmSync(notifier);
      try {
        await runHook(t.cmd('agentStop'), stop('n-3', 'Top done.'), env, { cwd: t.repo });
        await obs.waitFor((e) => e.session_id === 'n-3' && e.event === 'Stop');
        await settled();
        assert.deepEqual(notices(), []);
      } finally {
        writeFileSync(notifier, FLEET_NOTIFIER);
      }
    });
  });
});
