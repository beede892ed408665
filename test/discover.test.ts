import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { discover } from '../src/core/bulk/discover.js';
import type { Found } from '../src/git/dot-git.js';
import { parseGitFile } from '../src/git/repo.js';
import { sandbox } from './helpers.js';
import { buildWorkspace, type Workspace } from './workspace.js';

/** What discovery tells of a repository from the listings it reads: the .git folder always, the root only with nested (else a stat of .git finds the root). */
const listedOf = (path: string, rootListed = false) => ({
  worktrees: existsSync(join(path, '.git', 'worktrees')),
  ...(rootListed ? { dotGithub: existsSync(join(path, '.github')) } : {}),
});
const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
/** `kind path-relative-to-root` lines, for the option tests. */
const lines = (ws: Workspace, found: Found[]) => found.map((f) => `${f.kind} ${f.path.slice(ws.root.length + 1)}`);

describe('discover', () => {
  let ws: Workspace;
  // Registered before sandbox()'s own clean-up so that it runs first: rm cannot enter a 000 folder.
  after(() => ws?.unlock());
  const sb = sandbox('fleet-git-discover-');
  before(() => {
    ws = buildWorkspace(sb);
  });

  /** Everything found with the default options, exactly. */
  function expectedDefault(): Found[] {
    const { p, root } = ws;
    // What the listings tell must be what is on disk.
    const repo = (path: string): Found => ({
      kind: 'repo',
      path,
      gitDir: join(path, '.git'),
      commonDir: join(path, '.git'),
      listed: listedOf(path),
    });
    const list: Found[] = [
      repo(p.solo),
      repo(p.app),
      {
        kind: 'worktree',
        path: p.appWorktree,
        gitDir: join(p.app, '.git/worktrees/app-wt'),
        commonDir: join(p.app, '.git'),
        mainPath: p.app,
      },
      repo(p.superproject),
      repo(p.outer),
      { kind: 'separate', path: p.separate, gitDir: p.separateGitDir, commonDir: p.separateGitDir },
      { kind: 'bare', path: p.bare, reason: 'bare repository (no worktree)' },
      { kind: 'stale', path: p.stale, reason: `gitdir ${join(root, 'odd/gone/worktree')} does not exist` },
      { kind: 'broken', path: p.broken, reason: '.git folder is missing HEAD, objects/, refs/' },
      { kind: 'broken', path: p.garbage, reason: '.git file has no "gitdir:" line' },
      repo(p.archived),
      repo(p.fleetGit),
      repo(p.upstream),
      repo(p.tracked),
      repo(p.lefthook),
    ];
    if (!ws.lockedUnreadable) list.push(repo(p.lockedRepo));
    return list.sort(byPath);
  }
  const expectedUnreadable = () => (ws.lockedUnreadable ? [{ path: ws.p.locked, reason: 'permission denied' }] : []);

  it('finds every kind, sorted by path, stopping at repository roots and skipping node_modules and links', async () => {
    const r = await discover([ws.root]);
    assert.deepEqual(r.found, expectedDefault());
    assert.deepEqual(r.unreadable, expectedUnreadable());
    assert.ok(!r.found.some((f) => f.path.includes('node_modules')), 'node_modules is never entered');
    assert.ok(!r.found.some((f) => f.path.startsWith(join(ws.root, 'links'))), 'links are not followed by default');
  });

  it('reports an unreadable folder with its reason and goes on (as root, chmod 000 does not stop reads)', async () => {
    const r = await discover([ws.root]);
    if (ws.lockedUnreadable) {
      assert.deepEqual(r.unreadable, [{ path: ws.p.locked, reason: 'permission denied' }]);
      assert.ok(!r.found.some((f) => f.path === ws.p.lockedRepo));
    } else {
      assert.equal(process.getuid?.(), 0, 'only a privileged user reads a 000 folder');
      assert.deepEqual(r.unreadable, []);
      assert.ok(r.found.some((f) => f.path === ws.p.lockedRepo && f.kind === 'repo'));
    }
  });

  it('with nested, finds repositories and submodules inside worktrees, naming the enclosing one', async () => {
    const r = await discover([ws.root], { nested: true });
    const extra = r.found.filter((f) => !expectedDefault().some((e) => e.path === f.path));
    assert.deepEqual(
      extra,
      [
        {
          kind: 'repo',
          path: ws.p.inner,
          gitDir: join(ws.p.inner, '.git'),
          commonDir: join(ws.p.inner, '.git'),
          listed: listedOf(ws.p.inner, true),
          enclosing: ws.p.outer,
        },
        {
          kind: 'submodule',
          path: ws.p.submodule,
          gitDir: join(ws.p.superproject, '.git/modules/libs/sub'),
          commonDir: join(ws.p.superproject, '.git/modules/libs/sub'),
          superproject: ws.p.superproject,
          enclosing: ws.p.superproject,
        },
      ].sort(byPath),
    );
    assert.ok(!r.found.some((f) => f.path.includes('node_modules')));
  });

  it('follows links only when asked, and a link loop neither hangs nor repeats', async () => {
    const r = await discover([ws.root], { followSymlinks: true });
    const expected = [
      ...expectedDefault(),
      {
        kind: 'repo',
        path: ws.p.linkedOutside,
        gitDir: join(ws.p.linkedOutside, '.git'),
        commonDir: join(ws.p.linkedOutside, '.git'),
        listed: listedOf(ws.p.linkedOutside),
      } as Found,
    ].sort(byPath);
    assert.deepEqual(r.found, expected);
    assert.deepEqual(r.unreadable, expectedUnreadable());
    // The loop (links/loop -> ..) and links/self -> . lead back to folders already read.
    assert.equal(new Set(r.found.map((f) => f.path)).size, r.found.length);
    const loopOnly = await discover([join(ws.p.loop, 'links', 'loop')], { followSymlinks: true });
    assert.equal(loopOnly.found.length, expected.length, 'a root reached through the loop is read once');
  });

  it('skips ignore globs, matched on the relative path and on the folder name', async () => {
    const r = await discover([ws.root], { ignore: ['archive', 'odd/g*', '**/app-wt', 'states/'] });
    const names = lines(ws, r.found);
    assert.ok(!names.includes('repo archive/old'));
    assert.ok(!names.includes('broken odd/garbage'));
    assert.ok(!names.includes('worktree work/app-wt'));
    assert.ok(!names.some((n) => n.includes('states/')));
    assert.ok(names.includes('stale odd/stale') && names.includes('broken odd/broken') && names.includes('repo work/app'));
    const byName = await discover([ws.root], { ignore: ['old', 'mirrors'] });
    assert.deepEqual(
      lines(ws, byName.found),
      lines(ws, expectedDefault()).filter((l) => l !== 'repo archive/old' && l !== 'bare mirrors/tool.git'),
    );
  });

  it('bounds the walk with depth (the root is depth 0)', async () => {
    assert.deepEqual((await discover([ws.root], { depth: 0 })).found, []);
    assert.deepEqual(lines(ws, (await discover([ws.root], { depth: 1 })).found), ['repo solo']);
    const two = await discover([ws.root], { depth: 2 });
    assert.deepEqual(lines(ws, two.found), lines(ws, expectedDefault()));
    const inside = await discover([ws.root], { depth: 2, nested: true });
    assert.ok(!inside.found.some((f) => f.path === ws.p.inner), 'outer/vendor/inner is at depth 4');
  });

  it('reports a missing root, walks overlapping roots once, and tells progress', async () => {
    const missing = join(ws.root, 'no-such-folder');
    const r = await discover([missing]);
    assert.deepEqual(r, { found: [], unreadable: [{ path: missing, reason: 'does not exist' }], foldersSeen: 0 });
    const file = join(ws.root, 'solo', 'README.md');
    assert.deepEqual((await discover([file])).unreadable, [{ path: file, reason: 'not a folder' }]);

    const both = await discover([join(ws.root, 'work'), ws.root]);
    assert.deepEqual(both.found, expectedDefault());

    const seen: number[] = [];
    const p = await discover([ws.root], { onProgress: (n) => seen.push(n) });
    assert.equal(seen.at(-1), p.foldersSeen);
    // Folders listed: the ones that are not a repository's root (a root is told by a stat of its .git).
    assert.ok(p.foldersSeen >= 8, `${p.foldersSeen} folders listed`);
  });

  it('a root that is itself a repository is found', async () => {
    const r = await discover([ws.p.app]);
    assert.deepEqual(lines(ws, r.found), ['repo work/app']);
    const bare = await discover([ws.p.bare]);
    assert.deepEqual(lines(ws, bare.found), ['bare mirrors/tool.git']);
  });
});

describe('parseGitFile', () => {
  it('resolves a relative gitdir against the folder holding the file, tolerating CRLF and spaces', () => {
    assert.equal(parseGitFile('gitdir: ../.git/modules/a\n', '/w/super/a'), '/w/super/.git/modules/a');
    assert.equal(parseGitFile('gitdir:   /abs/x.git  \r\n', '/w'), '/abs/x.git');
    assert.equal(parseGitFile('gitdir:\n', '/w'), null);
    assert.equal(
      parseGitFile('gitdir: /w/new\nline/.git/worktrees/a\n', '/w'),
      '/w/new\nline/.git/worktrees/a',
      'a path holding a line break is whole, as git reads it',
    );
    assert.equal(parseGitFile('ref: refs/heads/main\n', '/w'), null);
  });
});
