// The hook shims and the data folder's kit (src/core/repo/kit.ts): what a
// repository holds is a few stable lines that hand over to the data folder's
// scripts, so an upgrade of fleet-git whose scripts changed rewrites no
// repository and leaves every one healthy; 0.1.0's files are outdated, in
// words, and still deliver; FLEET_GIT=0 and FLEET_GIT_DEBUG; a missing data
// folder; an event during a kit refresh is delivered once by a matching pair.
// Another build is a copy of this package (dist/ and templates/) in a
// temporary folder, its scripts' templates changed, run as its own command.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { renderGitHook } from '../src/core/repo/git-hook.js';
import { kitId, readStamp, refreshKit } from '../src/core/repo/kit.js';
import { userPaths } from '../src/paths.js';
import { gitChurn, hooksSettled, otherBuild, repeats, ROOT, sandbox, snapshot } from './helpers.js';
import { CLIENT, gitHookOf010, hookFileOf010, runHook, stepOf, tool } from './hook-run.js';
import { TestObserver } from './observer-server.js';
import { runSync } from './spawn.js';

const HOOK = '.github/hooks/fleet.json';

before(() => assert.ok(existsSync(CLIENT), `${CLIENT} is missing: run npm run build first`));

/** A sandbox whose forwarders leave `idleMs` after their last event, and an observer on its socket for the describe block (obs(): it). */
function withObserver(idleMs = '300') {
  const sb = sandbox('fleet-git-kit-');
  const env = { ...sb.env, FLEET_GIT_FORWARDER_IDLE_MS: idleMs };
  const paths = userPaths(env, sb.home);
  let observer: TestObserver;
  before(async () => {
    observer = await TestObserver.start(paths.fleetSocket);
  });
  after(() => observer.close());
  return { sb, env, paths, obs: () => observer };
}

function cliOf(cli: string, cwd: string, env: Record<string, string>, ...args: string[]) {
  return runSync(process.execPath, [cli, ...args], { cwd, env });
}

/** The command of one event in a repository's hook file. */
function commandOf(repo: string, event: string): string {
  return (JSON.parse(readFileSync(join(repo, HOOK), 'utf8')) as { hooks: Record<string, { bash: string }[]> }).hooks[event]![0]!.bash;
}

/** What fleet-git put in a repository and its linked worktrees (git's own churn left out). */
function repoFiles(...roots: string[]): Record<string, string>[] {
  return roots.map((r) => snapshot(r, (rel) => gitChurn(rel) || rel.startsWith('.git/objects') || rel.startsWith('.git/refs')));
}

describe('an upgrade to a build whose scripts changed', () => {
  const { sb, env, paths, obs } = withObserver();

  test('rewrites no repository, leaves every one healthy, and its scripts deliver the events and provision new worktrees', async () => {
    const a = sb.repo('a');
    const b = sb.repo('b');
    const wt = join(sb.dir, 'a-wt');
    assert.equal(sb.cli(a, 'enable').status, 0);
    assert.equal(sb.cli(b, 'enable').status, 0);
    sb.git(a, 'worktree', 'add', '-q', wt, '-b', 'w');
    assert.equal(sb.cli(a, 'setup').status, 0);
    const tpl = join(paths.dataDir, 'template', 'hooks', 'post-checkout');
    const before = repoFiles(a, b, wt);
    const templateBefore = readFileSync(tpl);
    const oldKit = kitId();

    const cli = otherBuild(join(sb.dir, 'next'));
    // A --dry-run changes nothing, the kit included: the next command still finds it another build's.
    for (const cmd of ['enable', 'disable', 'remove'])
      assert.equal(cliOf(cli, a, env, cmd, '--dry-run', ...(cmd === 'remove' ? [a] : [])).status, 0, cmd);
    assert.doesNotMatch(readFileSync(join(paths.dataDir, 'hook.sh'), 'utf8'), /another build/);
    // A reading command reads: doctor says the kit is another build's, and leaves it as it is.
    const doctor = cliOf(cli, a, env, 'doctor', '--json');
    const kit = (JSON.parse(doctor.stdout) as { checks: { id: string; level: string; message: string }[] }).checks.find(
      (c) => c.id === 'kit',
    );
    assert.equal(kit?.level, 'note', doctor.stdout);
    assert.match(kit!.message, new RegExp(`is another fleet-git's \\(${oldKit}\\): the hooks run it until a command that changes things`));
    assert.equal(readStamp(paths.dataDir).id, oldKit);
    // The first command of the new build that changes things replaces it (an enable that finds the repository as it should be).
    assert.equal(cliOf(cli, a, env, 'enable').status, 0);
    const newKit = readStamp(paths.dataDir).id!;
    assert.notEqual(newKit, oldKit);
    assert.match(readFileSync(join(paths.dataDir, 'hook.sh'), 'utf8'), /# another build of fleet-git\n$/);
    assert.match(readFileSync(join(paths.dataDir, 'post-checkout.sh'), 'utf8'), /# another build of fleet-git\n$/);
    // The previous kit stays (an event that read the old hook.sh a moment ago runs its client).
    assert.deepEqual(readdirSync(join(paths.dataDir, 'kit')).sort(), [newKit, oldKit, 'stamp'].sort());

    const scan = JSON.parse(cliOf(cli, sb.dir, env, 'scan', '--json', sb.dir).stdout) as {
      repos: { path: string; problems: unknown[]; worktrees: { problems: unknown[] }[] }[];
      counts: { healthy: number };
    };
    assert.deepEqual(
      scan.repos.map((r) => [r.path, r.problems, r.worktrees.map((w) => w.problems)]),
      [
        [a, [], [[]]],
        [b, [], []],
      ],
    );
    const status = cliOf(cli, a, env, 'status');
    assert.match(status.stdout, new RegExp(`^${a}: enabled\\n`));
    assert.match(status.stdout, /new clones \(fleet-git setup\): in effect/);
    assert.deepEqual(repoFiles(a, b, wt), before, 'no byte of any repository changed');
    assert.deepEqual(readFileSync(tpl), templateBefore, "setup's template hook is as it was");

    // The hook file's commands now run the new build's scripts and client.
    const log = join(sb.dir, 'debug.log');
    const r = await runHook(commandOf(b, 'postToolUse'), tool('upgraded', 1), { ...env, FLEET_GIT_DEBUG: log }, { cwd: b });
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    await obs().waitFor((e) => e.session_id === 'upgraded');
    assert.match(readFileSync(log, 'utf8'), new RegExp(`^fleet-git hook \\(postToolUse, kit ${newKit}\\): event written to `, 'm'));
    // And the git hook: a new worktree is provisioned by the new post-checkout.sh.
    const wt2 = join(sb.dir, 'b-wt');
    const add = runSync('git', ['worktree', 'add', '-q', wt2, '-b', 'w2'], { cwd: b, env: { ...env, FLEET_GIT_DEBUG: '1' } });
    assert.equal(add.status, 0, add.stderr);
    assert.match(
      add.stderr,
      new RegExp(`fleet-git post-checkout \\(repo, kit ${newKit}\\): ${wt2}: wrote ${wt2}/\\.github/hooks/fleet\\.json`),
    );
    assert.deepEqual(readFileSync(join(wt2, HOOK), 'utf8'), readFileSync(join(b, HOOK), 'utf8'));
    await hooksSettled(sb.home, join(paths.dataDir, 'spool'));

    // Back to this build: it takes its kit back, keeping the other as the previous one.
    assert.equal(sb.cli(a, 'enable').status, 0);
    assert.deepEqual(readdirSync(join(paths.dataDir, 'kit')).sort(), [newKit, oldKit, 'stamp'].sort());
    assert.doesNotMatch(readFileSync(join(paths.dataDir, 'hook.sh'), 'utf8'), /another build/);
    // A third build: the oldest kit goes, the previous stays.
    const third = otherBuild(join(sb.dir, 'third'), '# a third build');
    assert.equal(cliOf(third, a, env, 'enable').status, 0);
    const kits = readdirSync(join(paths.dataDir, 'kit')).filter((n) => n !== 'stamp');
    assert.equal(kits.length, 2);
    assert.ok(kits.includes(oldKit) && !kits.includes(newKit), kits.join(' '));
  });
});

describe('the same build installed again (new files, the same bytes)', () => {
  const { sb, env, paths } = withObserver();
  test("finds the kit its own: no script rewritten, doctor calls it this build's", () => {
    const repo = sb.repo('again');
    assert.equal(sb.cli(repo, 'enable').status, 0);
    const data = () => snapshot(paths.dataDir, (rel) => rel === 'kit/stamp' || rel.endsWith('.cache'));
    const before = data();
    const stamp = readFileSync(join(paths.dataDir, 'kit', 'stamp'), 'utf8');
    const cli = otherBuild(join(sb.dir, 'again'), null);
    const doctor = JSON.parse(cliOf(cli, repo, env, 'doctor', '--json').stdout) as { checks: { id: string; message: string }[] };
    assert.match(doctor.checks.find((c) => c.id === 'kit')!.message, /^the data folder's kit is this fleet-git's /);
    assert.deepEqual(data(), before, 'the data folder as it was');
    assert.equal(readFileSync(join(paths.dataDir, 'kit', 'stamp'), 'utf8'), stamp, 'doctor only reads');
    // The next command that changes things: the stamp names the new copy's files (its third line), the same kit.
    assert.equal(cliOf(cli, repo, env, 'enable').status, 0);
    assert.deepEqual(data(), before, 'the data folder as it was');
    const now = readFileSync(join(paths.dataDir, 'kit', 'stamp'), 'utf8').split('\n');
    assert.deepEqual(now.slice(0, 2), stamp.split('\n').slice(0, 2));
    assert.notEqual(now[2], stamp.split('\n')[2]);
  });
});

describe('a stamp that cannot be rewritten', () => {
  const { sb, paths } = withObserver();
  test('the same build found again: current, not a failure (doctor would call it one)', () => {
    assert.equal(sb.cli(sb.repo('ro'), 'enable').status, 0);
    const stamp = join(paths.dataDir, 'kit', 'stamp');
    // The kit's id with other files' fingerprint, through a link, which fleet-git never writes through.
    const real = join(sb.dir, 'stamp-elsewhere');
    writeFileSync(real, `${kitId()}\n\nother files\n`);
    rmSync(stamp);
    symlinkSync(real, stamp);
    assert.deepEqual(refreshKit(paths), { state: 'current', id: kitId() });
    assert.equal(readFileSync(real, 'utf8'), `${kitId()}\n\nother files\n`);
  });
});

describe('hook files and git hooks written by fleet-git 0.1.0 (hook format 1)', () => {
  const { sb, env, paths, obs } = withObserver();

  test('are outdated, said in words, keep delivering events and provisioning worktrees until enable rewrites them', async () => {
    const repo = sb.repo('old');
    assert.equal(sb.cli(repo, 'enable').status, 0);
    const current = { file: readFileSync(join(repo, HOOK), 'utf8'), hook: readFileSync(join(repo, '.git/hooks/post-checkout'), 'utf8') };
    // As 0.1.0 left them, and its canonical hook file, which its git hook copies.
    writeFileSync(join(repo, HOOK), hookFileOf010(paths.dataDir));
    writeFileSync(join(repo, '.git/hooks/post-checkout'), gitHookOf010(paths.dataDir), { mode: 0o755 });
    writeFileSync(paths.canonicalHookFile, hookFileOf010(paths.dataDir));
    const st = JSON.parse(sb.cli(repo, 'status', '--json').stdout) as { problems: { code: string; message: string }[] };
    assert.deepEqual(
      st.problems.map((p) => p.code),
      ['git-hook-outdated', 'hook-file-outdated'],
    );
    assert.equal(
      st.problems[1]!.message,
      `${HOOK} in ${repo} was written by an older fleet-git (hook format 1; this one writes format 2): run fleet-git enable`,
    );
    assert.equal(
      st.problems[0]!.message,
      `the post-checkout hook in ${join(repo, '.git/hooks')} was written by an older fleet-git (hook format 1; this one writes format 2): run fleet-git enable`,
    );
    // Its one-line command runs the data folder's hook client, still there.
    const r = await runHook(commandOf(repo, 'postToolUse'), tool('from-0.1.0', 1), env, { cwd: repo });
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    await obs().waitFor((e) => e.session_id === 'from-0.1.0');
    // Its git hook still provisions a new worktree, with its canonical file.
    const wt = join(sb.dir, 'old-wt');
    sb.git(repo, 'worktree', 'add', '-q', wt, '-b', 'w');
    assert.equal(readFileSync(join(wt, HOOK), 'utf8'), hookFileOf010(paths.dataDir));
    await hooksSettled(sb.home, join(paths.dataDir, 'spool'));

    assert.equal(sb.cli(repo, 'enable').status, 0);
    assert.equal(readFileSync(join(repo, HOOK), 'utf8'), current.file);
    assert.equal(readFileSync(join(wt, HOOK), 'utf8'), current.file);
    assert.equal(readFileSync(join(repo, '.git/hooks/post-checkout'), 'utf8'), current.hook);
    assert.deepEqual(JSON.parse(sb.cli(repo, 'status', '--json').stdout).problems, []);
  });
});

describe('the shims', () => {
  const { sb, env, paths, obs } = withObserver();
  const repo = sb.repo('shim');
  assert.equal(sb.cli(repo, 'enable').status, 0);
  const spool = join(paths.dataDir, 'spool');
  const spooled = () => (existsSync(spool) ? readdirSync(spool).filter((n) => n.endsWith('.ev')) : []);

  test('the post-checkout hook is a few stable lines: the data folder and the format are all it holds of fleet-git', () => {
    const hook = readFileSync(join(repo, '.git/hooks/post-checkout'), 'utf8');
    assert.equal(hook, renderGitHook(paths.dataDir));
    assert.ok(hook.split('\n').length < 40, `${hook.split('\n').length} lines`);
    assert.match(hook, /^# fleet-git hook format 2: /m);
    assert.ok(hook.includes(`fleet_git_data='${paths.dataDir}'\n`));
    assert.ok(!hook.includes('info/exclude'), 'no provisioning logic in the repository');
  });

  test('FLEET_GIT=0: the Copilot hook writes nothing, starts nothing, says nothing; the git hook provisions nothing', async () => {
    await hooksSettled(sb.home, spool);
    const r = await runHook(
      commandOf(repo, 'postToolUse'),
      tool('off', 1),
      { ...env, FLEET_GIT: '0', FLEET_GIT_DEBUG: '1' },
      { cwd: repo },
    );
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    assert.deepEqual(spooled(), []);
    assert.equal(existsSync(join(spool, 'forwarder.lease')), false, 'no forwarder started');
    const wt = join(sb.dir, 'off-wt');
    const add = runSync('git', ['worktree', 'add', '-q', wt, '-b', 'off'], {
      cwd: repo,
      env: { ...env, FLEET_GIT: '0', FLEET_GIT_DEBUG: '1' },
    });
    assert.deepEqual([add.status, add.stderr], [0, '']);
    assert.equal(existsSync(join(wt, HOOK)), false);
  });

  test('FLEET_GIT_DEBUG=1 says on stderr what each hook does; an absolute path appends it to that file; unset, nothing', async () => {
    const kit = kitId();
    const r = await runHook(commandOf(repo, 'postToolUse'), tool('debug', 1), { ...env, FLEET_GIT_DEBUG: '1' }, { cwd: repo });
    assert.deepEqual([r.code, r.stdout], [0, '']);
    assert.match(r.stderr, new RegExp(`^fleet-git hook \\(postToolUse, kit ${kit}\\): event written to ${spool}/\\d+\\.\\d+\\.ev\\n`));
    assert.match(
      r.stderr,
      /\n(fleet-git hook \(postToolUse, kit \w+\): (started a forwarder \(job \d+\) with .*\/hook-client\.cjs|a forwarder holds the lease: it sends the event))\n$/,
    );
    await obs().waitFor((e) => e.session_id === 'debug');
    const log = join(sb.dir, 'logs', 'fleet-git.log');
    mkdirSync(join(sb.dir, 'logs'));
    const q = await runHook(commandOf(repo, 'sessionEnd'), tool('debug', 2), { ...env, FLEET_GIT_DEBUG: log }, { cwd: repo });
    assert.deepEqual([q.code, q.stdout, q.stderr], [0, '', '']);
    assert.match(readFileSync(log, 'utf8'), new RegExp(`^fleet-git hook \\(sessionEnd, kit ${kit}\\): event written to `));
    // A log file that cannot be written: quiet, and the event still goes.
    const bad = await runHook(
      commandOf(repo, 'postToolUse'),
      tool('debug-bad', 3),
      { ...env, FLEET_GIT_DEBUG: join(sb.dir, 'no', 'such', 'log') },
      { cwd: repo },
    );
    assert.deepEqual([bad.code, bad.stdout, bad.stderr], [0, '', '']);
    await obs().waitFor((e) => e.session_id === 'debug-bad');
    // No observer where the event goes: said, since no card will appear.
    const away = join(sb.dir, 'no-observer');
    const none = await runHook(
      commandOf(repo, 'postToolUse'),
      tool('debug-none', 4),
      { ...env, FLEET_GIT_DEBUG: '1', FLEET_GIT_OBSERVER_DIR: away },
      { cwd: repo },
    );
    assert.match(
      none.stderr,
      new RegExp(`\\): no fleet observer listens at ${away}/fleet\\.sock: the forwarder drops the event \\(start fleet's observer\\)\\n`),
    );
    assert.doesNotMatch(r.stderr, /no fleet observer/);

    const wt = join(sb.dir, 'debug-wt');
    const add = runSync('git', ['worktree', 'add', '-q', wt, '-b', 'dbg'], { cwd: repo, env: { ...env, FLEET_GIT_DEBUG: '1' } });
    assert.equal(add.status, 0);
    assert.equal(add.stderr, `fleet-git post-checkout (repo, kit ${kit}): ${wt}: wrote ${wt}/.github/hooks/fleet.json\n`);
    const co = runSync('git', ['checkout', '-q', '-b', 'dbg2'], { cwd: wt, env: { ...env, FLEET_GIT_DEBUG: log } });
    assert.deepEqual([co.status, co.stderr], [0, '']);
    assert.match(
      readFileSync(log, 'utf8'),
      new RegExp(
        `\\nfleet-git post-checkout \\(repo, kit ${kit}\\): ${wt}: \\.github/hooks/fleet\\.json is in place and current: nothing to do\\n$`,
      ),
    );
    const quiet = runSync('git', ['checkout', '-q', '-b', 'dbg3'], { cwd: wt, env });
    assert.deepEqual([quiet.status, quiet.stderr], [0, '']);
    const unwritable = runSync('git', ['checkout', '-q', '-b', 'dbg4'], {
      cwd: wt,
      env: { ...env, FLEET_GIT_DEBUG: join(sb.dir, 'no', 'log') },
    });
    assert.deepEqual([unwritable.status, unwritable.stderr], [0, '']);
    await hooksSettled(sb.home, spool);
  });

  test("FLEET_GIT_DEBUG in setup's template copy: why a clone was provisioned or left alone", () => {
    mkdirSync(dirname(paths.configFile), { recursive: true });
    writeFileSync(paths.configFile, `{ include: ['${join(sb.dir, 'work')}/**'] }\n`);
    assert.equal(sb.cli(repo, 'setup').status, 0);
    const kit = kitId();
    const out = runSync('git', ['clone', '-q', repo, join(sb.dir, 'elsewhere')], { cwd: sb.dir, env: { ...env, FLEET_GIT_DEBUG: '1' } });
    assert.equal(out.status, 0, out.stderr);
    assert.equal(
      out.stderr,
      `fleet-git post-checkout (clone, kit ${kit}): ${join(sb.dir, 'elsewhere')}: left alone: setup is not in effect, or the config's include and exclude rules leave this clone out\n`,
    );
    assert.equal(existsSync(join(sb.dir, 'elsewhere', HOOK)), false);
    mkdirSync(join(sb.dir, 'work'));
    const inc = runSync('git', ['clone', '-q', repo, join(sb.dir, 'work', 'in')], { cwd: sb.dir, env: { ...env, FLEET_GIT_DEBUG: '1' } });
    assert.equal(inc.status, 0, inc.stderr);
    assert.match(
      inc.stderr,
      new RegExp(`^fleet-git post-checkout \\(clone, kit ${kit}\\): .*/work/in: the config's rules include this clone: provisioning it\\n`),
    );
    assert.match(inc.stderr, /: wrote \S*\/work\/in\/\.github\/hooks\/fleet\.json\n$/);
    assert.ok(existsSync(join(sb.dir, 'work', 'in', HOOK)));
    assert.equal(sb.cli(repo, 'setup', '--undo').status, 0);
    rmSync(paths.configFile);
  });

  test("the data folder's scripts gone: the Copilot hook exits 0 and says nothing; the git hook says what to run, as when fleet-git is gone", async () => {
    const saved = join(sb.dir, 'saved-data');
    cpSync(paths.dataDir, saved, { recursive: true });
    try {
      rmSync(paths.dataDir, { recursive: true, force: true });
      for (const pipe of [false, true]) {
        const r = await runHook(commandOf(repo, 'postToolUse'), tool('gone', 1), env, { cwd: repo, pipe });
        assert.deepEqual([r.returned, r.code, r.stdout, r.stderr], [true, 0, '', '']);
      }
      const wt = join(sb.dir, 'gone-wt');
      const add = runSync('git', ['worktree', 'add', '-q', wt, '-b', 'gone'], { cwd: repo, env });
      assert.equal(add.status, 0);
      assert.equal(
        add.stderr,
        `fleet-git: found no fleet-git install (${paths.dataDir}/post-checkout.sh is gone); run 'fleet-git enable' to repair or 'fleet-git disable' to remove this hook\n`,
      );
      // A worktree that has the hook file: nothing to say.
      const co = runSync('git', ['checkout', '-q', '-b', 'gone2'], { cwd: repo, env });
      assert.deepEqual([co.status, co.stderr], [0, '']);
    } finally {
      rmSync(paths.dataDir, { recursive: true, force: true });
      cpSync(saved, paths.dataDir, { recursive: true });
    }
  });
});

describe('an event fired while the kit is replaced', () => {
  const { sb, env, paths, obs } = withObserver('50');

  test('is delivered once, by the client of the script it read, whichever build put it there', { timeout: 120_000 }, async () => {
    const repo = sb.repo('swap');
    assert.equal(sb.cli(repo, 'enable').status, 0);
    const next = otherBuild(join(sb.dir, 'next'));
    const cmd = commandOf(repo, 'postToolUse');
    const log = join(sb.dir, 'swap.log');
    let swapping = true;
    let swaps = 0;
    // Builds taking turns at the data folder, as two installs run one after the other.
    const swapper = (async () => {
      const { run } = await import('./spawn.js');
      while (swapping) {
        for (const cli of [next, join(ROOT, 'dist', 'cli.cjs')]) {
          const r = await run(process.execPath, [cli, 'enable'], { cwd: repo, env });
          assert.equal(r.code, 0, r.stderr);
          swaps++;
        }
      }
    })();
    const n = repeats(60);
    const every = Math.max(2, Math.floor(n / 10));
    for (let i = 0; i < n; i++) {
      const r = await runHook(cmd, tool('swap', i), { ...env, FLEET_GIT_DEBUG: log }, { cwd: repo });
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `event ${i}`);
      // Now and then the forwarder leaves, so that hooks of either build start one.
      if (i % every === every - 1) await hooksSettled(sb.home, join(paths.dataDir, 'spool'));
    }
    swapping = false;
    await swapper;
    await obs().waitFor((e) => e.session_id === 'swap' && stepOf(e) === n - 1, 20_000);
    await hooksSettled(sb.home, join(paths.dataDir, 'spool'));
    const steps = obs()
      .events.filter((e) => e.session_id === 'swap')
      .map(stepOf);
    assert.deepEqual(steps, [...Array(n).keys()], 'each event once, in order');
    assert.ok(swaps >= 4, `the kit changed hands ${swaps} times`);
    // Each hook ran the client of the kit its script named.
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    // Nothing but the hook's own lines: a script read half old, half new would have bash say so here.
    for (const l of lines)
      assert.match(
        l,
        /^fleet-git hook \(postToolUse, kit \w+\): (event written to |a forwarder holds the lease|started a forwarder|another hook is starting)/,
      );
    const started = lines.filter((l) => l.includes('started a forwarder'));
    assert.ok(started.length >= 5, lines.join('\n'));
    for (const l of started) {
      const [, kit, client] = /kit (\w+)\): started a forwarder \(job \d+\) with (.*)$/.exec(l)!;
      assert.equal(client, join(paths.dataDir, 'kit', kit!, 'hook-client.cjs'), l);
    }
    assert.ok(new Set(lines.map((l) => /kit (\w+)\)/.exec(l)?.[1])).size >= 2, 'events ran with both builds');
  });
});
