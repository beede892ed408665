// The post-checkout hook under a lock and a kill: a checkout while a fleet-git holds the
// repository's lock waits for it, or past its wait writes nothing and says so; a hook killed as it
// writes leaves nothing half-written and no lock that blocks. These wait by design, so they run in
// npm test, not in the quick tier (scripts/test.mjs); test/post-checkout.test.ts has the rest.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { EXCLUDE_BLOCK } from '../src/core/repo/exclude.js';
import { holderAlive } from '../src/fs/lock.js';
import { needs, ROOT, sandbox, type Sandbox } from './helpers.js';

const HOOK = '.github/hooks/fleet.json';

// The hook takes the lock fleet-git's commands take (fleet-git.lock in the common git dir) while it reads and writes.
const LOCK = '.git/fleet-git.lock';

/** A process holding the repository's lock through fleet-git's own code (test/fixtures/lock-holder.ts), once it says so. */
async function holdLock(repo: string, ms: number): Promise<ChildProcess> {
  const p = spawn(
    process.execPath,
    [
      '--import',
      join(ROOT, 'scripts/ts-loader.mjs'),
      join(ROOT, 'test/fixtures/lock-holder.ts'),
      join(repo, LOCK),
      join(repo, '.git/info/exclude'),
      String(ms),
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    p.stdout!.on('data', (d) => String(d).includes('held') && resolve());
    p.on('exit', (code) => reject(new Error(`the lock holder exited ${code}`)));
  });
  return p;
}

function gitAsync(s: Sandbox, cwd: string, ...args: string[]): Promise<{ status: number | null; stderr: string }> {
  const p = spawn('git', args, { cwd, env: s.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => p.on('close', (status) => resolve({ status, stderr })));
}

/** An enabled repository and a linked worktree whose hook file and exclude block are gone (the next checkout puts them back). */
function bare(s: Sandbox, name: string): { repo: string; wt: string } {
  const repo = s.repo(name);
  assert.equal(s.cli(repo, 'enable').status, 0);
  const wt = join(s.dir, `${name}-wt`);
  s.git(repo, 'worktree', 'add', '-q', wt, '-b', 'w');
  writeFileSync(join(repo, '.git/info/exclude'), '# mine\n');
  rmSync(join(wt, HOOK));
  return { repo, wt };
}

it('a checkout while a fleet-git holds the lock waits for it, then reads what that one left: one exclude block, the hook file whole', async () => {
  const s = sandbox();
  const { repo, wt } = bare(s, 'pc-lock-wait');
  // The holder read info/exclude (no block) and appends the block after 1 s, holding the lock: the hook must not read before.
  const holder = await holdLock(repo, 1000);
  const [r] = await Promise.all([gitAsync(s, wt, 'checkout', '-q', '-b', 'w2'), new Promise((ok) => holder.on('exit', ok))]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(
    readFileSync(join(repo, '.git/info/exclude'), 'utf8'),
    `# mine\n${EXCLUDE_BLOCK}`,
    'one block: the hook read after the holder wrote',
  );
  assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  assert.ok(!existsSync(join(repo, LOCK)), 'the hook removed its lock');
  assert.equal(s.git(wt, 'status', '--porcelain'), '');
});

it("a checkout while a fleet-git holds the lock past the hook's wait writes nothing, says what to run in one line, and git succeeds; the killed holder's lock is taken over by the next checkout", async () => {
  const s = sandbox();
  const { repo, wt } = bare(s, 'pc-lock-skip');
  const holder = await holdLock(repo, 60_000);
  const r = await gitAsync(s, wt, 'checkout', '-q', '-b', 'w2');
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stderr,
    /^fleet-git: left \S+ as git made it: another fleet-git holds \S+\/fleet-git\.lock; run 'fleet-git enable' there once it is done/,
  );
  assert.equal(r.stderr.split('\n').length, 2, 'one line');
  assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), '# mine\n', 'nothing written');
  assert.deepEqual(readdirSync(join(wt, '.github/hooks')), [], 'no hook file, no temporary file');
  // Killed (no release): its lock names a dead process, which the next checkout takes over.
  const gone = new Promise((ok) => holder.on('exit', ok));
  holder.kill('SIGKILL');
  await gone;
  assert.equal(holderAlive(readFileSync(join(repo, LOCK), 'utf8')), false);
  s.git(wt, 'checkout', '-q', '-b', 'w3');
  assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), `# mine\n${EXCLUDE_BLOCK}`);
  assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  assert.ok(!existsSync(join(repo, LOCK)));
  assert.ok(!existsSync(join(repo, `${LOCK}.stale`)));
});

it('a lock whose PID was reused (a live process that started at another time) is stale to the hook too', () => {
  const s = sandbox();
  const { repo, wt } = bare(s, 'pc-lock-reuse');
  const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  writeFileSync(join(repo, LOCK), `${process.pid}\nstart 1 ${boot}\n`);
  assert.equal(holderAlive(readFileSync(join(repo, LOCK), 'utf8')), false, 'fleet-git judges it stale');
  const r = spawnSync('git', ['checkout', '-q', '-b', 'w2'], { cwd: wt, env: s.env, encoding: 'utf8' });
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
  assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  assert.ok(!existsSync(join(repo, LOCK)));
});

it(
  'a hook killed as it puts the hook file in place (it holds the lock) leaves no fleet.json and a lock of a dead process: git succeeds, and the next checkout takes the lock over and removes the temporary file',
  { skip: needs('strace') },
  () => {
    const s = sandbox();
    const { repo, wt } = bare(s, 'pc-lock-kill');
    writeFileSync(join(repo, '.git/info/exclude'), `# mine\n${EXCLUDE_BLOCK}`);
    const head = s.git(wt, 'rev-parse', 'HEAD');
    // The hook as git runs it, in the worktree (the data folder's copy, which git 2.54+ runs from the config); its node side is killed (SIGKILL) as it links the finished hook file into place.
    const r = spawnSync(
      'strace',
      [
        '-f',
        '-qq',
        '-o',
        '/dev/null',
        '-e',
        'trace=link,linkat,rename',
        '-e',
        'inject=link,linkat,rename:signal=KILL:when=1',
        'sh',
        join(s.env.XDG_DATA_HOME, 'fleet-git', 'repo-hook'), // the hook as either git runs it (2.54+ from the config)
        head,
        head,
        '1',
      ],
      { cwd: wt, env: s.env, encoding: 'utf8' },
    );
    assert.equal(r.status, 0, 'the git command is never failed');
    assert.match(
      r.stderr,
      /^fleet-git: could not add \.github\/hooks\/fleet\.json in /m,
      "one line says what to run (after the shell's word for the kill)",
    );
    assert.ok(!existsSync(join(wt, HOOK)), 'no hook file but a whole one');
    const temps = readdirSync(join(wt, '.github/hooks')).filter((n) => /^\.fleet\.json\.fleet-git-\d+-[0-9a-z]+\.tmp$/.test(n));
    assert.equal(temps.length, 1, 'the kill came before the link: its temporary file is there');
    assert.equal(readFileSync(join(wt, '.github/hooks', temps[0]!), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
    const text = readFileSync(join(repo, LOCK), 'utf8');
    assert.match(text, /^\d+\nstart \d+ \S+\n$/, 'the holder text fleet-git writes');
    assert.equal(holderAlive(text), false);
    // The next checkout in that worktree: the lock taken over, the file written whole, the temporary file removed.
    s.git(wt, 'checkout', '-q', '-b', 'w2');
    assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
    assert.deepEqual(readdirSync(join(wt, '.github/hooks')), ['fleet.json']);
    assert.ok(!existsSync(join(repo, LOCK)));
    assert.equal(s.git(wt, 'status', '--porcelain'), '');
  },
);
