// The built hook client (dist/hook-client.cjs, from `npm run build`) as a real
// process with an isolated HOME, against a real Unix socket server that frames
// like the fleet observer.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HOOK_MARK } from '../src/copilot/hook-mark.js';
import { LINE_MAX, sendEvent } from '../src/fleet/socket.js';
import { restoreSessionMessage } from '../src/fleet/sessions.js';
import { sleepSync } from '../src/fs/sleep.js';
import { userPaths } from '../src/paths.js';
import { FIXTURES, fleetGitNodes, fleetGitProcesses, hooksSettled, sandbox, snapshot } from './helpers.js';
import { observerSummary, RawObserver, TestObserver, wholeLines } from './observer-server.js';
import { CLIENT, runClient, runHook } from './hook-run.js';

const SID = '3111f3f3-d287-4b60-bd4b-f11fcf55db9e';
const fixtureText = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

before(() => {
  assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`);
});

describe('hook client with a listening observer', () => {
  const sb = sandbox();
  const paths = userPaths(sb.env, sb.home);
  let obs: TestObserver;
  before(async () => {
    obs = await TestObserver.start(paths.fleetSocket);
  });
  after(() => obs.close());

  test('forwards every supported real payload as one parseable line, prints nothing, exits 0', async () => {
    const forwarded: Record<string, string> = {
      'postToolUse.json': 'postToolUse',
      'postToolUseFailure.json': 'postToolUseFailure',
      'sessionEnd.json': 'sessionEnd',
      'errorOccurred.json': 'errorOccurred',
    };
    for (const [file, event] of Object.entries(forwarded)) {
      const r = await runClient(sb.env, [event], fixtureText(file));
      assert.deepEqual([r.code, r.stdout], [0, ''], `${file}: ${r.stderr}`);
    }
    const bash = await obs.waitFor((e) => e.event === 'PostToolUse' && e.tool_name === 'Bash');
    assert.equal(observerSummary(bash.tool_name, bash.tool_input), 'Bash: echo hello-from-tool');
    assert.equal(bash.tool_output, 'hello-from-tool\n<shellId: 0 completed with exit code 0>');
    const view = await obs.waitFor((e) => e.event === 'PostToolUse' && e.tool_name === 'Read');
    assert.equal(observerSummary(view.tool_name, view.tool_input), 'Read xyz.txt');
    assert.equal(view.tool_output, 'Path does not exist');
    const end = await obs.waitFor((e) => e.event === 'Stop' && e.message === 'complete');
    assert.equal(end.session_id, SID);
    const err = await obs.waitFor((e) => e.event === 'Notification');
    assert.match(String(err.message), /model call.*bad request test/);
    assert.deepEqual(obs.badLines, []);
  });

  test('events fleet-git does not forward send nothing', async () => {
    const before = obs.events.length;
    for (const [file, event] of [
      ['preToolUse.json', 'preToolUse'],
      ['permissionRequest.json', 'permissionRequest'],
      ['userPromptSubmitted.json', 'userPromptSubmitted'],
      ['postToolUse.json', 'subagentStart'],
      ['postToolUse.json', ''],
    ] as const) {
      const r = await runClient(sb.env, [event], fixtureText(file));
      assert.deepEqual([r.code, r.stdout], [0, '']);
    }
    // A marker sent last: once it is in, anything the calls above sent would be too.
    const marker = JSON.stringify({ sessionId: 'marker-1', toolName: 'glob', toolArgs: { pattern: '*.md' } });
    await runClient(sb.env, ['postToolUse'], marker);
    await obs.waitFor((e) => e.session_id === 'marker-1');
    await obs.drained(); // and each client has exited: all they sent has been read
    assert.deepEqual(
      obs.events.slice(before).map((e) => e.session_id),
      ['marker-1'],
    );
  });

  test('SessionStart: the agent as ppid even through a shell, the session file as the observer reads it', async () => {
    const env = { ...sb.env, FLEET_MODEL_NAME: 'work-gpt', COPILOT_MODEL: 'gpt-4.1', TERM_PROGRAM: 'vscode' };
    const payload = fixtureText('sessionStart.json').replace(SID, 'start-shell');
    const r = await runClient(env, ['sessionStart'], payload, true);
    assert.deepEqual([r.code, r.stdout], [0, ''], r.stderr);
    const ev = await obs.waitFor((e) => e.session_id === 'start-shell');
    assert.equal(ev.event, 'SessionStart');
    // The shell that ran the client (not exec'ing it) is skipped: the parent is this test process.
    assert.equal(ev.ppid, process.pid);
    assert.equal(typeof ev.pid, 'number');
    assert.equal(ev.model, 'gpt-4.1');
    assert.equal(ev.fleet_model_name, 'work-gpt');
    assert.equal(ev.term_program, 'vscode');
    const file = JSON.parse(readFileSync(join(paths.fleetSessions, 'start-shell.json'), 'utf8'));
    assert.deepEqual(Object.keys(file), [
      'sessionId',
      'cwd',
      'model',
      'tool',
      'term_program',
      'iterm_session_id',
      'pid',
      'ppid',
      'fleet_model_name',
      'timestamp',
    ]);
    assert.deepEqual(
      { ...file, timestamp: 0 },
      {
        sessionId: 'start-shell',
        cwd: '/home/dev/code/demo',
        model: 'gpt-4.1',
        tool: 'copilot',
        term_program: 'vscode',
        iterm_session_id: null,
        pid: ev.pid,
        ppid: process.pid,
        fleet_model_name: 'work-gpt',
        timestamp: 0,
      },
    );
    assert.deepEqual(readdirSync(paths.fleetSessions), ['start-shell.json']);
  });

  test("FLEET_GIT_OBSERVER_DIR sends the events and keeps the session files there, not at the home's observer", async () => {
    const dir = join(sb.dir, 'probe-observer');
    const other = await TestObserver.start(join(dir, 'fleet.sock'));
    try {
      const before = obs.events.length;
      const env = { ...sb.env, FLEET_GIT_OBSERVER_DIR: dir };
      await runClient(env, ['sessionStart'], fixtureText('sessionStart.json').replace(SID, 'redirected'));
      await runClient(env, ['sessionEnd'], fixtureText('sessionEnd.json').replace(SID, 'redirected'));
      await other.waitFor((e) => e.session_id === 'redirected' && e.event === 'Stop');
      assert.deepEqual(
        other.events.map((e) => e.event),
        ['SessionStart', 'Stop'],
      );
      assert.deepEqual(readdirSync(join(dir, 'sessions')), ['redirected.json']);
      assert.equal(existsSync(join(paths.fleetSessions, 'redirected.json')), false);
      // A relative folder is ignored: the home's observer gets the event.
      await runClient(
        { ...sb.env, FLEET_GIT_OBSERVER_DIR: 'rel' },
        ['sessionEnd'],
        fixtureText('sessionEnd.json').replace(SID, 'not-redirected'),
      );
      await obs.waitFor((e) => e.session_id === 'not-redirected');
      assert.deepEqual(
        obs.events.slice(before).map((e) => e.session_id),
        ['not-redirected'],
      );
    } finally {
      await other.close();
    }
  });

  test('SessionStart without COPILOT_MODEL takes the model from the transcript', async () => {
    const id = 'start-transcript';
    const dir = join(paths.copilotHome, 'session-state', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'events.jsonl'), readFileSync(join(FIXTURES, 'transcript-events.jsonl'), 'utf8').split('\n')[0] + '\n');
    await runClient(sb.env, ['sessionStart'], fixtureText('sessionStart.json').replace(SID, id));
    const ev = await obs.waitFor((e) => e.session_id === id);
    assert.equal(ev.model, 'gpt-4.1');
  });

  test('agentStop with the final message on disk: Stop with it, session file updated', async () => {
    const id = 'stop-ready';
    await runClient(sb.env, ['sessionStart'], fixtureText('sessionStart.json').replace(SID, id));
    await obs.waitFor((e) => e.session_id === id);
    const transcript = join(sb.dir, `${id}.jsonl`);
    writeFileSync(transcript, readFileSync(join(FIXTURES, 'transcript-events.jsonl')));
    const r = await runClient(
      sb.env,
      ['agentStop'],
      JSON.stringify({ ...JSON.parse(fixtureText('agentStop.json')), sessionId: id, transcriptPath: transcript }),
    );
    assert.deepEqual([r.code, r.stdout], [0, '']);
    const stop = await obs.waitFor((e) => e.session_id === id && e.event === 'Stop');
    assert.equal(stop.last_assistant_message, 'Done. All finished.');
    const file = JSON.parse(readFileSync(join(paths.fleetSessions, `${id}.json`), 'utf8'));
    assert.equal(typeof file.stoppedAt, 'number');
    assert.equal(file.lastMessage.text, 'Done. All finished.');
    assert.equal(typeof file.lastMessage.time, 'number');
  });

  test('agentStop before the final message is on disk: the hook returns, the Stop follows with the message', async () => {
    const id = 'stop-lagging';
    const lines = readFileSync(join(FIXTURES, 'transcript-events.jsonl'), 'utf8').split('\n').filter(Boolean);
    const final = lines.findIndex((l) => l.includes('"Done. All finished."'));
    const transcript = join(sb.dir, `${id}.jsonl`);
    writeFileSync(transcript, lines.slice(0, final).join('\n') + '\n');
    // The wait for the message at its longest, so that it is still waiting when the message comes, on any load.
    const r = await runClient(
      { ...sb.env, FLEET_GIT_STOP_WAIT_MS: '60000' },
      ['agentStop'],
      JSON.stringify({ ...JSON.parse(fixtureText('agentStop.json')), sessionId: id, transcriptPath: transcript }),
    );
    assert.deepEqual([r.code, r.stdout], [0, '']);
    // The hook has exited; only now does the answer reach the transcript.
    assert.equal(
      obs.events.some((e) => e.session_id === id),
      false,
    );
    appendFileSync(transcript, lines.slice(final).join('\n') + '\n');
    const stop = await obs.waitFor((e) => e.session_id === id && e.event === 'Stop');
    assert.equal(stop.last_assistant_message, 'Done. All finished.');
  });

  test('a session file written back without the message (two hooks at once) gets it back, and one with it is left alone', () => {
    const id = 'stop-race';
    const dir = paths.fleetSessions;
    const file = join(dir, `${id}.json`);
    mkdirSync(dir, { recursive: true });
    // What the session's end writes when it read the file just before the Stop with the message landed.
    writeFileSync(file, JSON.stringify({ sessionId: id, tool: 'copilot', timestamp: 1, stoppedAt: 2 }));
    assert.equal(restoreSessionMessage(dir, id, 'Done. All finished.'), true);
    const back = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(back.lastMessage.text, 'Done. All finished.');
    assert.equal(back.timestamp, 1, 'the rest of the record stays');
    const text = readFileSync(file, 'utf8');
    assert.equal(restoreSessionMessage(dir, id, 'Done. All finished.'), false);
    assert.equal(readFileSync(file, 'utf8'), text, 'a file that has it is not rewritten');
    assert.equal(restoreSessionMessage(dir, 'no-such-session', 'x'), false);
    assert.equal(restoreSessionMessage(dir, '../escape', 'x'), false);
  });

  test('agentStop whose final message never comes: a Stop without a message, later', async () => {
    const id = 'stop-never';
    // The client waits FLEET_GIT_STOP_WAIT_MS (3 s unless set) for the message before it sends the Stop without it.
    const env = { ...sb.env, FLEET_GIT_STOP_WAIT_MS: '300' };
    const r = await runClient(env, ['agentStop'], JSON.stringify({ sessionId: id, transcriptPath: join(sb.dir, 'missing.jsonl') }));
    assert.deepEqual([r.code, r.stdout], [0, '']);
    const stop = await obs.waitFor((e) => e.session_id === id && e.event === 'Stop', 15_000);
    assert.equal(stop.last_assistant_message, null);
  });

  test('a tool named constructor, toString, __proto__, hasOwnProperty or valueOf reaches the observer (issue 12, item 10)', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const id = `proto-${name.replace(/_/g, '')}`;
      const r = await runClient(
        sb.env,
        ['postToolUse'],
        JSON.stringify({ sessionId: id, toolName: name, toolArgs: { command: 'ls' }, toolResult: { textResultForLlm: 'ok' } }),
      );
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
      const ev = await obs.waitFor((e) => e.session_id === id, 5000);
      assert.deepEqual([ev.event, ev.tool_name, ev.tool_output], ['PostToolUse', name, 'ok']);
    }
  });

  test('hostile input: exit 0, nothing on stdout, nothing unparseable sent, no path from a session id', async () => {
    const home = snapshot(sb.home, (rel) => rel.startsWith('.config/claude-code-fleet'));
    const big = JSON.stringify({
      sessionId: 'big-one',
      toolName: 'create',
      toolArgs: { path: '/w/big.txt', file_text: 'x'.repeat(6 * 1024 * 1024) },
      toolResult: { textResultForLlm: 'y\n'.repeat(1024 * 1024) },
    });
    const inputs: Array<[string, string | Buffer]> = [
      ['postToolUse', ''],
      ['postToolUse', '   \n'],
      ['postToolUse', '{"sessionId": "x", '],
      ['postToolUse', '[{"sessionId":"in-array","toolName":"bash"}]'],
      ['postToolUse', '42'],
      ['postToolUse', 'null'],
      ['postToolUse', Buffer.from([0xff, 0xfe, 0x00, 0x7b])],
      ['postToolUse', '{"toolName":"bash","toolArgs":{"command":"no id"}}'],
      ['sessionStart', JSON.stringify({ sessionId: '../../../escape', cwd: '/w' })],
      ['sessionStart', JSON.stringify({ sessionId: 'a/b', cwd: '/w' })],
      ['sessionStart', JSON.stringify({ sessionId: '..', cwd: '/w' })],
      ['agentStop', JSON.stringify({ sessionId: '../x', transcriptPath: '/etc/passwd' })],
      [
        'postToolUse',
        JSON.stringify({
          sessionId: 'weird-values',
          toolName: 'bash',
          toolArgs: { command: { nested: true } },
          cwd: 12,
          timestamp: 'not a date',
        }),
      ],
      ['postToolUse', big],
      ['postToolUse', JSON.stringify({ sessionId: 'u2028', toolName: 'bash', toolArgs: { command: 'echo \u2028\n\u0000 done' } })],
    ];
    for (const [event, input] of inputs) {
      const r = await runClient(sb.env, [event], input);
      assert.deepEqual([r.code, r.stdout], [0, ''], `${event} ${String(input).slice(0, 60)}: ${r.stderr}`);
    }
    const weird = await obs.waitFor((e) => e.session_id === 'weird-values');
    assert.equal(weird.cwd, null);
    assert.equal(observerSummary(weird.tool_name, weird.tool_input), 'Bash: ');
    const bigEv = await obs.waitFor((e) => e.session_id === 'big-one');
    assert.equal(observerSummary(bigEv.tool_name, bigEv.tool_input), 'Write big.txt');
    const u = await obs.waitFor((e) => e.session_id === 'u2028');
    assert.equal((u.tool_input as { command: string }).command, 'echo \u2028\n\u0000 done');
    assert.deepEqual(obs.badLines, []);
    const ids = obs.events.map((e) => String(e.session_id));
    for (const id of ids) assert.match(id, /^[A-Za-z0-9][A-Za-z0-9_.-]*$/);
    assert.equal(ids.includes('in-array'), false);
    // Nothing written outside the observer's folder, and no session file from the bad ids.
    assert.deepEqual(
      snapshot(sb.home, (rel) => rel.startsWith('.config/claude-code-fleet')),
      home,
    );
    assert.equal(existsSync(join(sb.dir, 'escape.json')), false);
    for (const f of readdirSync(paths.fleetSessions)) assert.match(f, /^[A-Za-z0-9][A-Za-z0-9_.-]*\.json$/);
  });
});

describe('hook client: which level reports when a user-level fleet.json is there', () => {
  const sb = sandbox();
  const paths = userPaths(sb.env, sb.home);
  const userFile = join(paths.copilotHome, 'hooks', 'fleet.json');
  const repoHooks = join(sb.dir, 'proj', '.github', 'hooks');
  const payload = (id: string) =>
    JSON.stringify({
      sessionId: id,
      timestamp: 1,
      cwd: '/x',
      toolName: 'bash',
      toolArgs: { command: 'ls' },
      toolResult: { resultType: 'success', textResultForLlm: '' },
    });
  const fromRepo = (id: string) => runClient({ ...sb.env, COPILOT_HOOK_DIR: repoHooks }, ['postToolUse'], payload(id));

  test("only a user-level file that is fleet-git's silences repository-level runs; anything else there (foreign, garbage, unreadable, a folder) does not, and the client still exits 0 quietly", async () => {
    const obs = await TestObserver.start(paths.fleetSocket);
    try {
      mkdirSync(join(paths.copilotHome, 'hooks'), { recursive: true });
      const ours = JSON.stringify({ version: 1, hooks: { postToolUse: [{ type: 'command', bash: `node x postToolUse # ${HOOK_MARK}` }] } });
      const cases: [string, () => void, boolean][] = [
        [
          'foreign',
          () => writeFileSync(userFile, JSON.stringify({ version: 1, hooks: { postToolUse: [{ type: 'command', bash: 'my-logger' }] } })),
          true,
        ],
        [
          'upstream',
          () => writeFileSync(userFile, JSON.stringify({ hooks: { postToolUse: [{ bash: 'fleet hook # claude-code-fleet' }] } })),
          true,
        ],
        ['garbage', () => writeFileSync(userFile, '{ not json'), true],
        ['mark-outside-commands', () => writeFileSync(userFile, JSON.stringify({ note: HOOK_MARK, hooks: {} })), true],
        [
          'unreadable',
          () => {
            writeFileSync(userFile, ours);
            chmodSync(userFile, 0o000);
          },
          process.getuid?.() !== 0,
        ],
        [
          'folder',
          () => {
            rmSync(userFile, { force: true });
            mkdirSync(userFile);
          },
          true,
        ],
        [
          'ours',
          () => {
            rmSync(userFile, { recursive: true, force: true });
            writeFileSync(userFile, ours);
          },
          false,
        ],
      ];
      const reported: string[] = [];
      for (const [name, make, expectReport] of cases) {
        make();
        const r = await fromRepo(`lvl-${name}`);
        assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], name);
        if (expectReport) reported.push(`lvl-${name}`);
        if (name === 'unreadable') chmodSync(userFile, 0o644);
      }
      // A user-level run always reports, whatever the repository's.
      await runClient({ ...sb.env, COPILOT_HOOK_DIR: join(paths.copilotHome, 'hooks') }, ['postToolUse'], payload('lvl-user-run'));
      await obs.waitFor((e) => e.session_id === 'lvl-user-run');
      await obs.drained(); // every client has exited: all they sent has been read
      assert.deepEqual(
        obs.events.map((e) => e.session_id),
        [...reported, 'lvl-user-run'],
      );
    } finally {
      await obs.close();
    }
  });
});

describe('hook client with no observer, or a broken one', () => {
  const sb = sandbox();
  const paths = userPaths(sb.env, sb.home);
  const payload = fixtureText('postToolUse.json');

  test('the hook command runs the client without NODE_EXTRA_CA_CERTS (node would load that CA bundle first, for a client that makes no TLS connection)', async () => {
    const repo = sb.repo('ca');
    assert.equal(sb.cli(repo, 'enable').status, 0);
    const command = JSON.parse(readFileSync(join(repo, '.github/hooks/fleet.json'), 'utf8')).hooks.postToolUse[0].bash as string;
    // The forwarder the hook starts stays (no observer, a long linger) until this test ends it, so its
    // environment, as the kernel keeps it from its start, is read in /proc on every Node and machine.
    const env = { ...sb.env, NODE_EXTRA_CA_CERTS: join(sb.dir, 'no-such-ca.pem'), FLEET_GIT_FORWARDER_IDLE_MS: '600000' };
    const r = await runHook(command, payload, env);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    const node = () => fleetGitNodes(sb.home).map((p) => p.pid);
    const deadline = Date.now() + 30_000;
    while (node().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const [forwarder] = node();
    assert.ok(forwarder, 'the hook started the client (its forwarder)');
    try {
      const environ = readFileSync(`/proc/${forwarder}/environ`, 'utf8').split('\0');
      assert.ok(environ.includes(`HOME=${sb.home}`), "the client's own environment, the hook's HOME in it");
      assert.deepEqual(
        environ.filter((v) => v.startsWith('NODE_EXTRA_CA_CERTS=')),
        [],
      );
    } finally {
      for (const pid of fleetGitProcesses(sb.home)) process.kill(pid, 'SIGKILL');
    }
    await hooksSettled(sb.home, join(sb.dir, 'none'));
    rmSync(join(paths.dataDir, 'spool'), { recursive: true, force: true }); // the killed forwarder's pid file and lock
  });

  test('no socket file: exits 0 at once, prints nothing', async () => {
    const r = await runClient(sb.env, ['postToolUse'], payload);
    assert.deepEqual([r.code, r.stdout], [0, '']);
    const s = await runClient(sb.env, ['sessionStart'], fixtureText('sessionStart.json'));
    assert.deepEqual([s.code, s.stdout], [0, '']);
  });

  test('a stale socket file (ECONNREFUSED): exits 0, prints nothing', async () => {
    mkdirSync(paths.fleetDir, { recursive: true });
    // A listener killed outright leaves its socket file behind.
    spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(paths.fleetSocket)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    assert.ok(existsSync(paths.fleetSocket));
    const r = await runClient(sb.env, ['postToolUse'], payload);
    assert.deepEqual([r.code, r.stdout], [0, '']);
  });

  test('an observer that accepts and never reads: exits 0, not held by it', async () => {
    const stuck = await TestObserver.start(paths.fleetSocket, { stuck: true });
    try {
      for (let i = 0; i < 3; i++) {
        // A client that waited for the observer to read would wait for ever: killed at the limit, no exit code.
        const r = await runClient(sb.env, ['postToolUse'], payload, false, 60_000);
        assert.deepEqual([r.code, r.stdout], [0, '']);
      }
    } finally {
      await stuck.close();
    }
  });

  for (const transport of ['auto', 'net'] as const) {
    test(`sendEvent (${transport}): delivered, absent, stale, and a reader that never reads`, async () => {
      const live = await TestObserver.start(paths.fleetSocket);
      // The limit is generous: it only stops a hung send; the result is decided by what the socket does.
      const limit = 30_000;
      try {
        assert.equal(
          await sendEvent(paths.fleetSocket, { event: 'Stop', session_id: `via-${transport}`, text: 'é\u2028\n' }, limit, transport),
          true,
        );
        const got = await live.waitFor((e) => e.session_id === `via-${transport}`);
        assert.equal(got.text, 'é\u2028\n');
      } finally {
        await live.close();
      }
      assert.equal(await sendEvent(join(sb.dir, 'no-such.sock'), { a: 1 }, limit, transport), false);
      spawnSync(process.execPath, [
        '-e',
        `require('net').createServer().listen(${JSON.stringify(paths.fleetSocket)}, () => process.kill(process.pid, 'SIGKILL'))`,
      ]);
      assert.equal(await sendEvent(paths.fleetSocket, { a: 1 }, limit, transport), false);
      assert.equal(await sendEvent(paths.fleetSocket, { big: 1n }, limit, transport), false);
      const stuck = await TestObserver.start(paths.fleetSocket, { stuck: true });
      try {
        // A whole line of the largest size, each time into a new connection's kernel buffer, is sent without the
        // reader reading (a send that waited for it would reach the limit: false); a longer one is never sent.
        for (let i = 0; i < 5; i++)
          assert.equal(await sendEvent(paths.fleetSocket, { big: 'x'.repeat(LINE_MAX - 11) }, limit, transport), true);
        assert.equal(await sendEvent(paths.fleetSocket, { big: 'x'.repeat(8 * 1024 * 1024) }, limit, transport), false);
      } finally {
        await stuck.close();
      }
    });
  }
});

describe('a sender that was not running when its give-up time came', () => {
  /**
   * A process stopped (SIGSTOP, a laptop asleep) or starved of CPU once its connect was under way: when it
   * runs again its give-up timer is due, and node runs due timers before the completed connect's callback.
   * Here the event loop is held (sleepSync) past the limit just after sendEvent starts its connect, to
   * an observer in another process, whose socket takes the connection in the kernel meanwhile.
   */
  const sb = sandbox();
  const paths = userPaths(sb.env, sb.home);
  mkdirSync(dirname(paths.fleetSocket), { recursive: true });

  // The fast path, which the hook client and the forwarder take. The net path's connect starts once node:net
  // is loaded, some turns of the loop later (more under the tests' module hooks), which a test cannot time.
  for (const transport of ['auto'] as const) {
    test(`sendEvent (${transport}): the line is sent, not given up when the limit passed while the process was held`, async () => {
      const observer = spawn(
        process.execPath,
        [
          '-e',
          `const s = require('net').createServer((c) => c.pipe(process.stdout)); s.listen(${JSON.stringify(paths.fleetSocket)}, () => console.error('listening'));`,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let got = '';
      let said = '';
      observer.stdout.on('data', (d) => (got += d));
      try {
        await new Promise<void>((r, reject) => {
          observer.stderr.on('data', (d) => {
            said += d;
            if (said.includes('listening')) r();
          });
          observer.on('exit', () => reject(new Error(`the observer left: ${said}`)));
        });
        const sent = sendEvent(paths.fleetSocket, { event: 'Stop', session_id: `held-${transport}` }, 300, transport);
        sleepSync(600);
        assert.equal(await sent, true);
        for (let i = 0; i < 200 && !got.includes('\n'); i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(JSON.parse(got).session_id, `held-${transport}`);
      } finally {
        observer.kill('SIGKILL');
      }
    });
  }
});

describe('forwarded lines: at most 64 KiB, and whole (issue 12, item 11)', () => {
  const sb = sandbox();
  const paths = userPaths(sb.env, sb.home);
  const ctl = '\u0001'.repeat(1000); // six bytes each in JSON
  const nested = { a: Array.from({ length: 50 }, () => ({ b: Array.from({ length: 50 }, () => ({ c: [ctl, 'x'.repeat(1000)] })) })) };
  const deepCwd = `/w/${'d'.repeat(3 * 1024 * 1024)}/project`;
  const payloads: Array<[string, Record<string, unknown>, Record<string, string>?]> = [
    [
      'sessionStart',
      { sessionId: 'big-start', cwd: deepCwd, model: 'm'.repeat(1024 * 1024) },
      { FLEET_MODEL_NAME: 'f'.repeat(100_000), TERM_PROGRAM: ctl.repeat(20) },
    ],
    [
      'postToolUse',
      {
        sessionId: 'big-tool',
        cwd: '/w/app',
        toolName: 'bash',
        toolArgs: { ...nested, command: 'npm test' },
        toolResult: { textResultForLlm: ctl.repeat(100) },
      },
    ],
    ['postToolUse', { sessionId: 'big-keys', toolName: 'view', toolArgs: { [`k${'y'.repeat(200_000)}`]: 1, path: '/w/src/index.ts' } }],
    ['agentStop', { sessionId: 'big-stop', stopReason: 's'.repeat(1024 * 1024), last_assistant_message: ctl }],
    ['notification', { sessionId: 'big-note', message: ctl.repeat(50), notification_type: 't'.repeat(1024 * 1024) }],
    ['errorOccurred', { sessionId: 'big-error', errorContext: ctl.repeat(100), error: { message: ctl.repeat(100) } }],
  ];

  for (const mode of ['normal', 'stuck', 'slow'] as const) {
    test(`huge payloads become lines of at most 64 KiB that a ${mode} observer gets whole`, { timeout: 60_000 }, async () => {
      const obs = await RawObserver.start(paths.fleetSocket, mode);
      try {
        for (const [event, payload, env] of payloads) {
          const r = await runClient({ ...sb.env, ...env }, [event], JSON.stringify(payload));
          assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
        }
        obs.resume();
        await obs.drained(60_000); // every client has exited: all they sent has been read
        assert.equal(obs.ended.length, payloads.length);
        const events = obs.ended.map((bytes) => {
          assert.ok(bytes.length <= LINE_MAX, `a line of ${bytes.length} bytes`);
          const lines = wholeLines(bytes);
          assert.equal(lines.length, 1);
          return lines[0]!;
        });
        const byId = new Map(events.map((e) => [e.session_id, e]));
        const start = byId.get('big-start')!;
        assert.equal(basename(String(start.cwd)), 'project', 'the cwd keeps its end, which names the card');
        assert.equal(typeof start.model, 'string');
        assert.equal(observerSummary(byId.get('big-tool')!.tool_name, byId.get('big-tool')!.tool_input), 'Bash: npm test');
        assert.equal(observerSummary(byId.get('big-keys')!.tool_name, byId.get('big-keys')!.tool_input), 'Read index.ts');
        assert.equal(typeof byId.get('big-stop')!.message, 'string');
      } finally {
        await obs.close();
      }
    });
  }

  test('sendEvent sends no line over 64 KiB, not a byte of it', async () => {
    const obs = await RawObserver.start(paths.fleetSocket);
    try {
      const at = (n: number) => ({ pad: 'x'.repeat(n - '{"pad":""}\n'.length) });
      assert.equal(await sendEvent(paths.fleetSocket, at(LINE_MAX + 1)), false);
      assert.equal(await sendEvent(paths.fleetSocket, at(LINE_MAX)), true);
      await obs.drained(); // all this process sent has been read
      assert.deepEqual(
        obs.ended.map((b) => b.length),
        [LINE_MAX],
      );
    } finally {
      await obs.close();
    }
  });
});
