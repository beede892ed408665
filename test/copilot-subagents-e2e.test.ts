// Subagents and fleet's desktop notifications, end to end with the real Copilot CLI run offline (see
// copilot-e2e.test.ts) against a scripted model whose `task` calls start subagents (test/subagent-model.ts), in a
// repository enabled with the real `fleet-git enable`. What reached the observer is read as the observer's cards
// (cardsOf: one card per session id, as fleet-observer-protocol.md says the observer keeps them). fleet's notifier
// is installed where `fleet hooks install` puts it, with a `notify-send` on PATH that records its arguments.
// Needs `npm run build` (dist/cli.cjs, dist/hook-client.cjs).
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { userPaths } from '../src/paths.js';
import { CLI, COPILOT, copilotCache, copilotPrompt, copilotSkip, hooksSettled, needs, offlineCopilotEnv, sandbox } from './helpers.js';
import { ptySpawn } from './pty.js';
import { cardsOf, TestObserver, type Received } from './observer-server.js';
import { bash, startScriptedModel, task, type Scripts } from './subagent-model.js';
import { FLEET_NOTIFIER } from './fleet-notifier.js';

const SCRIPTS: Scripts = {
  // One subagent, as in issue 43: it runs `echo from-sub`.
  top: [{ calls: [task('Run the echo', 'sub')] }, { text: 'top done' }],
  sub: [{ calls: [bash('echo from-sub')] }, { text: 'sub done' }],
  // Nested: the session runs a command, then a subagent whose first call is a subagent of its own.
  nest: [
    { calls: [bash('echo parent-1')] },
    { calls: [task('Level one', 'one')] },
    { calls: [bash('echo parent-2')] },
    { text: 'nest done' },
  ],
  one: [{ calls: [task('Level two', 'two')] }, { calls: [bash('echo one-1')] }, { text: 'one done' }],
  two: [{ calls: [bash('echo two-1')] }, { text: 'two done' }],
  // Two subagents at once, their commands interleaved.
  pair: [{ calls: [task('First helper', 'a'), task('Second helper', 'b')] }, { text: 'pair done' }],
  a: [{ calls: [bash('sleep 1; echo a-1')] }, { calls: [bash('echo a-2')] }, { text: 'a done' }],
  b: [{ calls: [bash('echo b-1')] }, { calls: [bash('sleep 1; echo b-2')] }, { text: 'b done' }],
  // A view of a path outside the repository: interactively, Copilot asks for the path's permission first.
  perm: [{ calls: [{ tool: 'view', args: { path: '/etc/hostname' } }] }, { text: 'perm done' }],
  // A background subagent, still running when the session's turn (and in -p, its sessionEnd) is over.
  bg: [{ calls: [task('Background work', 'a', { mode: 'background' })] }, { text: 'bg done' }],
};

describe('subagents and notifications on the real Copilot CLI', { skip: copilotSkip, concurrency: 1 }, () => {
  const sb = sandbox('fleet-git-sub-');
  const paths = userPaths(sb.env, sb.home);
  const cache = copilotCache();
  const bin = join(sb.dir, 'bin');
  const notified = join(sb.dir, 'notify-send.log');
  let repo = '';
  let obs!: TestObserver;

  before(async () => {
    assert.ok(existsSync(COPILOT), `the Copilot CLI is missing at ${COPILOT}: run npm ci (it is a pinned devDependency)`);
    assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build`);
    repo = sb.repo('demo');
    const enabled = sb.cli(repo, 'enable');
    assert.equal(enabled.status, 0, `fleet-git enable failed:\n${enabled.stdout}\n${enabled.stderr}`);
    obs = await TestObserver.start(paths.fleetSocket);
    // fleet's hooks folder, as `fleet hooks install` leaves it, and a notify-send that records each call, one JSON line.
    mkdirSync(join(paths.fleetDir, 'hooks'), { recursive: true });
    writeFileSync(join(paths.fleetDir, 'hooks', 'notifier.js'), FLEET_NOTIFIER);
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'notify-send'),
      `#!/usr/bin/env node\nrequire('fs').appendFileSync(${JSON.stringify(notified)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
    );
    chmodSync(join(bin, 'notify-send'), 0o755);
  });
  after(() => obs?.close());

  /** Runs `copilot -p` on the script `name`; resolves once its events are all in: its session's events, and the notices sent meanwhile. */
  async function session(
    name: string,
    idleMs = 500,
  ): Promise<{ sid: string; events: Received[]; others: Received[]; notices: string[][] }> {
    rmSync(notified, { force: true });
    const from = obs.events.length;
    const model = await startScriptedModel(SCRIPTS);
    try {
      const env = {
        ...offlineCopilotEnv(sb.env, model.baseUrl, 'sub-profile'),
        XDG_CACHE_HOME: cache,
        FLEET_GIT_FORWARDER_IDLE_MS: String(idleMs),
        PATH: `${bin}:${sb.env.PATH ?? process.env.PATH}`,
      };
      await copilotPrompt(`[[script:${name}]] go`, repo, env);
    } finally {
      await model.close();
    }
    // Copilot has exited, and waits for every hook: once nothing of fleet-git runs and the spool is empty, all is in.
    await hooksSettled(sb.home, join(paths.dataDir, 'spool'), 20_000);
    const mine = obs.events.slice(from);
    const start = mine.find((e) => e.event === 'SessionStart');
    assert.ok(start, `no SessionStart; got ${JSON.stringify(mine)}`);
    const sid = String(start.session_id);
    const notices = existsSync(notified)
      ? readFileSync(notified, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as string[])
      : [];
    return { sid, events: mine.filter((e) => e.session_id === sid), others: mine.filter((e) => e.session_id !== sid), notices };
  }

  /** The one card the session made, checked: idle, awaiting input, with the session's last answer. */
  function oneCard(s: { sid: string; events: Received[]; others: Received[] }, lastAnswer: string) {
    assert.deepEqual(s.others, [], 'events sent under another session id than the session');
    const cards = cardsOf(s.events);
    assert.deepEqual([...cards.keys()], [s.sid]);
    const card = cards.get(s.sid)!;
    assert.deepEqual([card.status, card.awaitsInput, card.lastMessage], ['idle', true, lastAnswer]);
    return card;
  }

  test(
    "a task subagent: its command on the session's card, then the task as its description; one notice",
    { timeout: 120_000 },
    async () => {
      const s = await session('top');
      const card = oneCard(s, 'top done');
      assert.deepEqual(card.actions, ['Bash: echo from-sub', 'Task Run the echo']);
      // The Stops: the turn's end with the answer, then the session's end; none from the subagent.
      assert.deepEqual(
        s.events.filter((e) => e.event === 'Stop').map((e) => [e.last_assistant_message, e.message]),
        [
          ['top done', 'end_turn'],
          [null, 'complete'],
        ],
      );
      assert.deepEqual(s.notices, [['GitHub Copilot', 'top done']]);
    },
  );

  test(
    'nested subagents, the middle one silent until its child is done: one card, every action in order',
    { timeout: 120_000 },
    async () => {
      // A forwarder that leaves 50 ms after its last event: the one that sends a subagent's call has seldom seen its session.
      const s = await session('nest', 50);
      const card = oneCard(s, 'nest done');
      assert.deepEqual(card.actions, [
        'Bash: echo parent-1',
        'Bash: echo two-1',
        'Task Level two',
        'Bash: echo one-1',
        'Task Level one',
        'Bash: echo parent-2',
      ]);
      assert.deepEqual(s.notices, [['GitHub Copilot', 'nest done']]);
    },
  );

  test('two subagents at once: one card, each command once, in the order they ran', { timeout: 120_000 }, async () => {
    const s = await session('pair');
    const card = oneCard(s, 'pair done');
    const a = ['Bash: sleep 1; echo a-1', 'Bash: echo a-2', 'Task First helper'];
    const b = ['Bash: echo b-1', 'Bash: sleep 1; echo b-2', 'Task Second helper'];
    assert.deepEqual([...card.actions].sort(), [...a, ...b].sort());
    // Each subagent's commands in the order it ran them, then its task (which ends when the subagent does).
    const inOrder = (xs: string[]) => xs.every((x, i) => i === 0 || card.actions.indexOf(xs[i - 1]!) < card.actions.indexOf(x));
    assert.ok(inOrder(a) && inOrder(b), JSON.stringify(card.actions));
    assert.deepEqual(s.notices, [['GitHub Copilot', 'pair done']]);
  });

  test(
    "a background subagent still running when the session's turn ends: its work on the session's card, which ends idle",
    { timeout: 120_000 },
    async () => {
      const s = await session('bg');
      const card = oneCard(s, 'bg done');
      assert.deepEqual(card.actions, ['Task Background work', 'Bash: sleep 1; echo a-1', 'Bash: echo a-2']);
      // Copilot tells the session the agent is idle (a notification), and the session answers again: notices for both
      // turns' ends and for the notification, none for the subagent's stop.
      const notes = s.events.filter((e) => e.event === 'Notification');
      assert.equal(notes.length, 1, JSON.stringify(notes));
      // (Each notice runs in a process of its own: two close together may finish in either order.)
      assert.deepEqual(s.notices.sort(), [
        ['GitHub Copilot 通知', String(notes[0]!.message)],
        ['GitHub Copilot', 'bg done'],
        ['GitHub Copilot', 'bg done'],
      ]);
    },
  );

  test(
    "fleet's switch: with notify.json's enabled false, no notice; its events still reach the observer",
    { timeout: 120_000 },
    async () => {
      const config = join(paths.fleetDir, 'notify.json');
      writeFileSync(config, JSON.stringify({ enabled: false }));
      try {
        const s = await session('top');
        oneCard(s, 'top done');
        assert.deepEqual(s.notices, []);
      } finally {
        rmSync(config);
      }
    },
  );
  test(
    "interactively, under a terminal: a path permission prompt is one notice, with Copilot's message",
    { timeout: 120_000, skip: needs('script') },
    async () => {
      rmSync(notified, { force: true });
      const from = obs.events.length;
      // Trusted, so no folder-trust dialog comes first (and the repository's hooks load).
      assert.equal(sb.cli(repo, 'enable', '--trust').status, 0);
      const model = await startScriptedModel(SCRIPTS);
      const env: Record<string, string> = {
        ...offlineCopilotEnv(sb.env, model.baseUrl, 'sub-profile'),
        XDG_CACHE_HOME: cache,
        FLEET_GIT_FORWARDER_IDLE_MS: '500',
        PATH: `${bin}:${sb.env.PATH ?? process.env.PATH}`,
        TERM: 'xterm-256color',
      };
      delete env.COPILOT_ALLOW_ALL; // paths outside the repository are asked for
      const tui = ptySpawn([COPILOT, '--allow-all-tools', '--no-auto-update'], { cwd: repo, env, timeoutMs: 100_000 });
      try {
        // The TUI names itself in the terminal's title once it runs; the prompt is typed again if it was too early.
        await tui.waitFor('GitHub Copilot', 60_000);
        const mine = (pred: (e: Received) => boolean) => obs.events.slice(from).some(pred);
        for (let i = 0; i < 5 && !mine((e) => e.event === 'SessionStart'); i++) {
          tui.type('[[script:perm]] read it\r');
          await obs.waitFor((e) => obs.events.indexOf(e) >= from && e.event === 'SessionStart', 8_000).catch(() => undefined);
        }
        const note = await obs.waitFor((e) => obs.events.indexOf(e) >= from && e.event === 'Notification', 30_000);
        assert.equal(note.notification_type, 'permission_prompt');
        assert.equal(note.message, 'Path permission needed: /etc/hostname');
      } finally {
        tui.type('\x03');
        tui.type('\x03');
        await tui.done.catch(() => undefined);
        await model.close();
      }
      await hooksSettled(sb.home, join(paths.dataDir, 'spool'), 20_000);
      const notices = existsSync(notified)
        ? readFileSync(notified, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as string[])
        : [];
      assert.deepEqual(notices, [['GitHub Copilot 通知', 'Path permission needed: /etc/hostname']]);
    },
  );
});
