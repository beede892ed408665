// The real Copilot CLI as a producer of VS Code's payload shape: from 1.0.21 it hands a hook under a
// PascalCase key (SessionStart, PostToolUse, Stop, ...) snake_case payloads as VS Code's agent does
// (`hook_event_name`, `session_id`, ISO timestamps). Here fleet-git's hook file is rewritten with
// PascalCase keys (fleet-git writes camelCase keys only, test/vscode.test.ts) and `copilot -p` runs
// offline (see copilot-e2e.test.ts): its payloads go through the real hook command, forwarder and
// normalizer to a socket. Once as the CLI runs the hook (COPILOT_HOOK_DIR set: a CLI card, its
// terminal kept), once with the hook's environment as VS Code leaves it (no COPILOT_HOOK_DIR: a card
// marked VS Code). Needs `npm run build`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { userPaths } from '../src/paths.js';
import { DEFAULT_SCRIPT as SCRIPT, startModelServer } from '../src/copilot/model-server.js';
import { CLI, COPILOT, copilotCache, copilotPrompt, hooksSettled, offlineCopilotEnv, sandbox } from './helpers.js';
import { observerSummary, TestObserver } from './observer-server.js';

/** The CLI's PascalCase name of each key fleet-git's hook file has. */
const PASCAL: Record<string, string> = {
  sessionStart: 'SessionStart',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  agentStop: 'Stop',
  sessionEnd: 'SessionEnd',
  notification: 'Notification',
  errorOccurred: 'ErrorOccurred',
};

describe("the real Copilot CLI's VS Code-shaped payloads (PascalCase keys) through fleet-git's hook", () => {
  const sb = sandbox('fleet-git-pascal-');
  const paths = userPaths(sb.env, sb.home);
  const cache = copilotCache();
  let repo: string;
  let obs: TestObserver;
  let camel: { version: number; hooks: Record<string, Array<{ bash: string }>> };

  before(async () => {
    assert.ok(existsSync(COPILOT), `the Copilot CLI is missing at ${COPILOT}: run npm ci (it is a pinned devDependency)`);
    assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build`);
    repo = sb.repo('demo');
    assert.equal(sb.cli(repo, 'enable').status, 0);
    camel = JSON.parse(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8'));
    obs = await TestObserver.start(paths.fleetSocket);
  });
  after(() => obs?.close());

  /** Rewrites the hook file with PascalCase keys, each command prefixed by `prefix`, and runs one offline session. */
  async function session(prefix: string) {
    const hooks = Object.fromEntries(
      Object.entries(camel.hooks).map(([k, entries]) => [PASCAL[k]!, entries.map((e) => ({ ...e, bash: prefix + e.bash }))]),
    );
    writeFileSync(join(repo, '.github', 'hooks', 'fleet.json'), JSON.stringify({ version: 1, hooks }, null, 2));
    const model = await startModelServer();
    try {
      const env = {
        ...offlineCopilotEnv(sb.env, model.baseUrl, 'e2e-profile'),
        XDG_CACHE_HOME: cache,
        FLEET_GIT_FORWARDER_IDLE_MS: '300',
        FLEET_GIT_STOP_WAIT_MS: '5000',
        TERM_PROGRAM: 'tmux',
      };
      await copilotPrompt('list files', repo, env);
    } finally {
      await model.close();
    }
    await hooksSettled(sb.home, join(paths.dataDir, 'spool'));
    await obs.drained();
    const starts = obs.events.filter((e) => e.event === 'SessionStart');
    const sid = starts.at(-1)!.session_id;
    const events = obs.events.filter((e) => e.session_id === sid);
    obs.events.length = 0;
    return events;
  }

  for (const [how, prefix, term] of [
    ['as the CLI runs it: a Copilot CLI card', '', 'tmux'],
    ["with VS Code's environment (no COPILOT_HOOK_DIR): a card marked VS Code", 'unset COPILOT_HOOK_DIR; ', 'vscode'],
  ] as const) {
    test(how, { timeout: 120_000 }, async () => {
      const events = await session(prefix);
      assert.deepEqual(obs.badLines, []);
      assert.deepEqual(
        events.map((e) => [e.event, observerSummary(e.tool_name, e.tool_input), e.last_assistant_message, e.message]),
        [
          ['SessionStart', 'null', null, null],
          ['PostToolUse', `Bash: ${SCRIPT.command}`, null, null],
          ['PostToolUse', 'Read xyz.txt', null, null],
          ['Stop', 'null', SCRIPT.finalText, 'end_turn'],
          ['Stop', 'null', null, 'complete'],
        ],
      );
      assert.match(String(events[1]!.tool_output), /hello-from-tool/);
      assert.equal(events[2]!.tool_output, 'Path does not exist');
      const start = events[0]!;
      // The model: the CLI's COPILOT_MODEL, or for VS Code (whose environment is not the session's) the transcript's.
      assert.deepEqual(
        [start.term_program, start.iterm_session_id, start.model, start.fleet_model_name],
        term === 'vscode' ? ['vscode', null, 'gpt-4.1', undefined] : ['tmux', null, 'gpt-4.1', 'e2e-profile'],
      );
    });
  }
});
