// fleet-git remove (and enable --under) over a generated workspace, the
// commands run in-process: every repository back exactly as it was before it was enabled.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HELPERS, sandbox, workersDuring, type Sandbox } from './helpers.js';
import { buildWorkspace, initRepos, workspaceSnapshot, type Workspace } from './workspace.js';

const HOOK = '.github/hooks/fleet.json';

type Setup = { ws: Workspace; snap: () => Record<string, string>; userHook: string };
// One sandbox for the file (removed after it), so that its workspace can be put back for each case.
const sb = sandbox('fleet-git-remove-');
let made: { setup: Setup; restore: () => void } | undefined;

/** The workspace, as the first case got it: built once, then put back (at the same paths) for each case after. */
function setup(): Setup {
  if (made) {
    made.restore();
    return made.setup;
  }
  const ws = buildWorkspace(sb, { locked: false });
  // A post-checkout hook of the user's own, to come back byte for byte.
  const userHook = join(ws.p.solo, '.git/hooks/post-checkout');
  writeFileSync(userHook, '#!/bin/sh\necho mine\n');
  chmodSync(userHook, 0o750);
  const snap = () => workspaceSnapshot(ws);
  made = { setup: { ws, snap, userHook }, restore: sb.keep('ws', 'outside', 'home') };
  return made.setup;
}

const enableAll = async (sb: Sandbox, ws: Workspace) => {
  const r = await sb.fleet(sb.dir, 'enable', '--under', ws.root);
  // the upstream and tracked hook files are left alone: exit 1, said on stderr
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /states\/upstream: left .* alone: it was written by the upstream/);
  assert.match(r.stderr, /states\/tracked: left .* alone: it is tracked by git/);
  assert.match(r.stdout, /enable: \d+ changed, 0 unchanged, 2 left partly alone, 0 failed/);
  return r;
};

describe('enable --under', () => {
  it('enables every repository found and each worktree, and a second run changes nothing', async () => {
    const { ws } = setup();
    await enableAll(sb, ws);
    for (const p of [ws.p.solo, ws.p.app, ws.p.appWorktree, ws.p.separate, ws.p.archived, ws.p.lefthook])
      assert.ok(existsSync(join(p, HOOK)), p);
    assert.ok(!existsSync(join(ws.p.nodeModulesRepo, HOOK)), 'node_modules is skipped');
    const doc = JSON.parse((await sb.fleet(sb.dir, 'scan', ws.root, '--json')).stdout);
    const healthy = doc.repos.filter((r: any) => r.enabled && r.problems.length === 0).map((r: any) => r.path);
    assert.ok(healthy.includes(ws.p.solo) && healthy.includes(ws.p.separate) && healthy.includes(ws.p.app));
    const again = await sb.fleet(sb.dir, 'enable', '--under', ws.root);
    assert.match(again.stdout, /enable: 0 changed, \d+ unchanged, 2 left partly alone, 0 failed/);
  });

  it('--include and --exclude choose among the repositories found', async () => {
    const { ws } = setup();
    const r = await sb.fleet(sb.dir, 'enable', '--under', ws.root, '--include', 'work/*', '--exclude', 'app');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(ws.p.outer, HOOK)) && existsSync(join(ws.p.separate, HOOK)));
    assert.ok(!existsSync(join(ws.p.app, HOOK)) && !existsSync(join(ws.p.solo, HOOK)));
    assert.equal(r.stderr, '', 'every pattern matched something');
    // A pattern that matches nothing is said once, on stderr; the run goes on.
    const none = await sb.fleet(sb.dir, 'enable', '--under', ws.root, '--include', 'wrok/*', '--exclude', 'nothing-like-this');
    assert.equal(none.status, 0, none.stderr);
    assert.equal(
      none.stderr,
      `fleet-git: --include "wrok/*" matched nothing under ${ws.root}\nfleet-git: --exclude "nothing-like-this" matched nothing under ${ws.root}\n`,
    );
    assert.match(none.stdout, /enable: 0 changed, 0 unchanged, 0 failed \(0 repositories/);
    const both = await sb.fleet(sb.dir, 'enable', '--under', ws.root, ws.p.solo);
    assert.equal(both.status, 2);
    assert.equal((await sb.fleet(sb.dir, 'enable', '--include', 'x')).status, 2);
  });
});

describe('bulk output', () => {
  it('one line per repository changed, a note shared by many printed once with their number, then the summary; -q: failures and the summary only', async () => {
    const sb = sandbox();
    const root = join(sb.dir, 'code');
    const repos = ['a', 'b', 'c', 'd'].map((n) => sb.repo(`code/${n}`));
    // core.hooksPath elsewhere (as husky sets it) gives each repository the same note.
    for (const r of repos.slice(0, 3)) sb.git(r, 'config', 'core.hooksPath', '.husky/_');
    const en = await sb.fleet(sb.dir, 'enable', '--under', root);
    assert.equal(en.status, 0, en.stderr);
    const lines = en.stdout
      .trimEnd()
      .split('\n')
      .filter((l) => !/hook client|data folder|fleet-git-created|node/.test(l) || l.startsWith(root));
    assert.deepEqual(
      lines.filter((l) => l.endsWith(': enabled')),
      repos.map((r) => `${r}: enabled`),
    );
    const notes = lines.filter((l) => l.startsWith('note') && !l.startsWith('note: Copilot does not trust')); // that one: trust.test
    assert.equal(notes.length, 1, en.stdout);
    assert.match(notes[0], /^note, for 3 repositories \(.*\/code\/a, \.\.\.\): worktree auto-provisioning is not active here: /);
    assert.match(en.stdout, /\nenable: 4 changed, 0 unchanged, 0 failed \(4 repositories under .*\)\n$/);
    assert.ok(en.stdout.split('\n').length <= 4 + 1 + 1 + 4, `a handful of lines, not one a change:\n${en.stdout}`);
    // -q: nothing but the summary (and what failed, on stderr).
    for (const r of repos) assert.equal((await sb.fleet(r, 'disable')).status, 0);
    const q = await sb.fleet(sb.dir, 'enable', '--under', root, '-q');
    assert.equal(q.status, 0, q.stderr);
    assert.equal(q.stdout, `enable: 4 changed, 0 unchanged, 0 failed (4 repositories under ${root})\n`);
    writeFileSync(join(repos[3], '.git', 'index.lock'), ''); // a git process at work there: that one fails
    const rq = await sb.fleet(sb.dir, 'remove', root, '--yes', '--quiet');
    assert.equal(rq.status, 1);
    assert.equal(
      rq.stderr,
      `${repos[3]}: failed: a git process holds ${join(repos[3], '.git', 'index.lock')} (if none is running, remove that file and try again)\n`,
    );
    assert.match(rq.stdout, /^remove: 3 changed, 0 unchanged, 1 failed \(4 of 4 repositories/);
    assert.equal(rq.stdout.split('\n').length, 2, rq.stdout);
  });
});

describe('remove', () => {
  it('leaves every repository exactly as it was before it was enabled (the upstream hook file goes too)', async () => {
    const { ws, snap, userHook } = setup();
    const before = snap();
    await enableAll(sb, ws);
    assert.notEqual(readFileSync(userHook, 'utf8'), '#!/bin/sh\necho mine\n', 'fleet-git chained the user hook');
    const r = await sb.fleet(sb.dir, 'remove', ws.root, '--yes');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /remove: \d+ changed, \d+ unchanged, 0 failed/);
    const expected = { ...before };
    delete expected[`states/upstream/${HOOK}`];
    assert.deepEqual(snap(), expected);
    const again = await sb.fleet(sb.dir, 'remove', ws.root, '--yes');
    assert.equal(again.status, 0);
    assert.match(again.stdout, /remove: 0 changed, \d+ unchanged, 0 failed/);
  });

  it('is also spelled disable --under ROOT, the way back from enable --under ROOT (--yes only with it)', async () => {
    const { ws, snap } = setup();
    const before = snap();
    await enableAll(sb, ws);
    const r = await sb.fleet(sb.dir, 'disable', '--under', ws.root, '--yes');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /remove: \d+ changed, \d+ unchanged, 0 failed/);
    const expected = { ...before };
    delete expected[`states/upstream/${HOOK}`];
    assert.deepEqual(snap(), expected);
    const alone = await sb.fleet(ws.root, 'disable', '--yes');
    assert.deepEqual([alone.status, alone.stderr], [2, 'fleet-git: --yes goes with --under ROOT\n']);
  });

  it('counts a repository with only the upstream hook file as having fleet stuff', async () => {
    const { ws } = setup();
    const r = await sb.fleet(sb.dir, 'remove', join(ws.root, 'states'));
    assert.equal(r.status, 0, r.stderr); // one repository: no --yes needed
    assert.match(r.stdout, /1 of 4 repositories/);
    assert.ok(!existsSync(join(ws.p.upstream, HOOK)));
    assert.ok(existsSync(join(ws.p.tracked, HOOK)), 'a tracked file stays');
  });

  it('--dry-run prints the plan and changes nothing; off a terminal it will not act on many without --yes', async () => {
    const { ws, snap } = setup();
    await enableAll(sb, ws);
    const enabled = snap();
    const dry = await sb.fleet(sb.dir, 'remove', ws.root, '--dry-run');
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`${ws.p.solo}: would\\n  remove ${join(ws.p.solo, HOOK)}\\n`));
    assert.match(dry.stdout, /restore the previous post-checkout hook/);
    assert.match(dry.stdout, /nothing was changed/);
    assert.deepEqual(snap(), enabled);
    // --dry-run --json: the same plan as data.
    const dj = await sb.fleet(sb.dir, 'remove', ws.root, '--dry-run', '--json');
    assert.equal(dj.status, 0, dj.stderr);
    const plan = JSON.parse(dj.stdout);
    assert.deepEqual(Object.keys(plan), ['roots', 'repos', 'counts']);
    const solo = plan.repos.find((r: any) => r.path === ws.p.solo);
    assert.equal(solo.steps[0], `remove ${join(ws.p.solo, HOOK)}`);
    assert.deepEqual(solo.untrust, []);
    assert.equal(plan.counts.targets, plan.repos.length);
    assert.equal(
      plan.repos.length,
      (dry.stdout.match(/: (would|cannot act here)/g) ?? []).length,
      'the same repositories as the text plan',
    );
    assert.deepEqual(snap(), enabled);
    const jsonAlone = await sb.fleet(sb.dir, 'remove', ws.root, '--json', '--yes');
    assert.equal(jsonAlone.status, 2);
    assert.match(jsonAlone.stderr, /^fleet-git: --json goes with --dry-run/);
    assert.deepEqual(snap(), enabled);
    const no = await sb.fleet(sb.dir, 'remove', ws.root);
    assert.equal(no.status, 2);
    assert.equal(no.stdout, '');
    assert.match(no.stderr, /^fleet-git: remove would change \d+ repositories .*add --yes.*\n$/);
    assert.deepEqual(snap(), enabled);
    assert.equal((await sb.fleet(sb.dir, 'remove')).status, 2, 'a root is required');
    assert.equal((await sb.fleet(sb.dir, 'remove', join(ws.root, 'nope'), '--yes')).status, 2);
  });

  it('a repository that fails is reported with its reason and the others go on (exit 1)', async () => {
    const { ws } = setup();
    await enableAll(sb, ws);
    // A git process holding the index lock, and an exclude file that is a folder.
    writeFileSync(join(ws.p.solo, '.git/index.lock'), '');
    const exclude = join(ws.p.archived, '.git/info/exclude');
    rmSync(exclude);
    mkdirSync(exclude);
    const r = await sb.fleet(sb.dir, 'remove', ws.root, '--yes');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`${ws.p.solo}: failed: a git process holds ${join(ws.p.solo, '.git/index.lock')}`));
    assert.match(r.stderr, new RegExp(`${ws.p.archived}: failed: cannot be read: is a folder, not a file\n`));
    assert.match(r.stdout, /remove: \d+ changed, \d+ unchanged, 2 failed/);
    assert.ok(existsSync(join(ws.p.solo, HOOK)), 'the locked repository was not touched');
    for (const p of [ws.p.app, ws.p.appWorktree, ws.p.separate, ws.p.lefthook, ws.p.upstream])
      assert.ok(!existsSync(join(p, HOOK)), `${p} went on`);
  });

  it('--yes reads each repository in the helper threads: the same repositories and counts as --dry-run finds, and one with nothing of fleet-git gets no lock', async () => {
    const { ws, snap } = setup();
    const before = snap();
    for (const p of [ws.p.solo, ws.p.app]) assert.equal((await sb.fleet(p, 'enable')).status, 0);
    // Many repositories of nothing but a plain commit: enough for the helper threads (64 at least).
    const plain = join(ws.root, 'plain');
    const plainDirs = initRepos(sb, plain, 70).map((d) => join(d, '.git'));
    const dry = await sb.fleet(sb.dir, 'remove', ws.root, '--dry-run');
    const found = /(\d+ of \d+ repositories under .* have fleet-git or upstream fleet files)/.exec(dry.stdout)?.[1];
    assert.ok(found, dry.stdout);
    const mtimes = () => plainDirs.map((d) => statSync(d).mtimeMs);
    const plainBefore = mtimes();
    const { result: r, workers } = await workersDuring(() => sb.fleet(sb.dir, 'remove', ws.root, '--yes'));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(workers, HELPERS, 'the helper threads this machine has did the work');
    assert.ok(r.stdout.endsWith(`(${found})\n`), `the run finds what the dry run found:\n${r.stdout}\n${found}`);
    assert.match(r.stdout, /remove: 3 changed, \d+ unchanged, 0 failed/);
    assert.deepEqual(mtimes(), plainBefore, 'no lock was made where there was nothing to remove');
    const expected = { ...before };
    delete expected[`states/upstream/${HOOK}`];
    assert.deepEqual(Object.fromEntries(Object.entries(snap()).filter(([k]) => k !== 'plain' && !k.startsWith('plain/'))), expected);
  });
});
