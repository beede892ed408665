// Errors a user can cause with file permissions: one line with what to do, never
// a raw "EACCES: permission denied, mkdir '...'". Tests run as root here, which
// no permission stops, so the commands run as nobody (setpriv); run as another
// user, they run as that user, with the same folders closed by chmod.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { asNobody, cliForNobody, nobodyUid, tempBase } from './helpers.js';

const root = process.getuid?.() === 0;
const nobody = root ? nobodyUid() : userInfo().uid;

describe('permission errors', () => {
  const built = cliForNobody(); // this clone's build, where nobody can reach it
  const dir = mkdtempSync(join(tempBase('fleet-git-perm-', true), 'fleet-git-perm-'));
  after(() => {
    spawnSync('chmod', ['-R', 'u+rwx', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  chmodSync(dir, 0o755);
  const home = join(dir, 'home');
  mkdirSync(home, { mode: 0o755 });
  if (root) chownSync(home, nobody, -1);
  const env = {
    PATH: process.env.PATH!,
    HOME: home,
    GIT_CONFIG_GLOBAL: join(home, 'gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    COPILOT_HOME: join(home, '.copilot'),
  };
  const git = (cwd: string, ...args: string[]) =>
    assert.equal(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env }).status, 0);
  const repo = (name: string) => {
    const p = join(dir, name);
    mkdirSync(p, { recursive: true });
    git(p, 'init', '-q', '-b', 'main');
    git(p, 'commit', '-q', '--allow-empty', '-m', 'x');
    spawnSync('chmod', ['-R', 'a+rX', p]);
    return p;
  };
  /** fleet-git as nobody (as root) or as this user. */
  const cli = (cwd: string, home_: string, ...args: string[]) => {
    const e = {
      ...env,
      HOME: home_,
      XDG_CONFIG_HOME: join(home_, '.config'),
      XDG_DATA_HOME: join(home_, '.local/share'),
      COPILOT_HOME: join(home_, '.copilot'),
    };
    const argv = asNobody([process.execPath, built, ...args]);
    return spawnSync(argv[0]!, argv.slice(1), { cwd, env: e, encoding: 'utf8' });
  };
  /** The repository's git dir given to the user running fleet-git (its worktree stays closed to them). */
  const giveGitDir = (p: string) => {
    if (root) spawnSync('chown', ['-R', String(nobody), join(p, '.git')]);
  };
  const oneLine = (r: ReturnType<typeof cli>) => {
    assert.equal(r.stderr.split('\n').length, 2, r.stderr);
    assert.doesNotMatch(r.stderr, /EACCES: permission denied,|\n\s+at |\(E[A-Z]+\)/, 'no stack, no error code');
  };

  test('a folder you cannot write: enable says which folder must be writable (exit 1); nothing is left half-done', () => {
    const p = repo('closed-worktree');
    giveGitDir(p);
    chmodSync(p, 0o555);
    const r = cli(dir, home, 'enable', p);
    assert.equal(r.status, 1, r.stderr);
    oneLine(r);
    assert.equal(
      r.stderr,
      `fleet-git: cannot create the folder ${p}/.github: permission denied; ${p} must be writable by you (see ls -ld ${p}; fix its owner or mode, or run as its owner)\n`,
    );
    const s = cli(dir, home, 'status', p, '--json');
    assert.equal(s.status, 0, s.stderr);
    assert.equal(JSON.parse(s.stdout).enabled, false);
    const bulk = cli(dir, home, 'enable', '--under', p);
    assert.equal(bulk.status, 1);
    assert.equal(
      bulk.stderr,
      `${p}: failed: cannot create the folder ${p}/.github: permission denied; ${p} must be writable by you (see ls -ld ${p}; fix its owner or mode, or run as its owner)\n`,
    );
  });

  test('nothing to do needs no write access: disable in a repository never enabled, which you cannot write, exits 0', () => {
    const p = repo('never-enabled'); // root's (or closed by chmod): nobody can read it, not write it
    if (!root) spawnSync('chmod', ['-R', 'a-w', p]);
    for (const args of [
      ['disable', p],
      ['disable', '--dry-run', p],
    ]) {
      const r = cli(dir, home, ...args);
      assert.equal(r.stderr, '', args.join(' '));
      assert.equal(r.status, 0, args.join(' '));
      assert.match(r.stdout, /already disabled, nothing (would )?changed?/, args.join(' '));
    }
    if (!root) spawnSync('chmod', ['-R', 'u+w', p]);
  });

  test('a data folder you cannot write (a read-only HOME): one line naming it', () => {
    const p = repo('fine');
    giveGitDir(p);
    if (root) spawnSync('chown', ['-R', String(nobody), p]);
    const ro = join(dir, 'ro-home');
    mkdirSync(join(ro, '.local', 'share'), { recursive: true });
    spawnSync('chmod', ['-R', '555', ro]);
    const r = cli(dir, ro, 'enable', p);
    assert.equal(r.status, 1);
    oneLine(r);
    assert.match(
      r.stderr,
      new RegExp(
        `^fleet-git: cannot create the folder ${ro}/\\.local/share/fleet-git: permission denied; ${ro}/\\.local/share must be writable by you`,
      ),
    );
  });

  test('a data folder you cannot write, before the first enable: one line naming the folder to make writable, exit 1', () => {
    const p = repo('first-kit');
    giveGitDir(p);
    const h = join(dir, 'closed-data-home');
    const data = join(h, '.local/share/fleet-git');
    mkdirSync(data, { recursive: true });
    spawnSync('chmod', ['-R', '555', h]);
    const r = cli(dir, h, 'enable', p);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    oneLine(r);
    assert.equal(
      r.stderr,
      `fleet-git: cannot create the folder ${data}/kit: permission denied; ${data} must be writable by you (see ls -ld ${data}; fix its owner or mode, or run as its owner)\n`,
    );
  });

  test('a .git you cannot read: status says so in one line, exit 1', () => {
    const p = repo('closed-git');
    chmodSync(join(p, '.git'), root ? 0o700 : 0o000);
    for (const cmd of ['status', 'enable']) {
      const r = cli(dir, home, cmd, p);
      assert.equal(r.status, 1, `${cmd}: ${r.stderr}`);
      oneLine(r);
      assert.match(
        r.stderr,
        new RegExp(
          `^fleet-git: cannot (open|reach) ${p}/\\.git\\S*: permission denied; check that you can read it and enter every folder above it`,
        ),
      );
    }
  });

  test('a parent folder you cannot enter: said so, not "no such folder" (exit 2)', () => {
    const p = repo('closed-parent/inner');
    const parent = join(dir, 'closed-parent');
    chmodSync(parent, root ? 0o700 : 0o000);
    // The bulk commands' roots too (scan said only "permission denied (EACCES)").
    for (const args of [
      ['status', p],
      ['enable', p],
      ['scan', p],
      ['remove', p, '--yes'],
      ['enable', '--under', p],
    ]) {
      const r = cli(dir, home, ...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(
        r.stderr,
        `fleet-git: ${p}: cannot enter ${parent}: permission denied; fleet-git needs to enter every folder above it (ls -ld ${parent})\n`,
      );
    }
  });

  test('a config file or models.json you cannot read: one line naming it and what to check (exit 2)', () => {
    const h = join(dir, 'closed-config-home');
    // Readable folders; the files root's own (mode 600) when run as root, else mode 000.
    const files = ['.config/fleet-git/config.json5', '.config/claude-code-fleet/models.json'];
    for (const file of files) {
      mkdirSync(join(h, file, '..'), { recursive: true });
      writeFileSync(join(h, file), '{}\n');
    }
    spawnSync('chmod', ['-R', 'a+rX', h]);
    for (const file of files) chmodSync(join(h, file), root ? 0o600 : 0o000);
    for (const [args, file] of [
      [['config'], join(h, '.config/fleet-git/config.json5')],
      [['model', 'list'], join(h, '.config/claude-code-fleet/models.json')],
    ] as const) {
      const r = cli(dir, h, ...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      oneLine(r);
      assert.match(
        r.stderr,
        new RegExp(
          `^fleet-git: ${file}:? cannot be read: permission denied; check that you can read it and enter every folder above it \\(ls -ld `,
        ),
      );
    }
  });
});
