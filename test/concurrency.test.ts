// Several fleet-git processes at once on one repository: they serialize on a
// lock in its common git dir (fleet-git.lock), each reads the repository again
// once it holds the lock, and the end state is the one a single run leaves.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { holderAlive, holderText } from '../src/fs/lock.js';
import { processStart } from '../src/fs/process.js';
import { CLI, countingWorkers, gitChurn, HELPERS, repeats, sandbox, snapshot, type Sandbox } from './helpers.js';
import { runCli } from './spawn.js';

const HOOK = '.github/hooks/fleet.json';
const LOCK = 'fleet-git.lock';

interface Done {
  status: number | null;
  stdout: string;
  stderr: string;
  pid: number;
}

/** Starts fleet-git processes at the same moment and waits for all of them. */
function together(s: Sandbox, cwd: string, runs: string[][], env: Record<string, string> = {}): Promise<Done[]> {
  return Promise.all(
    runs.map(async (args) => {
      const r = await runCli(args, { cwd, env: { ...s.env, ...env } });
      return { status: r.code, stdout: r.stdout, stderr: r.stderr, pid: r.pid };
    }),
  );
}

/** The paths of the repositories in fleet-git's record (core/repo/record.ts), sorted; no temporary file may be left there. */
function recorded(s: Sandbox): string[] {
  const dir = join(s.env.XDG_DATA_HOME, 'fleet-git', 'repos');
  const names = existsSync(dir) ? readdirSync(dir) : [];
  assert.deepEqual(
    names.filter((n) => n.endsWith('.tmp')),
    [],
    'no temporary file left in the record',
  );
  return names
    .filter((n) => /^[0-9a-f]{32}$/.test(n))
    .map((n) => (JSON.parse(readFileSync(join(dir, n), 'utf8')) as { path: string }).path)
    .sort();
}

function withForeignHook(s: Sandbox, name: string): string {
  const repo = s.repo(name);
  const hook = join(repo, '.git/hooks/post-checkout');
  writeFileSync(hook, `#!/bin/sh\necho foreign >> "${s.dir}/${name}.log"\n`);
  chmodSync(hook, 0o755);
  return repo;
}

const status = async (s: Sandbox, repo: string) => JSON.parse((await s.fleet(repo, 'status', '--json')).stdout);
const repoSnapshot = (repo: string) => snapshot(repo, (rel) => gitChurn(rel) || rel === '.git/objects' || rel.startsWith('.git/objects/'));

describe('concurrent runs on one repository', () => {
  it('four enables at once over a foreign post-checkout: all exit 0, and the repository is as one enable leaves it (repeated)', async () => {
    const s = sandbox();
    const ref = withForeignHook(s, 'reference');
    assert.equal((await s.fleet(ref, 'enable')).status, 0);
    const want = repoSnapshot(ref);
    for (let round = 0; round < repeats(12); round++) {
      const repo = withForeignHook(s, `four-${round}`);
      const runs = await together(s, repo, [['enable'], ['enable'], ['enable'], ['enable']]);
      for (const r of runs) assert.equal(r.status, 0, `round ${round}: ${r.stderr}`);
      assert.equal(
        runs.filter((r) => /installed the post-checkout hook/.test(r.stdout)).length,
        1,
        `round ${round}: one run installs, the others find it done`,
      );
      assert.deepEqual(
        Object.keys(repoSnapshot(repo)).sort(),
        Object.keys(want).sort(),
        `round ${round}: the same files as after one enable`,
      );
      assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), readFileSync(join(ref, '.git/info/exclude'), 'utf8'));
      assert.equal(
        readFileSync(join(repo, '.git/hooks/post-checkout.fleet-git-prev'), 'utf8'),
        readFileSync(join(ref, '.git/hooks/post-checkout.fleet-git-prev'), 'utf8').replaceAll('reference', `four-${round}`),
      );
      assert.equal(s.git(repo, 'status', '--porcelain', '--untracked-files=all'), '', `round ${round}: nothing shows in git status`);
      assert.deepEqual((await status(s, repo)).problems, []);
      assert.ok(!existsSync(join(repo, '.git', LOCK)), 'no lock left behind');
    }
  });

  it('enable racing disable: the repository ends fully enabled or fully disabled, and status agrees (repeated)', async () => {
    const s = sandbox();
    for (let round = 0; round < repeats(12); round++) {
      const repo = withForeignHook(s, `race-${round}`);
      const foreign = readFileSync(join(repo, '.git/hooks/post-checkout'));
      if (round % 2) assert.equal((await s.fleet(repo, 'enable')).status, 0);
      const runs = await together(s, repo, [['enable'], ['disable'], ['enable'], ['disable']]);
      for (const r of runs) assert.equal(r.status, 0, `round ${round}: ${r.stderr}`);
      const st = await status(s, repo);
      const hookFile = existsSync(join(repo, HOOK));
      const exclude = readFileSync(join(repo, '.git/info/exclude'), 'utf8').includes('fleet-git');
      if (hookFile || exclude || st.enabled) {
        assert.ok(
          hookFile && exclude && st.enabled,
          `round ${round}: half enabled (${JSON.stringify({ hookFile, exclude, enabled: st.enabled })})`,
        );
        assert.deepEqual(st.problems, [], `round ${round}`);
      } else {
        assert.deepEqual(readFileSync(join(repo, '.git/hooks/post-checkout')), foreign, `round ${round}: the foreign hook is back`);
        assert.ok(!existsSync(join(repo, '.git/hooks/post-checkout.fleet-git-prev')));
        assert.ok(!existsSync(join(repo, '.github')));
        assert.equal(st.enabled, false);
      }
      assert.equal(s.git(repo, 'status', '--porcelain', '--untracked-files=all'), '', `round ${round}`);
      assert.ok(!existsSync(join(repo, '.git', LOCK)), 'no lock left behind');
      assert.equal(recorded(s).includes(repo), st.enabled, `round ${round}: recorded exactly when it ends enabled`);
    }
  });
});

/** A git command run as a process, with the sandbox's environment; resolves once it has ended. */
function gitAsync(s: Sandbox, cwd: string, ...args: string[]): Promise<{ status: number | null; stderr: string }> {
  const p = spawn('git', args, { cwd, env: s.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => p.on('close', (status) => resolve({ status, stderr })));
}

/** Resolves once `ready()` is true, checked every 10 ms; fails after 30 s, naming `what`. */
async function until(ready: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`waited 30 s for ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

/** A PID that no process has now: one of a process that has just ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('git hooks racing disable', () => {
  // Git runs each new worktree's hook before disable takes fleet-git's hook away; the hook's node side
  // is held at its start (the data folder's `node` names a script that waits for `go`), then takes the
  // lock after disable (even rounds), or is let go before it (odd rounds: one has provisioned its
  // worktree when disable starts, the others race it). Either way the repository ends disabled: a hook
  // that gets the lock after disable finds it not enabled and leaves it so, and disable removes what a
  // hook before it added.
  it('worktrees added while disable runs: disable exits 0 and the repository ends not enabled, no hook file in any worktree (repeated)', async () => {
    const s = sandbox();
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
    const added = 4;
    for (let round = 0; round < repeats(8); round++) {
      const repo = s.repo(`hooks-${round}`);
      assert.equal((await s.fleet(repo, 'enable')).status, 0);
      const gate = join(s.dir, `gate-${round}`);
      mkdirSync(gate);
      const node = join(gate, 'node');
      writeFileSync(
        node,
        `#!/bin/sh\n: > "${gate}/started.$$"\nwhile [ ! -e "${gate}/go" ]; do sleep 0.01; done\nexec "${process.execPath}" "$@"\n`,
      );
      chmodSync(node, 0o755);
      writeFileSync(join(data, 'node'), `${node}\n`);
      const wts = Array.from({ length: added }, (_, i) => join(s.dir, `hooks-${round}-wt${i}`));
      const started = () => readdirSync(gate).filter((n) => n.startsWith('started.')).length;
      // One after another: git 2.39's worktree add fails reading a worktree that another is still making.
      const adds: ReturnType<typeof gitAsync>[] = [];
      for (const [i, wt] of wts.entries()) {
        const add = gitAsync(s, repo, 'worktree', 'add', '-q', wt, '-b', `w${i}`);
        let ended: string | null = null;
        void add.then((a) => (ended = `exit ${a.status}: ${a.stderr}`));
        await until(() => started() > i || ended !== null, `round ${round}: the hook of ${wt} handing over to node`);
        assert.equal(ended, null, `round ${round}: git worktree add ${wt}`);
        adds.push(add);
      }
      if (round % 2) {
        writeFileSync(join(gate, 'go'), '');
        await until(() => wts.some((wt) => existsSync(join(wt, HOOK))), `round ${round}: a hook provisioning its worktree`);
      }
      const r = await s.fleet(repo, 'disable');
      writeFileSync(join(gate, 'go'), '');
      for (const a of await Promise.all(adds)) {
        assert.equal(a.status, 0, `round ${round}: ${a.stderr}`);
        assert.equal(a.stderr, '', `round ${round}: the hooks say nothing`);
      }
      assert.equal(r.status, 0, `round ${round}: ${r.stderr}`);
      assert.equal((await status(s, repo)).enabled, false, `round ${round}: not enabled`);
      assert.ok(!readFileSync(join(repo, '.git/info/exclude'), 'utf8').includes('fleet-git'), `round ${round}: no exclude block`);
      for (const wt of [repo, ...wts]) {
        assert.ok(!existsSync(join(wt, '.github')), `round ${round}: nothing of fleet-git's in ${wt}`);
        assert.equal(s.git(wt, 'status', '--porcelain', '--untracked-files=all'), '', `round ${round}: ${wt}`);
      }
      assert.ok(!existsSync(join(repo, '.git/hooks/post-checkout')), `round ${round}: no post-checkout hook`);
      assert.ok(!readFileSync(join(repo, '.git/config'), 'utf8').includes('fleet-git'), `round ${round}: no hook entry in the config`);
      assert.ok(!recorded(s).includes(repo), `round ${round}: not recorded`);
      assert.ok(!existsSync(join(repo, '.git', LOCK)), 'no lock left behind');
    }
  });
});

describe('the repository lock', () => {
  it('a stale lock (its process was killed) is taken over, and removed after', async () => {
    const s = sandbox();
    const repo = s.repo('stale');
    writeFileSync(join(repo, '.git', LOCK), `${deadPid()}\n`);
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual((await status(s, repo)).problems, []);
    assert.ok(!existsSync(join(repo, '.git', LOCK)));
    writeFileSync(join(repo, '.git', LOCK), `${deadPid()}\n`);
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.ok(!existsSync(join(repo, HOOK)));
    assert.ok(!existsSync(join(repo, '.git', LOCK)));
  });

  it('a lock held by a live process: waited for, then one line and exit 1, nothing changed', () => {
    const s = sandbox();
    const repo = s.repo('held');
    const lock = join(repo, '.git', LOCK);
    writeFileSync(lock, `${process.pid}\n`); // this test's process: alive
    const before = repoSnapshot(repo);
    const t = Date.now();
    const r = spawnSync(process.execPath, [CLI, 'enable'], { cwd: repo, env: { ...s.env, FLEET_GIT_LOCK_WAIT: '0.3' }, encoding: 'utf8' });
    assert.ok(Date.now() - t >= 300, 'it waited');
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`^fleet-git: ${lock.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is held by process ${process.pid}, another fleet-git`),
    );
    assert.deepEqual(repoSnapshot(repo), before, 'nothing changed, the lock kept');
  });

  it('a lock whose PID another process got since (PID reuse) is stale: judged by the start time and boot id it holds, and taken over', () => {
    const s = sandbox();
    const repo = s.repo('reused');
    const lock = join(repo, '.git', LOCK);
    const start = processStart(process.pid);
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    assert.ok(start !== null && /^\d+$/.test(start), 'this platform has /proc: the start time is read');
    // The lock a fleet-git writes names itself so.
    assert.equal(holderText(), `${process.pid}\nstart ${start} ${boot}\n`);
    assert.equal(holderAlive(holderText()), true);
    // This test's process is alive, but it did not start at tick 1 (that was at boot), nor in another boot.
    for (const text of [`${process.pid}\nstart 1 ${boot}\n`, `${process.pid}\nstart ${start} 00000000-0000-0000-0000-000000000000\n`]) {
      assert.equal(holderAlive(text), false, text);
      writeFileSync(lock, text);
      const t = Date.now();
      const r = spawnSync(process.execPath, [CLI, 'enable'], { cwd: repo, env: { ...s.env, FLEET_GIT_LOCK_WAIT: '5' }, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(Date.now() - t < 4000, 'taken over at once, not waited for');
      assert.ok(!existsSync(lock), 'and removed after');
      assert.equal(s.cli(repo, 'disable').status, 0);
    }
    // The same PID with its true start time, and a PID alone (the shell hook's, macOS's): held.
    for (const text of [`${process.pid}\nstart ${start} ${boot}\n`, `${process.pid}\n`]) {
      writeFileSync(lock, text);
      const r = spawnSync(process.execPath, [CLI, 'enable'], {
        cwd: repo,
        env: { ...s.env, FLEET_GIT_LOCK_WAIT: '0.2' },
        encoding: 'utf8',
      });
      assert.equal(r.status, 1, text);
      assert.match(r.stderr, /is held by process/);
      assert.equal(readFileSync(lock, 'utf8'), text);
    }
  });

  it('a symbolic link where the lock goes: nothing is made through it, one line, exit 1', async () => {
    const s = sandbox();
    const repo = s.repo('linked');
    const target = join(s.dir, 'outside-lock');
    symlinkSync(target, join(repo, '.git', LOCK));
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /fleet-git\.lock is not a lock file fleet-git made \(a symbolic link\)/);
    assert.ok(!existsSync(target));
    assert.ok(!existsSync(join(repo, HOOK)));
  });

  it('enable --under racing remove over 70 repositories (helper threads): each ends whole, no lock left anywhere', async () => {
    const s = sandbox();
    const root = join(s.dir, 'ws');
    const repos: string[] = [];
    for (let i = 0; i < 70; i++) repos.push(withForeignHook(s, `ws/r${String(i).padStart(2, '0')}`));
    const first = await s.fleet(root, 'enable', '--under', root);
    assert.equal(first.status, 0, `${first.stdout}${first.stderr}`);
    const log = join(s.dir, 'workers.log');
    const runs = await together(
      s,
      root,
      [
        ['remove', root, '--yes'],
        ['enable', '--under', root],
        ['remove', root, '--yes'],
      ],
      countingWorkers(log),
    );
    for (const r of runs) assert.equal(r.status, 0, r.stderr);
    // Each fleet-git process's own line (any other node process started with this environment writes its own).
    const made = new Map(
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ').map(Number) as [number, number]),
    );
    assert.deepEqual(
      runs.map((r) => made.get(r.pid)),
      [HELPERS, HELPERS, HELPERS],
      'each run did its work in the helper threads this machine has',
    );
    for (const repo of repos) {
      const hookFile = existsSync(join(repo, HOOK));
      const exclude = readFileSync(join(repo, '.git/info/exclude'), 'utf8').includes('fleet-git');
      const ours = readFileSync(join(repo, '.git/hooks/post-checkout'), 'utf8').includes('fleet-git post-checkout hook');
      assert.ok(
        (hookFile && exclude && ours) || (!hookFile && !exclude && !ours),
        `${repo}: ${JSON.stringify({ hookFile, exclude, ours })}`,
      );
      assert.equal(s.git(repo, 'status', '--porcelain', '--untracked-files=all'), '', repo);
      assert.ok(!existsSync(join(repo, '.git', LOCK)), `${repo}: no lock left`);
    }
    assert.deepEqual(
      recorded(s),
      repos.filter((r) => existsSync(join(r, HOOK))),
      'the record holds exactly the repositories that end enabled',
    );
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');
    assert.deepEqual(
      readdirSync(data).filter((n) => n.startsWith('bulk-lock-')),
      [],
      'no link source left in the data folder',
    );
  });
});

describe('a lock left by a killed fleet-git', () => {
  it('is all that is left of fleet-git: remove finds it and takes it out', async () => {
    const s = sandbox();
    const root = join(s.dir, 'left');
    const repo = s.repo('left/r');
    writeFileSync(join(repo, '.git', LOCK), `${deadPid()}\n`);
    const r = await s.fleet(root, 'remove', root, '--yes');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /1 of 1 repositor/);
    assert.ok(!existsSync(join(repo, '.git', LOCK)));
  });

  // fleet-git makes temporary files only under the lock, so a killed one that
  // left some left its lock too: taking that over is what makes the next run
  // look for them (a run that finds no lock lists no folder for them).
  it('says that temporary files may be left: enable, disable, enable --under and remove that take it over sweep them', () => {
    const s = sandbox();
    const root = join(s.dir, 'temps');
    const repo = s.repo('temps/r');
    const wt = join(root, 'r-wt');
    s.git(repo, 'worktree', 'add', '-q', wt);
    const wtGit = join(repo, '.git/worktrees/r-wt');
    const dead = deadPid();
    const leave = () => {
      const temps = [
        join(repo, `.git/.fleet-git-created.fleet-git-${dead}-k1.tmp`),
        join(repo, `.git/info/.exclude.fleet-git-${dead}-k2.tmp`),
        join(repo, `.git/hooks/.post-checkout.fleet-git-${dead}-k3.tmp`),
        join(wtGit, `.fleet-git-created.fleet-git-${dead}-k4.tmp`),
      ];
      if (existsSync(join(repo, '.github/hooks'))) temps.push(join(repo, `.github/hooks/.fleet.json.fleet-git-${dead}-k5.tmp`));
      for (const t of temps) writeFileSync(t, 'half');
      writeFileSync(join(repo, '.git', LOCK), `${dead}\n`);
      return temps;
    };
    for (const [cwd, args] of [
      [repo, ['enable']],
      [repo, ['disable']],
      [root, ['enable', '--under', root]],
      [root, ['remove', root, '--yes']],
    ] as const) {
      const temps = leave();
      const r = s.cli(cwd, ...args);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      if (cwd === repo)
        // the bulk commands print one line per repository
        assert.match(r.stdout, new RegExp(`removed ${temps.length} temporary files an interrupted fleet-git had left`), args.join(' '));
      assert.deepEqual(
        temps.filter((t) => existsSync(t)),
        [],
        `${args.join(' ')}: every temporary file gone`,
      );
      assert.ok(!existsSync(join(repo, '.git', LOCK)), `${args.join(' ')}: no lock left`);
    }
  });
});
