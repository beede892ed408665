// SIGKILL at any point of enable, disable and enable --under, then a complete
// disable or remove: the repository is byte for byte as it was, with no
// temporary file, folder or record of fleet-git's left. The kill is real and
// deterministic: strace (Debian package strace, as CI installs) delivers
// SIGKILL to the process as it enters its Nth call of one of the syscalls that
// change files, for every N until the run gets through; so every point between
// two such calls is hit once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { CLI, describeNeeding, gitChurn, needs, sandbox, snapshot, type Sandbox } from './helpers.js';

const SYSCALLS = ['mkdir', 'write', 'rename', 'unlink', 'rmdir', 'ftruncate', 'fchmod', 'chmod'];

/**
 * Runs the CLI under strace, killed as it enters the nth `syscall`; whether it was killed (false: it got through first).
 * The event loop waits on it (not spawnSync), so the tests, each in a sandbox of its own, run at once.
 */
async function killedRun(s: Sandbox, cwd: string, syscall: string, n: number, args: string[]): Promise<boolean> {
  const argv = ['-f', '-qq', '-o', '/dev/null', '-e', `trace=${syscall}`, '-e', `inject=${syscall}:signal=KILL:when=${n}`];
  const child = spawn('strace', [...argv, process.execPath, CLI, ...args], { cwd, env: s.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const r = await new Promise<{ status: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ status: null, signal: null, error }));
    child.on('close', (status, signal) => resolve({ status, signal }));
  });
  assert.ok(r.error === undefined, `strace runs: ${r.error}`);
  if (r.status === 0) return false;
  assert.ok(r.signal === 'SIGKILL' || r.status === 137, `${syscall} #${n}: killed, not failed (${r.status} ${stderr})`);
  return true;
}

/** A repository made without git's template (no info/, no hooks/: enable makes both), and one with it; one commit each. */
function repos(s: Sandbox, root: string): string[] {
  const bare = join(root, 'bare-template');
  mkdirSync(root, { recursive: true });
  s.git(root, 'init', '-q', '--template=', '-b', 'main', bare);
  writeFileSync(join(bare, 'a.txt'), 'a\n');
  s.git(bare, 'add', '-A');
  s.git(bare, 'commit', '-q', '-m', 'a');
  const plain = join(root, 'plain');
  mkdirSync(plain);
  s.git(plain, 'init', '-q', '-b', 'main');
  writeFileSync(join(plain, 'b.txt'), 'b\n');
  s.git(plain, 'add', '-A');
  s.git(plain, 'commit', '-q', '-m', 'b');
  return [bare, plain];
}

/** The complete run that follows (or prepares) a killed one, in-process. */
async function ok(s: Sandbox, cwd: string, ...args: string[]): Promise<void> {
  const r = await s.fleet(cwd, ...args);
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
}

/** No fleet-git temporary file anywhere under `dir`. */
function noTemps(dir: string): void {
  if (!existsSync(dir)) return;
  const temps = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((p) => /\.fleet-git-\d+.*\.tmp$/.test(p));
  assert.deepEqual(temps, [], `no temporary file left in ${dir}`);
}

/** For every syscall and every N: prepare(), the killed run, then finish(); the repositories must equal `original`. */
async function sweep(
  s: Sandbox,
  root: string,
  paths: string[],
  args: string[],
  prepare: () => Promise<void>,
  finish: () => Promise<void>,
): Promise<number> {
  const original = paths.map((p) => snapshot(p, gitChurn));
  let kills = 0;
  for (const syscall of SYSCALLS) {
    for (let n = 1; n < 200; n++) {
      await prepare();
      const killed = await killedRun(s, root, syscall, n, args);
      await finish();
      paths.forEach((p, i) =>
        assert.deepEqual(snapshot(p, gitChurn), original[i], `${args.join(' ')}, killed at ${syscall} #${n}: ${p} is as it was`),
      );
      noTemps(s.env.XDG_DATA_HOME);
      if (!killed) break;
      kills++;
    }
  }
  return kills;
}

describeNeeding(
  needs('strace'),
  'SIGKILL at every point',
  () => {
    it('of enable, then disable: nothing of fleet-git is left', async () => {
      const s = sandbox();
      const [repo] = repos(s, join(s.dir, 'e'));
      const kills = await sweep(
        s,
        repo,
        [repo],
        ['enable'],
        async () => {},
        () => ok(s, repo, 'disable'),
      );
      assert.ok(kills >= 10, `killed ${kills} times`);
    });

    it('of disable, then disable again: nothing of fleet-git is left', async () => {
      const s = sandbox();
      const [repo] = repos(s, join(s.dir, 'd'));
      const kills = await sweep(
        s,
        repo,
        [repo],
        ['disable'],
        () => ok(s, repo, 'enable'),
        () => ok(s, repo, 'disable'),
      );
      assert.ok(kills >= 5, `killed ${kills} times`);
    });

    it('of enable --under, then remove: nothing of fleet-git is left in any repository', async () => {
      const s = sandbox();
      const root = join(s.dir, 'u');
      const paths = repos(s, root);
      const kills = await sweep(
        s,
        root,
        paths,
        ['enable', '--under', root],
        async () => {},
        () => ok(s, root, 'remove', root, '--yes'),
      );
      assert.ok(kills >= 15, `killed ${kills} times`);
    });
  },
  { concurrency: true },
);
