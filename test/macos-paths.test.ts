// macOS, simulated on Linux (docs/platforms.md), the paths: a $TMPDIR as long
// as macOS's and a long home folder, where a Unix socket path holds 103 bytes;
// and a home folder and repositories reached through a symbolic link, as /tmp
// and /var are on a Mac. (test/macos.test.ts: bash 3.2 and no /proc.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { userPaths } from '../src/paths.js';
import { CLI, COPILOT, copilotCache, copilotSkip, describeNeeding, hooksSettled, needs, sandbox } from './helpers.js';
import { run, type SpawnOptions } from './spawn.js';
import { TestObserver } from './observer-server.js';

const start = (sid: string) => JSON.stringify({ sessionId: sid, timestamp: Date.now(), cwd: '/w', source: 'new', initialPrompt: 'go' });

/** The longest Unix socket path macOS takes: its sun_path holds 104 bytes, the final NUL included. */
const MAC_SOCKET_MAX = 103;

/** A folder under `dir` whose path is `length` characters long, ending in `/T/` as macOS's $TMPDIR does (/var/folders/xx/<32>/T/). */
/** A Mac user's environment: no XDG variables and no XDG_RUNTIME_DIR (a Mac has none), the sandbox's PATH and git config, `more` on top. */
function macEnv(sb: ReturnType<typeof sandbox>, home: string, more: Record<string, string>): Record<string, string> {
  return {
    PATH: sb.env.PATH!,
    HOME: home,
    GIT_CONFIG_GLOBAL: sb.env.GIT_CONFIG_GLOBAL!,
    GIT_CONFIG_NOSYSTEM: '1',
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    ...more,
  };
}

function macTmpdir(dir: string, length: number): string {
  const head = join(dir, 'var', 'folders', 'xx');
  const path = `${head}/${'k'.repeat(length - head.length - 4)}/T/`;
  assert.equal(path.length, length);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}

/** The AF_UNIX paths bound and connected to, from `strace -e trace=bind,connect`'s log. */
function socketPaths(log: string): { bound: string[]; connected: string[] } {
  const bound: string[] = [];
  const connected: string[] = [];
  for (const m of readFileSync(log, 'utf8').matchAll(/\b(bind|connect)\(\d+, \{sa_family=AF_UNIX, sun_path="((?:[^"\\]|\\.)*)"/g))
    (m[1] === 'bind' ? bound : connected).push(m[2]!);
  return { bound, connected };
}

/** Runs `cmd` under strace, every process it starts followed, tracing only bind and connect. */
const traced = (log: string, cmd: string, args: string[], opts: SpawnOptions) =>
  run('strace', ['-f', '-qq', '--seccomp-bpf', '-e', 'trace=bind,connect', '-o', log, cmd, ...args], opts);

describeNeeding(needs('strace'), 'a long $TMPDIR and HOME, as on a Mac', () => {
  const sb = sandbox('fleet-git-longtmp-');
  // The home of a Mac user, long enough that the spool's socket would not fit as a full path
  // (HOME/.local/share/fleet-git/spool/forwarder.sock), short enough that fleet's own does.
  const home = join(sb.dir, 'Users', 'l'.repeat(65 - sb.dir.length - 7));
  assert.equal(home.length, 65);
  mkdirSync(home, { recursive: true });
  const macTmp = macTmpdir(sb.dir, 51);
  // No XDG variables, no XDG_RUNTIME_DIR: a Mac has none.
  const env = macEnv(sb, home, { TMPDIR: macTmp, FLEET_GIT_FORWARDER_IDLE_MS: '300' });
  const paths = userPaths(env, home);
  assert.ok(Buffer.byteLength(paths.fleetSocket) <= MAC_SOCKET_MAX);
  assert.ok(Buffer.byteLength(join(paths.dataDir, 'spool', 'forwarder.sock')) > MAC_SOCKET_MAX);
  const repo = sb.repo('proj');
  let obs: TestObserver;
  before(async () => {
    obs = await TestObserver.start(paths.fleetSocket);
  });
  after(() => obs.close());

  test("the hook's events reach the observer; the forwarder's socket fits", async () => {
    const e = await run(process.execPath, [CLI, 'enable'], { cwd: repo, env });
    assert.equal(e.code, 0, e.stderr);
    const doc = JSON.parse(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8'));
    const log = join(sb.dir, 'hook.strace');
    const r = await traced(log, '/bin/bash', ['--norc', '--noprofile', '-c', doc.hooks.sessionStart[0].bash], {
      cwd: repo,
      env,
      input: start('long-home'),
    });
    assert.equal(r.code, 0, r.stderr);
    await obs.waitFor((ev) => ev.session_id === 'long-home');
    const { bound, connected } = socketPaths(log);
    assert.ok(
      bound.some((p) => /^forwarder\.\d+\.sock$/.test(p)),
      `the forwarder's socket (linked to forwarder.sock), by a name relative to the spool: ${bound}`,
    );
    assert.ok(connected.includes(paths.fleetSocket), `${connected}`);
    for (const p of [...bound, ...connected]) assert.ok(Buffer.byteLength(p) <= MAC_SOCKET_MAX, `${p}: ${Buffer.byteLength(p)} bytes`);
  });

  for (const [what, length] of [
    ["macOS's length", 51],
    ['longer still (a socket path in it would fit Linux but not macOS)', 62],
  ] as const)
    test(`doctor's trial socket and folder with a $TMPDIR of ${what}: they fit`, async () => {
      const tmp = length === 51 ? macTmp : macTmpdir(join(sb.dir, 'longer'), length);
      const log = join(sb.dir, `doctor-${length}.strace`);
      const d = await traced(log, process.execPath, [CLI, 'doctor'], { cwd: repo, env: { ...env, TMPDIR: tmp } });
      assert.match(d.stdout, /^ok +the hook client runs as Copilot runs it/m, d.stdout);
      const { bound } = socketPaths(log);
      // One trial as Copilot runs the hook, one as VS Code's agent runs it: a socket each.
      const observer = bound.filter((p) => p.endsWith('/observer/fleet.sock'));
      assert.equal(observer.length, 2, `${bound}`);
      for (const o of observer)
        if (length === 51) assert.ok(o.startsWith(tmp), `${o} is in $TMPDIR`);
        else assert.ok(o.startsWith('/tmp/fleet-git-doctor-'), `${o} is in /tmp, where it fits`);
      for (const p of bound) assert.ok(Buffer.byteLength(p) <= MAC_SOCKET_MAX, `${p}: ${Buffer.byteLength(p)} bytes`);
    });

  test(
    "doctor --live with the real Copilot: every event, and every socket of fleet-git's in the run fits",
    { skip: copilotSkip, timeout: 120_000 },
    async () => {
      const cache = copilotCache();
      const trusted = sb.repo('live');
      assert.equal((await run(process.execPath, [CLI, 'enable', '--trust'], { cwd: trusted, env })).code, 0);
      const log = join(sb.dir, 'live.strace');
      const d = await traced(log, process.execPath, [CLI, 'doctor', '--live', '--json', '--copilot', COPILOT], {
        cwd: trusted,
        env: { ...env, XDG_CACHE_HOME: cache },
      });
      assert.equal(d.code, 0, d.stdout + d.stderr);
      const report = JSON.parse(d.stdout) as { ok: boolean; events: Array<{ id: string; status: string }> };
      assert.equal(report.ok, true);
      assert.ok(report.events.length >= 5 && report.events.every((e) => e.status === 'once'), d.stdout);
      const { bound, connected } = socketPaths(log);
      const probe = bound.filter((p) => p.endsWith('/observer/fleet.sock'));
      assert.equal(probe.length, 1, `${bound}`);
      assert.ok(probe[0]!.startsWith(macTmp), `${probe[0]} is in $TMPDIR`);
      assert.ok(connected.includes(probe[0]!), "the probe's events went to its own socket");
      const ours = [...bound, ...connected].filter((p) => p.includes('fleet-git') || p.endsWith('forwarder.sock'));
      for (const p of ours) assert.ok(Buffer.byteLength(p) <= MAC_SOCKET_MAX, `${p}: ${Buffer.byteLength(p)} bytes`);
    },
  );
});

describe('the home folder and repositories reached through a symbolic link, as /tmp and /var are on a Mac', () => {
  const sb = sandbox('fleet-git-linked-');
  // var -> private, as /var -> /private/var on a Mac; HOME is given by the link.
  const realTop = join(sb.dir, 'private');
  mkdirSync(join(realTop, 'home'), { recursive: true });
  symlinkSync('private', join(sb.dir, 'var'));
  const home = join(sb.dir, 'var', 'home');
  const env = macEnv(sb, home, { FLEET_GIT_FORWARDER_IDLE_MS: '200' });
  const paths = userPaths(env, home);
  const real = (p: string) => p.replace(join(sb.dir, 'var'), realTop);
  const fleet = (cwd: string, ...args: string[]) => run(process.execPath, [CLI, ...args], { cwd, env: { ...env, PWD: cwd } });
  const status = async (cwd: string) => JSON.parse((await fleet(cwd, 'status', '--json')).stdout);
  const src = sb.repo('src');
  mkdirSync(join(home, 'code'));
  const repo = join(home, 'code', 'demo');
  sb.git(join(home, 'code'), 'clone', '-q', src, 'demo');

  test("Copilot's trust: an entry by the link or by the real path, judged as Copilot judges it, the same from either path", async () => {
    assert.equal((await fleet(repo, 'enable')).code, 0);
    const config = join(paths.copilotHome, 'config.json');
    mkdirSync(paths.copilotHome, { recursive: true });
    for (const [entry, trusted] of [
      [repo, true],
      [join(home, 'code'), true],
      [real(repo), true],
      [join(home, 'elsewhere'), false],
    ] as const) {
      writeFileSync(config, JSON.stringify({ trustedFolders: [entry] }));
      const byLink = await status(repo);
      assert.deepEqual(await status(real(repo)), byLink, `${entry}: the same from the real path`);
      assert.equal(byLink.path, real(repo));
      assert.deepEqual([byLink.copilot.trusted, byLink.problems], [trusted, []], entry);
      // enable --trust adds nothing where an entry covers the repository already.
      const before = readFileSync(config, 'utf8');
      assert.equal((await fleet(repo, 'enable', '--trust')).code, 0);
      if (trusted) assert.equal(readFileSync(config, 'utf8'), before, `${entry}: nothing added`);
    }
  });

  test(
    'the real Copilot, started from the link with the entry by the link, runs the repository hooks (fleet-git says trusted)',
    { skip: copilotSkip, timeout: 120_000 },
    async () => {
      const cache = copilotCache();
      const { startModelServer } = await import('../src/copilot/model-server.js');
      const model = await startModelServer();
      const obs = await TestObserver.start(paths.fleetSocket);
      try {
        writeFileSync(join(paths.copilotHome, 'config.json'), JSON.stringify({ trustedFolders: [repo] }));
        assert.equal((await status(repo)).copilot.trusted, true);
        const r = await run(COPILOT, ['-p', 'list files', '--allow-all', '--no-auto-update'], {
          cwd: repo,
          env: {
            ...env,
            PWD: repo,
            COPILOT_OFFLINE: 'true',
            COPILOT_PROVIDER_BASE_URL: model.baseUrl,
            COPILOT_PROVIDER_API_KEY: 'dummy',
            COPILOT_MODEL: 'gpt-4.1',
            XDG_CACHE_HOME: cache,
          },
          limitMs: 110_000,
        });
        assert.equal(r.code, 0, r.stderr);
        await obs.waitFor((e) => e.event === 'Stop', 15_000);
        await hooksSettled(home, join(paths.dataDir, 'spool'));
        assert.deepEqual(
          obs.events.map((e) => e.event),
          ['SessionStart', 'PostToolUse', 'PostToolUse', 'Stop', 'Stop'],
        );
      } finally {
        await obs.close();
        await model.close();
      }
    },
  );

  test("setup's include and exclude rules: a rule by the link or by the real path, a clone made by either, the same decisions", async () => {
    mkdirSync(join(paths.configDir), { recursive: true });
    writeFileSync(
      join(paths.configDir, 'config.json5'),
      JSON.stringify({
        include: [join(home, 'work'), '~/code'],
        exclude: [`${join(home, 'work')}/skip*`, `${real(join(home, 'code'))}/old`],
      }),
    );
    assert.equal((await fleet(home, 'setup')).code, 0);
    mkdirSync(join(home, 'work'));
    mkdirSync(join(home, 'other'));
    const cases: Array<[string, boolean]> = [
      ['work/a', true],
      ['work/skip1', false],
      ['code/b', true],
      ['code/old', false],
      ['other/c', false],
    ];
    for (const [rel, included] of cases)
      for (const [how, at] of [
        ['link', join(home, rel)],
        ['real', real(join(home, rel))],
      ] as const) {
        const dest = join(at, how);
        mkdirSync(at, { recursive: true });
        const c = spawnSync('git', ['clone', '-q', src, dest], {
          cwd: dirname(dest),
          env: { ...env, PWD: dirname(dest) },
          encoding: 'utf8',
        });
        assert.deepEqual([c.status, c.stderr], [0, ''], dest);
        assert.equal(existsSync(join(dest, '.github', 'hooks', 'fleet.json')), included, `${dest}: provisioned`);
        const t = await fleet(home, 'config', '--test', dest);
        assert.match(t.stdout, included ? /: included/ : /: not included/, dest);
        assert.equal((await status(dest)).enabled, included, dest);
      }
  });
});
