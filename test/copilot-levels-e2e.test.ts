// The real Copilot CLI (node_modules/.bin/copilot), offline against the fake
// model server: the trust gate, both hook levels at once, and `fleet-git run`.
// Needs `npm run build`. A missing Copilot fails the test (skipping takes
// FLEET_GIT_SKIP_COPILOT_E2E=1, and is refused in CI).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { userPaths } from '../src/paths.js';
import { DEFAULT_SCRIPT as SCRIPT, startModelServer, type ModelServer } from '../src/copilot/model-server.js';
import { CLI, COPILOT, COPILOT_DIR, copilotCache, copilotPrompt, copilotSkip, hooksSettled, sandbox } from './helpers.js';
import { runCli } from './spawn.js';
import { TestObserver, type Received } from './observer-server.js';

function checkInstalled() {
  assert.ok(existsSync(COPILOT), `the Copilot CLI is missing at ${COPILOT}: run npm ci (it is a pinned devDependency)`);
  assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build`);
}

/**
 * A sandbox (HOME, COPILOT_HOME, spool, observer socket) with a repository, its observer and model server, and
 * `session()`: one `copilot -p` there. Call it in a describe's body (it registers hooks).
 */
function world(prefix: string, cache: string) {
  const sb = sandbox(prefix);
  const paths = userPaths(sb.env, sb.home);
  let obs: TestObserver;
  let model: ModelServer;
  let repo = '';

  before(async () => {
    checkInstalled();
    repo = sb.repo('demo');
    obs = await TestObserver.start(paths.fleetSocket);
    model = await startModelServer();
  });
  after(async () => {
    await obs?.close();
    await model?.close();
  });

  /** One `copilot -p` session, no COPILOT_ALLOW_ALL; the events that reached the observer for it. */
  async function session(expectEvents: boolean): Promise<Received[]> {
    const from = obs.events.length;
    const requests = model.requests.length;
    const env = {
      ...sb.env,
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: model.baseUrl,
      COPILOT_PROVIDER_API_KEY: 'dummy',
      COPILOT_MODEL: 'gpt-4.1',
      XDG_CACHE_HOME: cache,
      // The forwarder goes 200 ms after its last event instead of 10 s, so hooksSettled below need not wait that out.
      FLEET_GIT_FORWARDER_IDLE_MS: '200',
    };
    await copilotPrompt('list files', repo, env);
    assert.ok(model.requests.length >= requests + 3, 'the session ran its three model steps');
    if (expectEvents)
      await obs.waitFor(
        (e) => obs.events.indexOf(e) >= from && e.event === 'Stop' && e.last_assistant_message === SCRIPT.finalText,
        15_000,
      );
    // Copilot has exited: once no hook command or forwarder runs and the spool is empty, no event can still
    // arrive, so what is in is all there is (for the untrusted session: that none came).
    await hooksSettled(sb.home, join(paths.dataDir, 'spool'));
    return obs.events.slice(from);
  }

  return {
    sb,
    session,
    get repo() {
      return repo;
    },
  };
}

const counts = (events: Received[]) =>
  events.reduce<Record<string, number>>((m, e) => ({ ...m, [String(e.event)]: (m[String(e.event)] ?? 0) + 1 }), {});

// Three parts that share nothing (a sandbox, observer and model server each) run side by side; the second
// compares its sessions with the first's once that has its baseline.
describe('Copilot CLI: trust, user-level hooks, fleet-git run', { skip: copilotSkip, concurrency: 3 }, () => {
  const cache = copilotCache();
  let setBaseline: (b: Record<string, number> | null) => void = () => {};
  const baseline = new Promise<Record<string, number> | null>((resolve) => (setBaseline = resolve));

  describe('trust', () => {
    const w = world('fleet-git-levels-', cache);
    test(
      'untrusted, without COPILOT_ALLOW_ALL: repository hooks do not fire; after enable --trust they do',
      { timeout: 120_000 },
      async () => {
        const { sb, repo } = w;
        try {
          assert.equal(sb.cli(repo, 'enable').status, 0);
          assert.deepEqual(await w.session(false), []);
          // Copilot reads a config.json with comments inside the JSON and trailing commas (measured with
          // 1.0.102: it then trusts what is listed); fleet-git's edit keeps the comments.
          const config = join(sb.env.COPILOT_HOME, 'config.json');
          const before = readFileSync(config, 'utf8').replace(
            /\n\}\s*$/,
            ',\n  // a comment inside the JSON\n  "x": [1, /* two */ 2,],\n}\n',
          );
          writeFileSync(config, before);
          const t = sb.cli(repo, 'enable', '--trust');
          assert.equal(t.status, 0, t.stderr);
          const after = readFileSync(config, 'utf8');
          for (const kept of ['// a comment inside the JSON', '/* two */']) assert.ok(after.includes(kept), after);
          const events = await w.session(true);
          const got = counts(events);
          assert.equal(got.SessionStart, 1);
          assert.equal(new Set(events.map((e) => e.session_id)).size, 1);
          setBaseline(got);
        } finally {
          setBaseline(null);
        }
      },
    );
  });

  describe('both levels', () => {
    // Each state in a repository of its own, so the two sessions run at once: both levels installed; the user
    // level alone (the repository enabled and trusted, then disabled: its hook file and trust removed).
    const both = world('fleet-git-levels-both-', cache);
    const alone = world('fleet-git-levels-user-', cache);
    test('both levels installed: each event arrives once', { timeout: 120_000 }, async () => {
      const ready = (w: typeof both) => {
        for (const args of [
          ['enable', '--trust'],
          ['enable', '--user'],
        ]) {
          const r = w.sb.cli(w.repo, ...args);
          assert.equal(r.status, 0, r.stderr);
        }
      };
      ready(both);
      ready(alone);
      assert.equal(alone.sb.cli(alone.repo, 'disable').status, 0);
      const [bothEvents, aloneEvents] = await Promise.all([both.session(true), alone.session(true)]);
      const first = await baseline;
      assert.ok(first?.SessionStart, 'needs the first test');
      assert.deepEqual(counts(bothEvents), first, 'the same events as with the repository level alone');
      // The user level alone reports too.
      assert.deepEqual(counts(aloneEvents), first);
      assert.equal(alone.sb.cli(alone.repo, 'disable', '--user').status, 0);
    });
  });

  describe('fleet-git run', () => {
    const sb = sandbox('fleet-git-levels-run-');
    const paths = userPaths(sb.env, sb.home);
    let obs: TestObserver;
    let model: ModelServer;

    before(async () => {
      checkInstalled();
      obs = await TestObserver.start(paths.fleetSocket);
      model = await startModelServer();
    });
    after(async () => {
      await obs?.close();
      await model?.close();
    });

    test("fleet-git run: the session's events reach the observer with fleet_model_name", { timeout: 120_000 }, async () => {
      const fresh = sb.repo('run-demo');
      mkdirSync(paths.fleetDir, { recursive: true });
      writeFileSync(
        paths.fleetModels,
        JSON.stringify({
          models: [
            {
              name: 'e2e-run',
              tool: 'copilot',
              model: 'gpt-4.1',
              apiKey: null,
              env: { COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: model.baseUrl, COPILOT_PROVIDER_API_KEY: 'dummy' },
              args: ['--no-auto-update'],
            },
          ],
          pools: [],
        }),
      );
      const from = obs.events.length;
      const r = await runCli(['run', '--', '-p', 'list files'], {
        cwd: fresh,
        env: { ...sb.env, PATH: `${COPILOT_DIR}:${sb.env.PATH}`, XDG_CACHE_HOME: cache },
      });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      await obs.waitFor(
        (e) => obs.events.indexOf(e) >= from && e.event === 'Stop' && e.last_assistant_message === SCRIPT.finalText,
        15_000,
      );
      const events = obs.events.slice(from);
      const start = events.find((e) => e.event === 'SessionStart');
      assert.ok(start, JSON.stringify(events));
      assert.equal(start.cwd, fresh);
      assert.equal(start.model, 'gpt-4.1');
      for (const e of events) assert.equal(e.fleet_model_name, 'e2e-run', JSON.stringify(e));
    });
  });
});
