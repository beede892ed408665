// Releases and upgrades, as a user lives them. releases.txt names each release's
// commit; scripts/tag-releases.sh checks the file and tags from it. The upgrade:
// the previous release built from this clone's own history (git archive, its
// dependencies installed offline from npm's cache as its package-lock says, its
// own build, npm pack), installed with `npm install -g --prefix`, used (enable,
// a linked worktree, setup, enable --user), then this build installed over it
// into the same prefix, and the real Copilot CLI run offline against the fake
// model server with the observer's socket listening. From the stable shim on
// (issue 22): this build used, then a build whose data-folder scripts and hook
// client changed installed over it, which must change no byte of a repository.
// Needs `npm run build`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startModelServer, type ModelServer } from '../src/copilot/model-server.js';
import { HOOK_SCRIPT, userPaths } from '../src/paths.js';
import {
  CLI,
  COPILOT,
  copilotCache,
  copilotSkip,
  gitChurn,
  hooksSettled,
  offlineCopilotEnv,
  otherBuild,
  ROOT,
  sandbox,
  snapshot,
  type Sandbox,
} from './helpers.js';
import { installGlobal, npmEnv, pack } from './npm.js';
import { sessionShape, sessionShapeOf, TestObserver, type Received } from './observer-server.js';
import { run, runSync } from './spawn.js';

interface Release {
  version: string;
  sha: string;
}

/** A check of `doctor --json`. */
interface Check {
  level: string;
  message: string;
  fix?: string;
}

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const TAG_SCRIPT = join(ROOT, 'scripts', 'tag-releases.sh');

/** The releases releases.txt lists, oldest first (its lines VERSION SHA; blank lines and # comments skipped). */
function releases(text = readFileSync(join(ROOT, 'releases.txt'), 'utf8')): Release[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [version, sha] = l.trim().split(/\s+/);
      return { version, sha };
    });
}

/**
 * The release to upgrade from: the newest whose version is not package.json's (this build's own line may be
 * listed already, or not yet); when every listed release has this version, the newest (an upgrade from that
 * commit to this one).
 */
function previousRelease(list: Release[]): Release {
  const prev = list.filter((r) => r.version !== VERSION).at(-1) ?? list.at(-1);
  assert.ok(prev, 'releases.txt lists no release');
  return prev;
}

describe('releases.txt', () => {
  const sb = sandbox('fleet-git-releases-');

  test('every line names a commit of this clone whose package.json has its version, oldest first', () => {
    const list = releases();
    assert.ok(list.length > 0);
    for (const r of list) assert.match(r.sha, /^[0-9a-f]{40}$/, `${r.version}: a full commit sha`);
    const r = runSync('bash', [TAG_SCRIPT, '--check'], { cwd: ROOT, env: sb.env });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    // The file's own reading of each line, beside the script's check.
    for (const { version, sha } of list) {
      const at = JSON.parse(sb.git(ROOT, 'show', `${sha}:package.json`)) as { version: string };
      assert.equal(at.version, version, `package.json at ${sha}`);
    }
  });

  test('the tag script refuses a wrong mark in one line, tags the right ones once, and never moves a tag', () => {
    // A clone of this one (objects shared) at its HEAD with this tree's script and file, where the file can be
    // changed and tags made.
    const clone = join(sb.dir, 'clone');
    const head = sb.git(ROOT, 'rev-parse', 'HEAD');
    sb.git(sb.dir, 'clone', '-q', '--shared', '--no-checkout', '--no-tags', ROOT, clone); // no tags: this clone's own may be made already
    sb.git(clone, 'checkout', '-q', '--detach', head);
    const script = join(clone, 'scripts', 'tag-releases.sh');
    const file = join(clone, 'releases.txt');
    cpSync(TAG_SCRIPT, script);
    const first = releases()[0];
    const check = (text: string) => {
      writeFileSync(file, text);
      return runSync('bash', [script, '--check'], { cwd: clone, env: sb.env });
    };
    const parent = sb.git(clone, 'rev-parse', `${first.sha}^`);
    const cases: Array<[string, RegExp]> = [
      [`${first.version} ${first.sha.slice(0, 12)}\n`, /line 1: '\w+' is not a full commit sha/],
      [`9.9.9 ${first.sha}\n`, new RegExp(`line 1: package.json at ${first.sha} has version ${first.version}, not 9\\.9\\.9`)],
      [`# a comment\n${first.version} ${'0'.repeat(40)}\n`, /line 2: 0{40} is no commit of this clone/],
      [`${first.version} ${first.sha} extra\n`, /line 1: .* is not 'VERSION FULL-COMMIT-SHA'/],
      [`${first.version} ${first.sha}\n${first.version} ${first.sha}\n`, /line 2: .* does not come after/],
      [`# nothing\n`, /lists no release/],
    ];
    for (const [text, said] of cases) {
      const r = check(text);
      assert.equal(r.status, 1, `${text}: ${r.stderr}`);
      assert.match(r.stderr, said);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    // A commit that is not in HEAD's history (made beside it, nothing checked out).
    const elsewhere = sb.git(clone, 'commit-tree', `${parent}^{tree}`, '-p', parent, '-m', 'elsewhere');
    assert.match(check(`${first.version} ${elsewhere}\n`).stderr, /is not in the history of HEAD/);

    // The real file: tags made, then found made.
    cpSync(join(ROOT, 'releases.txt'), file);
    const tag = () => runSync('bash', [script], { cwd: clone, env: sb.env });
    const made = tag();
    assert.equal(made.status, 0, made.stderr);
    for (const r of releases()) {
      assert.match(made.stdout, new RegExp(`^v${r.version}: tagged ${r.sha}$`, 'm'));
      assert.equal(sb.git(clone, 'rev-parse', `v${r.version}^{commit}`), r.sha);
      assert.equal(sb.git(clone, 'cat-file', '-t', `v${r.version}`), 'tag', 'an annotated tag');
    }
    const again = tag();
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^v${first.version}: already on ${first.sha}$`, 'm'));
    // A tag already on another commit stays there, and the script says so.
    sb.git(clone, 'tag', '-f', `v${first.version}`, parent);
    const moved = tag();
    assert.equal(moved.status, 1);
    assert.match(moved.stderr, new RegExp(`v${first.version} is on ${parent}, not on ${first.sha}`));
    assert.equal(sb.git(clone, 'rev-parse', `v${first.version}^{commit}`), parent);
  });
});

/** npm's own cache, as this machine's npm is configured (CI's .ci/run keeps it). */
function userNpmCache(): string {
  return process.env.npm_config_cache || execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
}

/**
 * A cache for `npm ci --offline` that reads npm's own cache and writes nothing there: a copy of its index
 * (npm appends to it as it reads) and its content folder linked (offline, npm adds no content).
 */
function offlineCache(sb: Sandbox): string | null {
  const from = join(userNpmCache(), '_cacache');
  if (!existsSync(join(from, 'index-v5')) || !existsSync(join(from, 'content-v2'))) return null;
  const cache = join(sb.dir, 'npm-offline');
  mkdirSync(join(cache, '_cacache'), { recursive: true });
  cpSync(join(from, 'index-v5'), join(cache, '_cacache', 'index-v5'), { recursive: true });
  symlinkSync(join(from, 'content-v2'), join(cache, '_cacache', 'content-v2'));
  return cache;
}

/**
 * Builds the release at `r.sha` from this clone's history into a folder of `sb` and packs it: the tarball's path.
 * Its dependencies: `npm ci --offline` from npm's cache; failing that, this tree's node_modules when the two
 * lockfiles are the same; else `npm ci` from the registry into the sandbox's cache. `notes` says which.
 */
function buildRelease(sb: Sandbox, r: Release, notes: string[]): string {
  const tree = join(sb.dir, `release-${r.version}`);
  mkdirSync(tree);
  const archived = runSync('bash', ['-o', 'pipefail', '-c', 'git archive "$1" | tar -x -C "$2"', 'archive', r.sha, tree], {
    cwd: ROOT,
    env: sb.env,
  });
  assert.equal(archived.status, 0, `git archive ${r.sha} (a shallow clone? git fetch --unshallow): ${archived.stderr}`);
  const ci = (cache: string, ...more: string[]) =>
    runSync('npm', ['ci', '--ignore-scripts', ...more], { cwd: tree, env: npmEnv(sb, cache) });
  const cache = offlineCache(sb);
  const offline = cache ? ci(cache, '--offline') : null;
  const why = offline ? (offline.stderr.split('\n').find((l) => /error/i.test(l)) ?? `exit ${offline.status}`) : 'no npm cache';
  if (offline?.status === 0) notes.push(`${r.version}: dependencies installed offline from npm's cache (${userNpmCache()})`);
  else if (readFileSync(join(tree, 'package-lock.json')).equals(readFileSync(join(ROOT, 'package-lock.json')))) {
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    notes.push(
      `${r.version}: npm's cache could not install its dependencies offline (${why}); its lockfile is this tree's, so this tree's node_modules is used`,
    );
  } else {
    const online = ci(join(sb.dir, 'npm-cache'));
    assert.equal(online.status, 0, `npm ci in ${tree}: ${online.stderr}`);
    notes.push(`${r.version}: npm's cache could not install its dependencies offline (${why}); npm ci fetched them from the registry`);
  }
  const built = runSync('npm', ['run', 'build'], { cwd: tree, env: npmEnv(sb) });
  assert.equal(built.status, 0, `the build of ${r.version}: ${built.stdout}\n${built.stderr}`);
  const dest = join(sb.dir, `packed-${r.version}`);
  mkdirSync(dest);
  return pack(tree, dest, npmEnv(sb)).tarball;
}

/** The line buildChanged adds to each of the data folder's scripts. */
const CHANGED_LINE = '# One more comment line, as a change to this script would make.';

/**
 * This build as a release that changes only the data folder's scripts and the hook client would: a comment line
 * added to each script of the kit (templates/hook.sh and post-checkout.sh) and to the hook client's bundle, the
 * patch version one up (otherBuild), then packed. The tarball's path.
 */
function buildChanged(sb: Sandbox): string {
  const tree = join(sb.dir, 'changed');
  otherBuild(tree, CHANGED_LINE, '// One more comment line in the hook client.');
  const pkg = JSON.parse(readFileSync(join(tree, 'package.json'), 'utf8')) as { version: string };
  pkg.version = pkg.version.replace(/\d+$/, (z) => String(Number(z) + 1));
  writeFileSync(join(tree, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const dest = join(sb.dir, 'packed-changed');
  mkdirSync(dest);
  return pack(tree, dest, npmEnv(sb)).tarball;
}

/**
 * A user's machine: a sandbox, a global npm prefix with `fleet-git` on PATH, and an observer on fleet's socket.
 * npm installs there with `npmCache` (the file's machines share one: the registry is asked once for the package's
 * dependencies). Call it in a describe's body (it registers hooks).
 */
function machine(prefix: string, npmCache: string) {
  const sb = sandbox(prefix);
  const paths = userPaths(sb.env, sb.home);
  const npmPrefix = join(sb.dir, 'prefix');
  const env = { ...sb.env, PATH: `${join(npmPrefix, 'bin')}:${sb.env.PATH}` };
  const code = join(sb.dir, 'code');
  let obs!: TestObserver;
  before(async () => {
    obs = await TestObserver.start(paths.fleetSocket);
  });
  after(() => obs?.close());

  /** `fleet-git ARGS` in `cwd`, the installed one; asserts it exits 0. */
  function fleet(cwd: string, args: string[]) {
    const r = runSync('fleet-git', args, { cwd, env });
    assert.equal(r.status, 0, `fleet-git ${args.join(' ')}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  /** What fleet-git wrote for the user: every file of the repositories (git's churn left out), the user-level hook file, setup's template folder. */
  const files = () => ({
    repos: snapshot(code, gitChurn),
    userHook: snapshot(join(paths.copilotHome, 'hooks')),
    template: snapshot(join(paths.dataDir, 'template')),
  });

  return {
    sb,
    paths,
    code,
    fleet,
    files,
    /** A repository enabled, a linked worktree added, setup and enable --user: its path and the worktree's. */
    use(): { repo: string; wt: string } {
      const repo = sb.repo('code/app');
      const wt = join(code, 'app-wt');
      fleet(repo, ['enable']);
      sb.git(repo, 'worktree', 'add', '-q', wt, '-b', 'wt');
      fleet(repo, ['setup']);
      fleet(repo, ['enable', '--user']);
      return { repo, wt };
    },
    /** Installs the tarball as `npm install -g` does, over what the prefix has; the installed package's folder. */
    install(tarball: string): string {
      installGlobal(tarball, npmPrefix, npmEnv(sb, npmCache), ['--prefer-offline']);
      return join(npmPrefix, 'lib', 'node_modules', 'fleet-git');
    },
    /** scan's rows (path, state, problems; tab-separated) for the folder with the repositories. */
    scan: () => fleet(code, ['scan', code]).stdout.trim().split('\n'),
    /** doctor's checks of the user level (the data folder's `kit`, `user-hooks`, `setup`), by id: `level`, `message`, `fix`. */
    doctor(): Record<'kit' | 'user-hooks' | 'setup', Check> {
      const r = runSync('fleet-git', ['doctor', '--json'], { cwd: code, env });
      const checks = (JSON.parse(r.stdout) as { checks: Array<Check & { id: string }> }).checks;
      const of = (id: string) => {
        const check = checks.find((c) => c.id === id);
        assert.ok(check, `doctor has no ${id} check: ${r.stdout}`);
        return { level: check.level, message: check.message, fix: check.fix };
      };
      return { kit: of('kit'), 'user-hooks': of('user-hooks'), setup: of('setup') };
    },
    /** One `copilot -p` in `cwd` against `model`: the events that reached the observer for it, once all hooks are done. */
    async session(model: ModelServer, cwd: string, cache: string): Promise<Received[]> {
      const from = obs.events.length;
      const copilotEnv = {
        ...offlineCopilotEnv(env, model.baseUrl, 'upgrade'),
        XDG_CACHE_HOME: cache,
        // The forwarder goes 200 ms after its last event instead of 10 s, so hooksSettled need not wait that out.
        FLEET_GIT_FORWARDER_IDLE_MS: '200',
      };
      const r = await run(COPILOT, ['-p', 'steps', '--allow-all', '--no-auto-update'], { cwd, env: copilotEnv, limitMs: 180_000 });
      assert.equal(r.code, 0, `copilot -p failed:\n${r.stdout}\n${r.stderr}`);
      await obs.waitFor((e) => obs.events.indexOf(e) >= from && e.event === 'Stop' && e.message === 'complete', 15_000);
      // Copilot has exited: once no hook command or forwarder runs and the spool is empty, nothing more can arrive.
      await hooksSettled(sb.home, join(paths.dataDir, 'spool'));
      const events = obs.events.slice(from);
      assert.deepEqual(obs.badLines, []);
      assert.equal(new Set(events.map((e) => e.session_id)).size, 1, 'one session');
      assert.equal(events[0]?.cwd, cwd);
      return events;
    },
  };
}

const TOOL_CALLS = 3;

const levels = (checks: Record<string, Check>) => Object.fromEntries(Object.entries(checks).map(([id, c]) => [id, c.level]));

describe('upgrades, the real Copilot CLI', { skip: copilotSkip, concurrency: 2 }, () => {
  const cache = copilotCache();
  const builds = sandbox('fleet-git-upgrade-builds-');
  const npmCache = join(builds.dir, 'npm-cache');
  const prev = previousRelease(releases());
  const notes: string[] = [];
  let old = '';
  let current = '';
  let model: ModelServer;
  before(async () => {
    assert.ok(existsSync(COPILOT), `the Copilot CLI is missing at ${COPILOT}: run npm ci (it is a pinned devDependency)`);
    assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build`);
    model = await startModelServer({ toolCalls: TOOL_CALLS });
    old = buildRelease(builds, prev, notes);
    const dest = join(builds.dir, 'packed-current');
    mkdirSync(dest);
    current = pack(ROOT, dest, npmEnv(builds)).tarball;
  });
  after(() => model?.close());

  describe(`from ${prev.version}`, () => {
    const m = machine('fleet-git-upgrade-', npmCache);
    test(
      `${prev.version} (${prev.sha.slice(0, 8)}) used, then this build installed over it: a session's events once and in order, scan names what enable --under repairs, new clones and worktrees get this build`,
      { timeout: 300_000 },
      async (t) => {
        for (const n of notes) t.diagnostic(n);
        const { sb, code, fleet } = m;
        const installed = m.install(old);
        assert.equal((JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string }).version, prev.version);
        const { repo, wt } = m.use();
        assert.deepEqual(m.scan(), [`${repo}\thealthy\t-`, `${wt}\thealthy\t-`], `${prev.version} left both healthy`);

        m.install(current);
        for (const f of ['dist/cli-main.cjs', 'dist/hook-client.cjs'])
          assert.ok(readFileSync(join(installed, f)).equals(readFileSync(join(ROOT, f))), `${f} is this build's`);

        // A session at once, before any fleet-git command ran: the files the previous release left.
        assert.deepEqual(sessionShape(await m.session(model, repo, cache)), sessionShapeOf(TOOL_CALLS));

        // What this build says is wrong, against what its repairs then change.
        const rows = m.scan();
        const { 'user-hooks': userHooks, setup } = m.doctor();
        const files = m.files;
        const before = files();
        // A release before 0.3.0 kept no record of the repositories it enabled: scan with no folder says so, and
        // enable --under, which repairs them, records them. 0.3.0 and later kept one, which this build reads.
        const [major, minor] = prev.version.split('.').map(Number) as [number, number];
        const recorded = fleet(sb.home, ['scan']);
        const paths = (lines: string[]) => lines.map((l) => l.split('\t')[0]);
        if (major > 0 || minor >= 3)
          assert.deepEqual(paths(recorded.stdout.trim().split('\n')), paths(rows), 'the record, as this build reads it');
        else {
          assert.equal(recorded.stdout, '');
          assert.match(recorded.stderr, /this record of repositories was begun after an upgrade from a fleet-git that kept none/);
        }
        fleet(code, ['enable', '--under', code]);
        assert.deepEqual(fleet(sb.home, ['scan']).stdout.trim().split('\n'), [`${repo}\thealthy\t-`, `${wt}\thealthy\t-`]);
        const repaired = files();
        fleet(repo, ['enable', '--user']);
        fleet(repo, ['setup']);
        const after = files();
        const changed = (a: Record<string, string>, b: Record<string, string>) =>
          [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
        const inRepos = changed(before.repos, repaired.repos);
        t.diagnostic(`enable --under changed: ${inRepos.join(', ') || 'nothing'}`);
        // Each file enable --under rewrote is named by scan, in its repository's or worktree's row, and nothing else.
        const problem: Record<string, [string, string]> = {
          'app/.github/hooks/fleet.json': [repo, 'hook-file-outdated'],
          'app/.git/hooks/post-checkout': [repo, 'git-hook-outdated'],
          'app-wt/.github/hooks/fleet.json': [wt, 'hook-file-outdated'],
        };
        for (const f of inRepos) assert.ok(problem[f], `enable --under changed ${f}, which no row can name`);
        const row = (path: string) => {
          const codes = inRepos.filter((f) => problem[f][0] === path).map((f) => problem[f][1]);
          return `${path}\t${codes.length ? 'problems' : 'healthy'}\t${codes.sort().join(',') || '-'}`;
        };
        assert.deepEqual(rows, [row(repo), row(wt)]);
        assert.deepEqual(changed(repaired.repos, after.repos), [], 'enable --user and setup change no repository');
        // doctor calls the user-level hook file and the template folder outdated exactly when their repair rewrites them.
        const userHookChanged = changed(repaired.userHook, after.userHook).length > 0;
        assert.deepEqual(
          [userHooks.level, userHooks.fix],
          userHookChanged ? ['fault', 'fleet-git enable --user'] : ['ok', undefined],
          userHooks.message,
        );
        const templateChanged = changed(repaired.template, after.template).length > 0;
        assert.equal(setup.level, templateChanged ? 'fault' : 'ok', setup.message);
        if (templateChanged) assert.match(setup.message, /outdated: .* \(run fleet-git setup\)/);

        // Repaired: healthy, and a second run changes nothing.
        assert.deepEqual(m.scan(), [`${repo}\thealthy\t-`, `${wt}\thealthy\t-`]);
        assert.deepEqual(levels(m.doctor()), { kit: 'ok', 'user-hooks': 'ok', setup: 'ok' });
        fleet(code, ['enable', '--under', code]);
        assert.deepEqual(files(), after, 'enable --under again changes nothing');

        // A clone through setup's template folder and a new worktree: this build's hook file and git hook.
        const clone = join(code, 'app-clone');
        sb.git(code, 'clone', '-q', repo, clone);
        const wt2 = join(code, 'app-wt2');
        sb.git(repo, 'worktree', 'add', '-q', wt2, '-b', 'wt2');
        const hookFile = readFileSync(m.paths.canonicalHookFile);
        for (const where of [repo, wt, clone, wt2])
          assert.ok(readFileSync(join(where, '.github/hooks/fleet.json')).equals(hookFile), `${where}: the current hook file`);
        const templateHook = readFileSync(join(m.paths.dataDir, 'template', 'hooks', 'post-checkout'));
        assert.ok(readFileSync(join(clone, '.git/hooks/post-checkout')).equals(templateHook), "the clone: the template folder's git hook");
        assert.ok(
          readFileSync(join(m.paths.hookClient)).equals(readFileSync(join(ROOT, 'dist/hook-client.cjs'))),
          "this build's hook client",
        );
        assert.deepEqual(m.scan(), [`${repo}\thealthy\t-`, `${wt}\thealthy\t-`, `${wt2}\thealthy\t-`, `${clone}\thealthy\t-`]);
      },
    );
  });

  describe('from the stable shim on', () => {
    const m = machine('fleet-git-upgrade-kit-', npmCache);
    let changed = '';
    before(() => {
      changed = buildChanged(builds);
    });
    test(
      "this build used, then a build whose data-folder scripts and hook client changed installed over it: every repository's files byte for byte as they were, all healthy, a session's events once and in order through the new scripts",
      { timeout: 300_000 },
      async () => {
        const { sb, code, fleet, paths } = m;
        const installed = m.install(current);
        const { repo, wt } = m.use();
        const before = m.files();
        const kit = () => ({ client: readFileSync(paths.hookClient), hook: readFileSync(join(paths.dataDir, HOOK_SCRIPT), 'utf8') });
        const was = kit();

        m.install(changed);
        const client = readFileSync(join(installed, 'dist', 'hook-client.cjs'));
        assert.ok(!client.equals(was.client), 'the changed build has another hook client');
        // A reading command reads: scan finds both healthy, doctor notes the kit is another build's, and both leave it.
        assert.deepEqual(m.scan(), [`${repo}\thealthy\t-`, `${wt}\thealthy\t-`]);
        assert.deepEqual(levels(m.doctor()), { kit: 'note', 'user-hooks': 'ok', setup: 'ok' });
        assert.ok(kit().client.equals(was.client), 'scan and doctor leave the kit as it was');
        // Its first command that changes things puts its kit in the data folder: the scripts and the client, and no byte of a repository.
        fleet(code, ['enable', '--under', code]);
        const now = kit();
        assert.ok(now.client.equals(client), "the data folder's hook client is the changed build's");
        assert.ok(now.hook.endsWith(`${CHANGED_LINE}\n`), `${HOOK_SCRIPT} is the changed build's`);
        assert.notEqual(now.hook, was.hook);
        assert.deepEqual(levels(m.doctor()), { kit: 'ok', 'user-hooks': 'ok', setup: 'ok' });
        fleet(repo, ['enable', '--user']);
        fleet(repo, ['setup']);

        // The shims in the repository hand over to the changed scripts and client.
        assert.deepEqual(sessionShape(await m.session(model, repo, cache)), sessionShapeOf(TOOL_CALLS));
        assert.deepEqual(m.files(), before, "every repository's files, the user-level hook file and the template folder as they were");
        const wt2 = join(code, 'app-wt2');
        sb.git(repo, 'worktree', 'add', '-q', wt2, '-b', 'wt2');
        assert.ok(
          readFileSync(join(wt2, '.github/hooks/fleet.json')).equals(readFileSync(join(repo, '.github/hooks/fleet.json'))),
          'a new worktree',
        );
        assert.deepEqual(m.scan(), [`${repo}\thealthy\t-`, `${wt}\thealthy\t-`, `${wt2}\thealthy\t-`]);
      },
    );
  });
});
