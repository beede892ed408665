// fleet-git doctor --live with the real Copilot CLI (node_modules/.bin/copilot,
// pinned in package.json), each case in a sandbox of its own (HOME,
// COPILOT_HOME, XDG folders, a temporary repository), asserting the report's
// JSON or its lines and exit code: each cause made to happen, not described.
// Copilot unpacks itself into XDG_CACHE_HOME on its first run: one cache
// folder for the whole test run (copilotCache), so that happens once. Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import type { LiveReport } from '../src/core/session/live-probe.js';
import { userPaths } from '../src/paths.js';
import {
  CLI,
  COPILOT,
  COPILOT_DIR,
  copilotCache,
  copilotSkip,
  copilotVersion,
  hooksSettled,
  sandbox,
  snapshot,
  type Sandbox,
} from './helpers.js';
import { fakeCopilotSession } from './fake-copilot.js';
import { TestObserver } from './observer-server.js';

const NATIVE = join(COPILOT_DIR, '..', '@github', 'copilot-linux-x64', 'copilot');

const cache = copilotCache();

interface Doctor {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  report: LiveReport | null;
}

function doctor(sb: Sandbox, cwd: string, args: string[], env: Record<string, string> = sb.env): Promise<Doctor> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, 'doctor', '--live', ...args], { cwd, env: { XDG_CACHE_HOME: cache, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      let report: LiveReport | null = null;
      try {
        report = JSON.parse(stdout);
      } catch {
        /* words, or nothing */
      }
      resolve({ code, stdout, stderr, ms: Date.now() - started, report });
    }),
  );
}

const statuses = (r: LiveReport) => Object.fromEntries(r.events.map((e) => [e.id, e.status]));
const ALL = (status: string) => ({
  sessionStart: status,
  'postToolUse:bash': status,
  'postToolUse:view': status,
  agentStop: status,
  sessionEnd: status,
});

function enabledRepo(sb: Sandbox, ...flags: string[]): string {
  const repo = sb.repo('demo');
  const r = sb.cli(repo, 'enable', ...flags);
  assert.equal(r.status, 0, r.stderr);
  return repo;
}

describe('fleet-git doctor --live, the real Copilot CLI', { skip: copilotSkip, concurrency: 3 }, () => {
  before(() => {
    assert.ok(existsSync(COPILOT), `the Copilot CLI is missing at ${COPILOT}: run npm ci (it is a pinned devDependency)`);
    assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build`);
  });

  test('enabled and trusted: every event once, from the repository, ppid the Copilot process; exit 0', { timeout: 90_000 }, async () => {
    const sb = sandbox('fleet-git-live-ok-');
    const repo = enabledRepo(sb, '--trust');
    const before = snapshot(repo);
    const d = await doctor(sb, repo, ['--json', '--copilot', COPILOT]);
    assert.equal(d.code, 0, d.stdout + d.stderr);
    const r = d.report!;
    assert.equal(r.ok, true);
    assert.deepEqual(statuses(r), ALL('once'));
    for (const e of r.events) {
      assert.deepEqual(e.levels, ['repo'], e.id);
      assert.equal(e.cause, null);
      assert.equal(typeof e.waitedMs, 'number', `${e.id}: no wait measured`);
    }
    assert.equal(r.copilot.version, copilotVersion());
    assert.equal(r.ppid.isCopilot, true);
    assert.equal(r.repo, repo);
    assert.deepEqual(r.causes, []);
    // Copilot in -p mode wrote nothing into the repository, .git included.
    assert.deepEqual(snapshot(repo), before);
  });

  test(
    'enabled, not trusted, no COPILOT_ALLOW_ALL: the repository events missing, cause not trusted; exit 1',
    { timeout: 90_000 },
    async () => {
      const sb = sandbox('fleet-git-live-untrusted-');
      const repo = enabledRepo(sb);
      const d = await doctor(sb, repo, ['--json', '--copilot', COPILOT]);
      assert.equal(d.code, 1, d.stdout + d.stderr);
      const r = d.report!;
      assert.equal(r.ok, false);
      assert.deepEqual(statuses(r), ALL('missing'));
      for (const e of r.events) assert.equal(e.cause?.code, 'not-trusted', e.id);
      assert.deepEqual(
        r.causes.map((c) => c.fix),
        ['fleet-git enable --trust'],
      );
      // And in words.
      const w = await doctor(sb, repo, ['--copilot', COPILOT]);
      assert.equal(w.code, 1);
      assert.match(w.stdout, /FAIL {2}sessionStart: missing \(not-trusted\)\n/);
      assert.match(
        w.stdout,
        /FAIL {2}not-trusted: Copilot does not trust .*, so copilot -p skips the repository's hook files .*: fleet-git enable --trust\n/,
      );
      assert.match(w.stdout, /\n5 of 5 events missing, repeated or incomplete\n$/);
    },
  );

  test(
    'both levels, de-duplication defeated (a user-level file not named fleet.json runs the same client): every event twice; exit 1',
    { timeout: 90_000 },
    async () => {
      const sb = sandbox('fleet-git-live-twice-');
      const repo = enabledRepo(sb, '--trust');
      const paths = userPaths(sb.env, sb.home);
      mkdirSync(join(paths.copilotHome, 'hooks'), { recursive: true });
      copyFileSync(join(repo, '.github', 'hooks', 'fleet.json'), join(paths.copilotHome, 'hooks', 'fleet-copy.json'));
      const d = await doctor(sb, repo, ['--json', '--copilot', COPILOT]);
      assert.equal(d.code, 1, d.stdout + d.stderr);
      const r = d.report!;
      assert.deepEqual(statuses(r), ALL('twice'));
      for (const e of r.events) {
        assert.deepEqual([...e.levels].sort(), ['repo', 'user'], e.id);
        assert.equal(e.cause?.code, 'both-levels');
      }
      assert.match(r.causes[0]!.fix!, /move \$COPILOT_HOME\/hooks\/fleet-copy\.json away, then run fleet-git enable --user/);
      assert.ok(r.hookFiles.some((h) => h.level === 'user' && h.path.endsWith('fleet-copy.json') && h.run && h.fleetGit));
    },
  );

  test(
    'node missing from the PATH given to Copilot (and the recorded one gone): events missing, cause named; exit 1',
    { timeout: 90_000 },
    async () => {
      const sb = sandbox('fleet-git-live-nonode-');
      const repo = enabledRepo(sb, '--trust');
      const paths = userPaths(sb.env, sb.home);
      writeFileSync(join(paths.dataDir, 'node'), join(sb.dir, 'uninstalled', 'node'));
      // A PATH with the tools Copilot and the hook command use, and no node.
      const bin = join(sb.dir, 'bin-no-node');
      mkdirSync(bin);
      for (const tool of ['git', 'bash', 'sh', 'cat', 'ls', 'env']) {
        const real = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
        if (real) symlinkSync(real, join(bin, tool));
      }
      const d = await doctor(sb, repo, ['--json', '--copilot', NATIVE], { ...sb.env, PATH: bin });
      assert.equal(d.code, 1, d.stdout + d.stderr);
      const r = d.report!;
      assert.deepEqual(statuses(r), ALL('missing'));
      for (const e of r.events) assert.equal(e.cause?.code, 'no-node', e.id);
      assert.match(
        r.causes[0]!.message,
        /no node on the PATH Copilot runs hooks with, and the node fleet-git enable recorded \(.*uninstalled\/node\) is gone/,
      );
    },
  );

  test('a foreign .github/hooks file that is not valid JSON: reported, ours still counted; exit 0', { timeout: 90_000 }, async () => {
    const sb = sandbox('fleet-git-live-invalid-');
    const repo = enabledRepo(sb, '--trust');
    writeFileSync(join(repo, '.github', 'hooks', 'lint.json'), '{ "version": 1, "hooks": { "postToolUse": [ ], }, }\n');
    const d = await doctor(sb, repo, ['--json', '--copilot', COPILOT]);
    assert.equal(d.code, 0, d.stdout + d.stderr);
    const r = d.report!;
    assert.deepEqual(statuses(r), ALL('once'));
    const lint = r.hookFiles.find((h) => h.path === join(repo, '.github', 'hooks', 'lint.json'));
    assert.ok(lint, JSON.stringify(r.hookFiles));
    assert.equal(lint.fleetGit, false);
    assert.match(String(lint.invalid), /JSON/);
    assert.ok(
      r.notes.some((n) => n.startsWith('.github/hooks/lint.json: Copilot ignores this hook file')),
      JSON.stringify(r.notes),
    );
  });

  test(
    "fleet-git's own hook file not valid JSON: every event missing, cause invalid-json naming it; exit 1",
    { timeout: 90_000 },
    async () => {
      const sb = sandbox('fleet-git-live-own-invalid-');
      const repo = enabledRepo(sb, '--trust');
      const file = join(repo, '.github', 'hooks', 'fleet.json');
      // A trailing comma: Copilot rejects the whole file (in its log only).
      writeFileSync(file, readFileSync(file, 'utf8').replace(/\}\s*$/, ',}\n'));
      const d = await doctor(sb, repo, ['--copilot', COPILOT]);
      assert.equal(d.code, 1, d.stdout + d.stderr);
      assert.match(d.stdout, /\nFAIL {2}sessionStart: missing \(invalid-json\)\n/);
      assert.match(
        d.stdout,
        /\nFAIL {2}invalid-json: \.github\/hooks\/fleet\.json runs fleet-git's hook client but is not valid JSON \(.*\), so Copilot ignores all of it: fix \.github\/hooks\/fleet\.json, or move it away and run fleet-git enable\n/,
      );
      assert.match(d.stdout, /\n5 of 5 events missing, repeated or incomplete\n$/);
      const j = await doctor(sb, repo, ['--json', '--copilot', COPILOT]);
      assert.equal(j.code, 1);
      const r = j.report!;
      assert.deepEqual(statuses(r), ALL('missing'));
      for (const e of r.events) assert.equal(e.cause?.code, 'invalid-json', e.id);
      // Copilot's own reason, from its log.
      assert.match(String(r.hookFiles.find((h) => h.path === file)?.invalid), /.+/);
    },
  );

  test("the data folder's hook script deleted: every event missing, cause client-missing; exit 1", { timeout: 90_000 }, async () => {
    const sb = sandbox('fleet-git-live-no-client-');
    const repo = enabledRepo(sb, '--trust');
    const script = join(userPaths(sb.env, sb.home).dataDir, 'hook.sh');
    assert.ok(existsSync(script), script);
    rmSync(script);
    const d = await doctor(sb, repo, ['--copilot', COPILOT]);
    assert.equal(d.code, 1, d.stdout + d.stderr);
    assert.match(d.stdout, /\nFAIL {2}sessionStart: missing; Copilot waited \d+ ms on its hooks \(client-missing\)\n/);
    assert.ok(
      d.stdout.includes(`\nFAIL  client-missing: the data folder's hook script ${script} is missing: fleet-git enable\n`),
      d.stdout,
    );
    assert.match(d.stdout, /\n5 of 5 events missing, repeated or incomplete\n$/);
    // fleet-git enable puts it back, and the probe passes.
    assert.equal(sb.cli(repo, 'enable').status, 0);
    const again = await doctor(sb, repo, ['--json', '--copilot', COPILOT]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
  });

  test(
    "fleet-git's postToolUse hook slower than its timeoutSec: those events missing, cause timeout; exit 1",
    { timeout: 90_000 },
    async () => {
      const sb = sandbox('fleet-git-live-hook-timeout-');
      const repo = enabledRepo(sb, '--trust');
      const file = join(repo, '.github', 'hooks', 'fleet.json');
      const hooks = JSON.parse(readFileSync(file, 'utf8'));
      // The command as enable wrote it, after a wait longer than the entry's timeoutSec.
      for (const entry of hooks.hooks.postToolUse) {
        entry.bash = `sleep 20; ${entry.bash}`;
        entry.timeoutSec = 1;
      }
      writeFileSync(file, JSON.stringify(hooks, null, 2));
      const d = await doctor(sb, repo, ['--copilot', COPILOT]);
      assert.equal(d.code, 1, d.stdout + d.stderr);
      assert.match(d.stdout, /\nok {4}sessionStart: once, from the repository's hook file; Copilot waited \d+ ms on its hooks\n/);
      assert.match(d.stdout, /\nFAIL {2}postToolUse \(bash\): missing; Copilot waited \d+ ms on its hooks \(timeout\)\n/);
      assert.match(d.stdout, /\nFAIL {2}postToolUse \(view\): missing; Copilot waited \d+ ms on its hooks \(timeout\)\n/);
      assert.match(
        d.stdout,
        /\nFAIL {2}timeout: Copilot stopped waiting for the hook \(.*timed out.*\): fleet-git doctor \(node and the hook client, run as Copilot runs them\)\n/,
      );
      assert.match(d.stdout, /\n2 of 5 events missing, repeated or incomplete\n$/);
    },
  );

  test(
    "the user's COPILOT_HOME and observer untouched: byte-identical, no event at the observer, other user-level hooks not run",
    { timeout: 90_000 },
    async () => {
      const sb = sandbox('fleet-git-live-isolated-');
      const repo = enabledRepo(sb, '--trust');
      assert.equal(sb.cli(repo, 'enable', '--user').status, 0);
      const paths = userPaths(sb.env, sb.home);
      const ran = join(sb.dir, 'notify-ran');
      writeFileSync(
        join(paths.copilotHome, 'hooks', 'notify.json'),
        JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: `touch '${ran}'` }] } }),
      );
      writeFileSync(join(paths.copilotHome, 'settings.json'), '{ "theme": "dark" }\n');
      const obs = await TestObserver.start(paths.fleetSocket);
      try {
        const home = snapshot(paths.copilotHome);
        const fleet = snapshot(paths.fleetDir, (rel) => rel === 'fleet.sock');
        const data = snapshot(paths.dataDir, (rel) => rel === 'cli-main.cache');
        const d = await doctor(sb, repo, ['--json', '--copilot', COPILOT]);
        assert.equal(d.code, 0, d.stdout + d.stderr);
        const r = d.report!;
        assert.deepEqual(statuses(r), ALL('once'));
        for (const e of r.events)
          assert.deepEqual(e.levels, ['user'], `${e.id}: the user level reports, the repository's file steps aside`);
        assert.deepEqual(snapshot(paths.copilotHome), home);
        assert.deepEqual(
          snapshot(paths.fleetDir, (rel) => rel === 'fleet.sock'),
          fleet,
        );
        // No spool or forwarder of the user's was used: the probe's hooks spool in a runtime folder of its own.
        assert.deepEqual(
          snapshot(paths.dataDir, (rel) => rel === 'cli-main.cache'),
          data,
        );
        // doctor has exited and swept the probe's processes: once none of fleet-git's runs with this HOME and the
        // user's spool is empty, nothing can still reach the user's observer.
        await hooksSettled(sb.home, join(paths.dataDir, 'spool'));
        assert.deepEqual(obs.events, []);
        assert.equal(existsSync(ran), false, "a user-level hook file that is not fleet-git's ran");
        const notify = r.hookFiles.find((h) => h.path.endsWith('notify.json'))!;
        assert.deepEqual([notify.level, notify.run, notify.fleetGit], ['user', false, false]);
        assert.ok(
          r.notes.some((n) => n.includes('$COPILOT_HOME/hooks/notify.json') && n.includes('not run')),
          JSON.stringify(r.notes),
        );
      } finally {
        await obs.close();
      }
    },
  );
});

describe('fleet-git doctor --live, bad input and a session that cannot finish', { concurrency: 2 }, () => {
  test('not a repository, no Copilot: one line, exit 2', async () => {
    const sb = sandbox('fleet-git-live-input-');
    const d = await doctor(sb, sb.dir, ['--copilot', COPILOT]);
    assert.equal(d.code, 2);
    assert.match(d.stderr, /^fleet-git: .*not inside a git repository.*\n$/);
    const repo = sb.repo('demo');
    const none = await doctor(sb, repo, [], {
      ...sb.env,
      PATH: '/usr/bin:/bin'
        .split(':')
        .filter((p) => !existsSync(join(p, 'copilot')))
        .join(':'),
    });
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      /^fleet-git: no Copilot CLI found \(no copilot on PATH\): install it with npm install -g @github\/copilot, or name it with --copilot PATH\n$/,
    );
    const bad = await doctor(sb, repo, ['--copilot', join(sb.dir, 'nope')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^fleet-git: --copilot .*nope: not an executable file/);
  });

  // A Copilot that trusts the folder and leaves the repository's hooks out (copilot-cli #1730, some versions and
  // platforms), played by fake-copilot.ts's session, which runs the real hook files with the real hook client.
  test('the fake session, every hook run: every event once from the repository, exit 0 (what the next two change)', async () => {
    const sb = sandbox('fleet-git-live-fake-ok-');
    const repo = enabledRepo(sb, '--trust');
    const fake = fakeCopilotSession(sb);
    const d = await doctor(sb, repo, ['--json', '--copilot', fake.path], fake.env);
    assert.equal(d.code, 0, d.stdout + d.stderr);
    assert.deepEqual(statuses(d.report!), ALL('once'));
    assert.equal(d.report!.ppid.isCopilot, true);
    assert.equal(d.report!.copilot.version, '1.0.102');
  });

  test("trusted, the repository's hook files loaded, the sessionStart hook never run: that event repo-not-loaded; exit 1", async () => {
    const sb = sandbox('fleet-git-live-fake-nostart-');
    const repo = enabledRepo(sb, '--trust');
    const fake = fakeCopilotSession(sb, { skip: ['sessionStart'] });
    const d = await doctor(sb, repo, ['--copilot', fake.path], fake.env);
    assert.equal(d.code, 1, d.stdout + d.stderr);
    assert.match(d.stdout, /\nFAIL {2}sessionStart: missing \(repo-not-loaded\)\n/);
    assert.match(d.stdout, /\nok {4}postToolUse \(bash\): once, from the repository's hook file; Copilot waited \d+ ms on its hooks\n/);
    assert.match(d.stdout, /\nok {4}sessionEnd: once, from the repository's hook file/);
    assert.match(
      d.stdout,
      /\nFAIL {2}repo-not-loaded: Copilot trusts the folder but did not run the repository's hook for this event \(.*\): fleet-git enable --user\n/,
    );
    assert.match(d.stdout, /\n1 of 5 events missing, repeated or incomplete\n$/);
  });

  test("trusted, and Copilot's log says no repository hook file was loaded: every event repo-not-loaded; exit 1", async () => {
    const sb = sandbox('fleet-git-live-fake-unloaded-');
    const repo = enabledRepo(sb, '--trust');
    const fake = fakeCopilotSession(sb, { repoHooks: 'unloaded' });
    const d = await doctor(sb, repo, ['--json', '--copilot', fake.path], fake.env);
    assert.equal(d.code, 1, d.stdout + d.stderr);
    assert.deepEqual(statuses(d.report!), ALL('missing'));
    for (const e of d.report!.events) assert.equal(e.cause?.code, 'repo-not-loaded', e.id);
    assert.deepEqual(
      d.report!.causes.map((c) => c.fix),
      ['fleet-git enable --user'],
    );
    // The fix it names works: with the user-level hook file, the same Copilot reports every event once.
    assert.equal(sb.cli(repo, 'enable', '--user').status, 0);
    const fixed = await doctor(sb, repo, ['--json', '--copilot', fake.path], fake.env);
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    assert.deepEqual(
      fixed.report!.events.map((e) => e.levels),
      Array(5).fill(['user']),
    );
  });

  test('a Copilot that hangs is stopped at --timeout with everything it started, and the report says so; exit 1', async () => {
    const sb = sandbox('fleet-git-live-hang-');
    const repo = sb.repo('demo');
    const pids = join(sb.dir, 'pids');
    const fake = join(sb.dir, 'copilot');
    // A child in its group, and one that leaves it (as the hook client's agentStop waiter does).
    writeFileSync(
      fake,
      `#!/bin/sh\nsleep 300 &\necho $$ $! > '${pids}'\nsetsid sh -c 'echo $$ >> "$1"; exec sleep 301' _ '${pids}' &\necho starting\nwait\n`,
    );
    chmodSync(fake, 0o755);
    const d = await doctor(sb, repo, ['--json', '--copilot', fake, '--timeout', '2']);
    assert.equal(d.code, 1, d.stdout + d.stderr);
    assert.ok(d.ms < 15_000, `took ${d.ms} ms`);
    const r = d.report!;
    assert.equal(r.session.timedOut, true);
    assert.deepEqual(statuses(r), ALL('missing'));
    assert.equal(r.events[0]!.cause?.code, 'session-failed');
    assert.match(r.events[0]!.cause!.message, /did not finish within 2 s and was stopped before this event \(it said: starting\)/);
    const left = readFileSync(pids, 'utf8').trim().split(/\s+/).map(Number);
    assert.equal(left.length, 3);
    for (const pid of left) {
      let state = '';
      try {
        state = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        /* gone */
      }
      assert.ok(state === '' || / Z /.test(state), `process ${pid} was left behind: ${state}`);
    }
  });
});
