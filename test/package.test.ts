// The package as a user gets it: `npm pack`, then `npm install -g` of the
// tarball into a temporary prefix (as husky's own tests install theirs), then
// the user story with the installed command, in a temporary HOME.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gitChurn, ROOT, sandbox, snapshot } from './helpers.js';
import { installGlobal, npmEnv, pack } from './npm.js';
import { runSync } from './spawn.js';

const HOOK = '.github/hooks/fleet.json';
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

test('the packed tarball holds what runs, installs without a script or a warning, and runs the user story from its prefix', () => {
  const s = sandbox('fleet-git-package-');
  const prefix = join(s.dir, 'prefix');
  const npm = npmEnv(s);
  // The build of this test run is what gets packed.
  const { tarball, info } = pack(ROOT, s.dir, npm);
  const files = info.files.map((f) => f.path).sort();
  for (const f of [
    'LICENSE',
    'README.md',
    'package.json',
    'dist/cli.cjs',
    'dist/cli-main.cjs',
    'dist/bulk-worker.js',
    'dist/hook-client.cjs',
    'dist/git-hook.cjs',
    'dist/index.js',
    'dist/types/index.d.ts',
    'templates/post-checkout',
    'templates/post-checkout.sh',
    'templates/hook.sh',
    'templates/hook-command.sh',
    'man/fleet-git.1',
  ]) {
    assert.ok(files.includes(f), `${f} is in the package`);
  }
  // The bundles and the declarations only: no tsc output, no code cache.
  const dist = files.filter((f) => f.startsWith('dist/'));
  assert.deepEqual(
    dist.filter((f) => !/^dist\/[^/]+\.(cjs|js)$/.test(f) && !/^dist\/types\/.+\.d\.ts$/.test(f)),
    [],
  );
  assert.deepEqual(
    dist.filter((f) => /^dist\/[^/]+\.js$/.test(f)),
    ['dist/bulk-worker.js', 'dist/index.js'],
  );
  assert.ok(!files.some((f) => f.endsWith('.cache')));
  assert.equal(info.filename, `${pkg.name}-${pkg.version}.tgz`);

  // No script of the package runs as it installs: it has none (npm runs these for a tarball it installs).
  const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: object }).scripts ?? {});
  assert.deepEqual(
    scripts.filter((n) => /^(pre|post)?install$/.test(n)),
    [],
  );
  // --foreground-scripts: a lifecycle script of the package or a dependency would print its command line here.
  const install = installGlobal(tarball, prefix, npm, ['--foreground-scripts']);
  const said = `${install.stdout}\n${install.stderr}`.split('\n');
  assert.deepEqual(
    said.filter((l) => /^> /.test(l)),
    [],
  );
  // npm's warnings about what it installs (an engine, a deprecation, a peer); one about this machine's npm config is not the package's.
  assert.deepEqual(
    said.filter((l) => /^npm warn/i.test(l) && !/\bconfig\b/i.test(l)),
    [],
  );
  assert.ok(existsSync(join(prefix, 'lib/node_modules/fleet-git/package.json')), 'installed into the prefix');
  // package.json's "man": npm links the page where man looks for the prefix's commands.
  assert.ok(
    readFileSync(join(prefix, 'share/man/man1/fleet-git.1')).equals(readFileSync(join(ROOT, 'man/fleet-git.1'))),
    'the man page is installed in PREFIX/share/man/man1',
  );

  // The user story, with only the prefix's fleet-git on PATH.
  const env = { ...s.env, PATH: `${join(prefix, 'bin')}:${s.env.PATH}` };
  const fleet = (cwd: string, ...args: string[]) => spawnSync('fleet-git', args, { cwd, env, encoding: 'utf8' });
  const help = fleet(s.dir, '--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /fleet-git enable/);

  const repo = s.repo('mine');
  const before = snapshot(repo, gitChurn);
  const enabled = fleet(repo, 'enable');
  assert.equal(enabled.status, 0, enabled.stderr);
  assert.ok(existsSync(join(repo, HOOK)));
  // The hook client the hook file runs is the one of the installed package.
  assert.ok(
    readFileSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'hook-client.cjs')).equals(
      readFileSync(join(prefix, 'lib/node_modules/fleet-git/dist/hook-client.cjs')),
    ),
  );
  s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'mine-wt'), '-b', 'wt');
  assert.ok(existsSync(join(s.dir, 'mine-wt', HOOK)), 'git worktree add provisions the new worktree');
  const status = fleet(repo, 'status');
  assert.equal(status.status, 0, status.stderr);
  assert.match(status.stdout, /: enabled/);

  const npx = spawnSync('npx', ['--offline', 'fleet-git', 'status', '--json'], {
    cwd: repo,
    env: { ...npm, PATH: env.PATH, npm_config_prefix: prefix },
    encoding: 'utf8',
  });
  assert.equal(npx.status, 0, npx.stderr);
  assert.equal((JSON.parse(npx.stdout) as { enabled: boolean }).enabled, true);

  s.git(repo, 'worktree', 'remove', join(s.dir, 'mine-wt'));
  s.git(repo, 'branch', '-q', '-D', 'wt');
  const disabled = fleet(repo, 'disable');
  assert.equal(disabled.status, 0, disabled.stderr);
  assert.deepEqual(snapshot(repo, gitChurn), before, 'disable restores the repository byte for byte');
});

test('npm pack in a fresh clone, before npm ci: one line saying to run npm ci first, no stack trace', () => {
  const s = sandbox('fleet-git-fresh-pack-');
  const clone = join(s.dir, 'clone'); // what a fresh clone has that npm pack runs: package.json and scripts/, no node_modules
  mkdirSync(join(clone, 'scripts'), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(clone, 'package.json'));
  copyFileSync(join(ROOT, 'scripts/build.mjs'), join(clone, 'scripts/build.mjs'));
  const line = "fleet-git build: typescript is not installed here: run npm ci first (the build's tools are development dependencies)\n";
  const build = runSync(process.execPath, ['scripts/build.mjs'], { cwd: clone, env: s.env });
  assert.equal(build.status, 1);
  assert.equal(build.stderr, line);
  const packed = runSync('npm', ['pack'], { cwd: clone, env: npmEnv(s) });
  assert.notEqual(packed.status, 0);
  assert.ok(packed.stderr.includes(line), packed.stderr);
  assert.doesNotMatch(packed.stderr, /Cannot find module|\n\s+at /);
});
