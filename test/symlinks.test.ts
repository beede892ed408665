// fleet-git never writes, creates or removes anything through a symbolic link
// inside a worktree or git dir: not enable, not disable, not the post-checkout
// hook (new worktrees), not setup's template hook (new clones). A repository or
// worktree with one where fleet-git would write is left alone and reported.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { planEnable } from '../src/core/repo/actions.js';
import { runContext } from '../src/core/repo/context.js';
import { applyPlan, planSteps } from '../src/core/repo/plan.js';
import { assessRepo } from '../src/core/repo/state.js';
import { appendWhole, writeAtomic, writeInPlace } from '../src/fs/atomic.js';
import { locateRepo } from '../src/git/repo.js';
import { CLI, sandbox, snapshot, type Sandbox } from './helpers.js';

const HOOK = '.github/hooks/fleet.json';

/** The tracked links a hostile repository can carry, each on its own branch; `out` is the folder they point into. */
const TRACKED: { name: string; link: string; make: (repo: string, out: string) => void }[] = [
  { name: 'github-relative', link: '.github', make: (repo) => symlinkSync('../outside', join(repo, '.github')) },
  {
    name: 'hooks-absolute',
    link: '.github/hooks',
    make: (repo, out) => {
      mkdirSync(join(repo, '.github'));
      symlinkSync(out, join(repo, '.github/hooks'));
    },
  },
  {
    name: 'dangling-file',
    link: HOOK,
    make: (repo, out) => {
      mkdirSync(join(repo, '.github/hooks'), { recursive: true });
      symlinkSync(join(out, 'pwn.json'), join(repo, HOOK));
    },
  },
];

/** A repository whose branch `name` tracks one such link (main tracks none); the folder `outside` beside it, which must stay empty. */
function hostile(s: Sandbox, repoName: string): { repo: string; out: string } {
  const repo = s.repo(repoName);
  const out = join(s.dir, 'outside');
  mkdirSync(out, { recursive: true });
  for (const t of TRACKED) {
    s.git(repo, 'checkout', '-q', '-b', t.name, 'main');
    t.make(repo, out);
    s.git(repo, 'add', '-A');
    s.git(repo, 'commit', '-q', '-m', t.name);
  }
  s.git(repo, 'checkout', '-q', 'main');
  return { repo, out };
}

async function problems(s: Sandbox, cwd: string): Promise<{ path: string; codes: string[] }[]> {
  const r = await s.fleet(cwd, 'status', '--json');
  assert.equal(r.status, 0, r.stderr);
  const st = JSON.parse(r.stdout);
  return [
    { path: st.path, codes: st.problems.map((p: { code: string }) => p.code) },
    ...st.worktrees.map((w: { path: string; problems: { code: string }[] }) => ({ path: w.path, codes: w.problems.map((p) => p.code) })),
  ];
}

function assertOneLine(stderr: string, link: string): void {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.ok(lines[0].includes(`${link} is a symbolic link`), stderr);
}

describe('symbolic links', () => {
  it('enable leaves a worktree with a tracked link on the hook file path alone, says which path, and status reports it', async () => {
    const s = sandbox();
    const { repo, out } = hostile(s, 'r');
    for (const t of TRACKED) {
      s.git(repo, 'checkout', '-q', t.name);
      const r = await s.fleet(repo, 'enable');
      assert.equal(r.status, 1, `${t.name}: ${r.stdout}${r.stderr}`);
      assertOneLine(r.stderr, join(repo, t.link));
      assert.deepEqual(snapshot(out), {}, `${t.name}: nothing was created outside`);
      assert.deepEqual((await problems(s, repo))[0].codes, ['symlink'], t.name);
      const d = await s.fleet(repo, 'disable');
      assert.equal(d.status, 1, d.stderr);
      assert.deepEqual(snapshot(out), {}, t.name);
      assert.equal(s.git(repo, 'status', '--porcelain'), '', t.name);
      s.git(repo, 'checkout', '-q', 'main');
      assert.equal((await s.fleet(repo, 'disable')).status, 0);
    }
  });

  it('disable removes nothing through a link: a fleet-git hook file reached through .github stays', async () => {
    const s = sandbox();
    const repo = s.repo('d');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    const out = join(s.dir, 'elsewhere');
    mkdirSync(join(out, 'hooks'), { recursive: true });
    renameSync(join(repo, HOOK), join(out, 'hooks/fleet.json'));
    rmSync(join(repo, '.github'), { recursive: true });
    symlinkSync(out, join(repo, '.github'));
    const before = snapshot(out);
    assert.deepEqual((await problems(s, repo))[0].codes, ['symlink']);
    const r = await s.fleet(repo, 'disable');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assertOneLine(r.stderr, join(repo, '.github'));
    assert.deepEqual(snapshot(out), before, 'the file outside is still there');
  });

  // Every path fleet-git writes in a git dir (state.ts reads some of them on the way, and takes what those reads
  // tell for its check: a link at any of them is still found, and named).
  for (const [what, rel] of [
    ['info', 'info'],
    ['hooks', 'hooks'],
    ['info/exclude', 'info/exclude'],
    ['fleet-git-created', 'fleet-git-created'],
    ['hooks/post-checkout', 'hooks/post-checkout'],
    ['hooks/post-checkout.fleet-git-prev', 'hooks/post-checkout.fleet-git-prev'],
    ['hooks/post-checkout.legacy', 'hooks/post-checkout.legacy'],
    ['hooks/post-checkout.old', 'hooks/post-checkout.old'],
    ['fleet-git-replaced-fleet.json', 'fleet-git-replaced-fleet.json'],
  ] as const) {
    it(`a symlinked .git/${what}: enable and disable leave the repository alone, and status reports it`, async () => {
      const s = sandbox();
      const repo = s.repo('g');
      const git = join(repo, '.git');
      const out = join(s.dir, 'out');
      mkdirSync(out);
      const target = join(out, 'target');
      const place = join(git, rel);
      if (existsSync(place)) renameSync(place, target);
      else if (rel === 'info' || rel === 'hooks') mkdirSync(target);
      else writeFileSync(target, '');
      symlinkSync(target, place);
      const before = snapshot(out);
      const r = await s.fleet(repo, 'enable');
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assertOneLine(r.stderr, place);
      assert.deepEqual(snapshot(out), before, 'nothing changed outside');
      assert.ok(!existsSync(join(repo, '.github')), 'nothing written in the worktree either');
      assert.equal(s.git(repo, 'status', '--porcelain'), '');
      // Enabled first, then linked: status says so, disable changes nothing there.
      rmSync(place);
      if (existsSync(target)) renameSync(target, place);
      assert.equal((await s.fleet(repo, 'enable')).status, 0);
      renameSync(place, target);
      symlinkSync(target, place);
      const enabled = snapshot(out);
      assert.ok((await problems(s, repo))[0].codes.includes('symlink'), what);
      const d = await s.fleet(repo, 'disable');
      assert.equal(d.status, 1, d.stdout + d.stderr);
      assertOneLine(d.stderr, place);
      assert.deepEqual(snapshot(out), enabled, 'disable changed nothing outside');
    });
  }

  it('git worktree add of a branch carrying such a link, in an enabled repository: nothing outside, one line, reported', async () => {
    const s = sandbox();
    const { repo, out } = hostile(s, 'w');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    for (const t of TRACKED) {
      const wt = join(s.dir, `wt-${t.name}`);
      const r = s.run(repo, ['worktree', 'add', '-q', wt, t.name]);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(snapshot(out), {}, `${t.name}: nothing was created outside`);
      assertOneLine(r.stderr, t.link);
      assert.equal(s.git(wt, 'status', '--porcelain'), '', t.name);
      const p = (await problems(s, repo)).find((x) => x.path === wt);
      assert.deepEqual(p?.codes, ['symlink'], t.name);
      const again = await s.fleet(repo, 'enable');
      assert.equal(again.status, 1, again.stderr);
      assert.deepEqual(snapshot(out), {}, t.name);
    }
  });

  it('a clone with setup in effect of a branch carrying such a link: nothing outside, one line, reported', async () => {
    const s = sandbox();
    const { repo, out } = hostile(s, 'src');
    assert.equal((await s.fleet(s.dir, 'setup')).status, 0);
    for (const t of TRACKED) {
      const dest = join(s.dir, `clone-${t.name}`);
      const r = s.run(s.dir, ['clone', '-q', '-b', t.name, repo, dest]);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(snapshot(out), {}, `${t.name}: nothing was created outside`);
      assertOneLine(r.stderr, t.link);
      assert.equal(s.git(dest, 'status', '--porcelain'), '', t.name);
      assert.deepEqual((await problems(s, dest))[0].codes, ['symlink'], t.name);
    }
  });
});

// Check, then write: the lstat walk runs before the writes, so a link put at
// the final name between the two must be refused by the write itself
// (O_NOFOLLOW on every open, O_EXCL for the temporary file and for a file
// planned as new, which is put in place by link(2), never a rename over a name).
describe('check, then write: a link at the final name is refused by the write itself', () => {
  /** A folder with a dangling link and a link to a file, both pointing outside it; `out` must stay as it is. */
  function links(s: Sandbox): { dir: string; out: string; dangling: string; toFile: string } {
    const dir = join(s.dir, `w${Math.random().toString(36).slice(2)}`);
    const out = join(dir, 'outside');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'theirs'), 'theirs\n');
    const dangling = join(dir, 'dangling.json');
    const toFile = join(dir, 'to-file.json');
    symlinkSync(join(out, 'pwn.json'), dangling);
    symlinkSync(join(out, 'theirs'), toFile);
    return { dir, out, dangling, toFile };
  }

  it('writeAtomic, writeInPlace and appendWhole, with the pre-check bypassed: ELOOP or EEXIST, the link and what it points to untouched, no temporary file', () => {
    const s = sandbox();
    const { dir, out, dangling, toFile } = links(s);
    const outBefore = snapshot(out);
    const writes: [string, (p: string) => unknown][] = [
      ['writeAtomic, reading the file itself', (p) => writeAtomic(p, 'x\n')],
      ['writeAtomic, the caller having read no file', (p) => writeAtomic(p, 'x\n', { current: null })],
      ['writeAtomic, the caller having read a file', (p) => writeAtomic(p, 'x\n', { mode: 0o644, current: 'theirs\n' })],
      ['writeAtomic as a creation', (p) => writeAtomic(p, 'x\n', { current: null, create: true })],
      ['writeInPlace, growing', (p) => writeInPlace(p, 'theirs\nmore\n', 'theirs\n')],
      ['writeInPlace, cutting', (p) => writeInPlace(p, 'the', 'theirs\n')],
      ['appendWhole', (p) => appendWhole(p, 'x\n')],
      ['appendWhole as a creation', (p) => appendWhole(p, 'x\n', true)],
    ];
    for (const [name, write] of writes)
      for (const link of [dangling, toFile]) {
        assert.throws(
          () => write(link),
          (e: NodeJS.ErrnoException) => e.code === 'ELOOP' && /is a symbolic link/.test(e.message),
          `${name} on ${link}`,
        );
        assert.ok(lstatSync(link).isSymbolicLink(), `${name}: the link is still there`);
        assert.deepEqual(snapshot(out), outBefore, `${name}: nothing outside changed`);
        assert.deepEqual(readdirSync(dir).sort(), ['dangling.json', 'outside', 'to-file.json'], `${name}: no temporary file left`);
      }
  });

  it('a temporary file name taken by a link is refused too (O_EXCL, O_NOFOLLOW), and a creation never replaces a file that appeared', () => {
    const s = sandbox();
    const { dir, out } = links(s);
    const outBefore = snapshot(out);
    const target = join(dir, 'new.json');
    writeFileSync(target, 'someone else\n');
    assert.throws(() => writeAtomic(target, 'x\n', { current: null, create: true }), { code: 'EEXIST' });
    assert.equal(readFileSync(target, 'utf8'), 'someone else\n');
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.endsWith('.tmp')),
      [],
    );
    // The temporary name this process picks (.NAME.fleet-git-PID-TIME.tmp) is a link outside: the clock held still, so
    // the name is known whatever the load.
    const fresh = join(dir, 'fresh.json');
    const now = Date.now();
    symlinkSync(join(out, 'theirs'), join(dir, `.fresh.json.fleet-git-${process.pid}-${now.toString(36)}.tmp`));
    const realNow = Date.now;
    Date.now = () => now;
    try {
      assert.throws(() => writeAtomic(fresh, 'x\n'), { code: 'EEXIST' });
    } finally {
      Date.now = realNow;
    }
    assert.ok(!existsSync(fresh));
    assert.deepEqual(snapshot(out), outBefore);
  });

  it('a plan made before a link appears at the hook file (the race): applying it fails, is undone, and leaves the link and the folder outside alone', () => {
    const s = sandbox();
    const repo = s.repo('race');
    mkdirSync(join(repo, '.github/hooks'), { recursive: true }); // a real folder: the check passes, as it would just before a swap
    writeFileSync(join(repo, '.github/hooks/other.json'), '{}\n');
    const out = join(s.dir, 'race-outside');
    mkdirSync(out);
    const ctx = runContext(s.env, s.home);
    const plan = planEnable(assessRepo(locateRepo(repo), ctx), ctx);
    assert.ok(
      planSteps(plan).some((st) => st.path === join(repo, HOOK)),
      'the plan writes the hook file',
    );
    const exclude = join(repo, '.git/info/exclude');
    const excludeBefore = readFileSync(exclude, 'utf8');
    symlinkSync(join(out, 'pwn.json'), join(repo, HOOK)); // swapped in between check and write
    assert.throws(
      () => applyPlan(plan),
      (e: NodeJS.ErrnoException) => e.code === 'ELOOP' || e.code === 'EEXIST',
    );
    assert.ok(lstatSync(join(repo, HOOK)).isSymbolicLink(), 'the link is still there, not replaced');
    assert.deepEqual(snapshot(out), {}, 'nothing was created outside');
    assert.equal(readFileSync(exclude, 'utf8'), excludeBefore, 'the steps done before were undone');
    assert.deepEqual(readdirSync(join(repo, '.github/hooks')).sort(), ['fleet.json', 'other.json'], 'no temporary file left');

    // The same for info/exclude swapped for a link to a file outside, after planning.
    rmSync(join(repo, HOOK));
    const plan2 = planEnable(assessRepo(locateRepo(repo), ctx), ctx);
    writeFileSync(join(out, 'exclude'), excludeBefore);
    rmSync(exclude);
    symlinkSync(join(out, 'exclude'), exclude);
    assert.throws(
      () => applyPlan(plan2),
      (e: NodeJS.ErrnoException) => e.code === 'ELOOP',
    );
    assert.equal(readFileSync(join(out, 'exclude'), 'utf8'), excludeBefore, 'the file outside is unchanged');
    assert.ok(lstatSync(exclude).isSymbolicLink());
    assert.ok(!existsSync(join(repo, HOOK)), 'the hook file written before was taken back');
  });
});

describe("a FIFO in the hook file's place", () => {
  it("a checkout, status and enable take it for someone else's file at once, never waiting for a writer", () => {
    const s = sandbox();
    const repo = s.repo('fifo');
    assert.equal(s.cli(repo, 'enable').status, 0);
    rmSync(join(repo, '.github', 'hooks', 'fleet.json'));
    assert.equal(spawnSync('mkfifo', [join(repo, '.github', 'hooks', 'fleet.json')]).status, 0);
    const git = spawnSync('git', ['checkout', '-q', '-b', 'next'], { cwd: repo, env: s.env, encoding: 'utf8', timeout: 10_000 });
    assert.deepEqual([git.status, git.signal], [0, null], git.stderr);
    for (const command of ['status', 'enable']) {
      const r = spawnSync(process.execPath, [CLI, command], { cwd: repo, env: s.env, encoding: 'utf8', timeout: 10_000 });
      assert.equal(r.signal, null, `${command} waited for a writer`);
      assert.match(r.stdout + r.stderr, /was not written by fleet-git|written by someone else/, command);
    }
    assert.ok(lstatSync(join(repo, '.github', 'hooks', 'fleet.json')).isFIFO(), 'left as it was');
  });
});
