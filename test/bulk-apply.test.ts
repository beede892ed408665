// Bulk enable and remove in helper threads (src/core/bulk/bulk-apply.ts): the very
// same files, outcomes and counts as in the main thread alone, also when a
// helper fails and the main thread does its share again.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { applyAll, WORKER_FILE, type ApplyOptions, type BulkAction } from '../src/core/bulk/bulk-apply.js';
import { survey } from '../src/core/bulk/bulk.js';
import { ensureUserFiles, runContext, type RunContext } from '../src/core/repo/context.js';
import { sandbox } from './helpers.js';
import { buildWorkspace, workspaceSnapshot, type Workspace } from './workspace.js';

describe('bulk enable and remove in helper threads', () => {
  let ws: Workspace;
  let ctx: RunContext;
  const sb = sandbox('fleet-git-bulk-');
  before(() => {
    ws = buildWorkspace(sb, { locked: false });
    // Two repositories that fail, in either thread: a git process holding the index lock, an exclude file that is a folder.
    writeFileSync(join(ws.p.solo, '.git/index.lock'), '');
    const exclude = join(ws.p.archived, '.git/info/exclude');
    rmSync(exclude);
    mkdirSync(exclude);
    ctx = runContext(sb.env, sb.home);
    ensureUserFiles(ctx);
  });
  after(() => ws?.unlock());
  const snap = () => workspaceSnapshot(ws);

  /** Runs the action over every repository found (read by the survey, or not: `read`); the outcomes as text, in row order. */
  async function run(action: BulkAction, opts: ApplyOptions, read = true) {
    const s = await survey([ws.root], ctx, {}, read);
    const { results, counts, helpers, untouched } = await applyAll(s.rows, ctx, action, opts);
    const lines = results.map((r) => `${r.row.path}: ${r.error ?? JSON.stringify(r.outcome)}`);
    return { lines, counts, helpers, untouched, rows: s.rows };
  }

  it('two helpers write exactly what the main thread writes, and report it in the same order', async () => {
    assert.ok(existsSync(WORKER_FILE), `${WORKER_FILE} is built`);
    const pristine = snap();
    const enable: BulkAction = { do: 'enable', force: false };
    // upstream: false, so that every byte comes back (remove also takes out upstream fleet's files)
    const remove: BulkAction = { do: 'disable', upstream: false };

    const one = await run(enable, { threads: 1 });
    assert.equal(one.helpers, 0);
    assert.ok(one.counts.changed > 5, JSON.stringify(one.counts));
    assert.equal(one.counts.failed, 2, one.lines.join('\n'));
    assert.ok(
      one.lines.some((l) => l.startsWith(`${ws.p.solo}: a git process holds`)) &&
        one.lines.some((l) => l.startsWith(`${ws.p.archived}: `) && l.includes('is a folder, not a file')),
    );
    const enabledByOne = snap();
    const oneOff = await run(remove, { threads: 1 });
    assert.deepEqual(snap(), pristine, 'remove in one thread puts every byte back');

    const two = await run(enable, { threads: 2, minRows: 0 });
    assert.equal(two.helpers, 2, 'two helpers did the work');
    assert.deepEqual(two.lines, one.lines);
    assert.deepEqual(two.counts, one.counts);
    assert.deepEqual(snap(), enabledByOne);
    const twoOff = await run(remove, { threads: 2, minRows: 0 });
    assert.deepEqual(twoOff.lines, oneOff.lines);
    assert.deepEqual(snap(), pristine, 'remove in helpers puts every byte back');
  });

  it('a helper that fails leaves its share to the main thread: the same result', async () => {
    const broken = join(sb.dir, 'broken-worker.mjs');
    writeFileSync(broken, "throw new Error('a helper that fails at once');\n");
    const pristine = snap();
    const one = await run({ do: 'enable', force: false }, { threads: 1 });
    const enabled = snap();
    await run({ do: 'disable', upstream: false }, { threads: 1 });
    assert.deepEqual(snap(), pristine);

    const fallback = await run({ do: 'enable', force: false }, { threads: 2, minRows: 0, workerFile: broken });
    assert.equal(fallback.helpers, 2, 'the helpers were started');
    assert.deepEqual(fallback.lines, one.lines);
    assert.deepEqual(snap(), enabled);
    await run({ do: 'disable', upstream: false }, { threads: 2, minRows: 0, workerFile: broken });
    assert.deepEqual(snap(), pristine);
  });

  it('rows the survey found without reading them: each read once, under its lock, with the same files and outcomes; with pick, one with nothing of fleet-git is left without a lock', async () => {
    const pristine = snap();
    const enable: BulkAction = { do: 'enable', force: false };
    const remove: BulkAction = { do: 'disable', upstream: false };
    const read = await run(enable, { threads: 1 });
    const enabled = snap();
    await run(remove, { threads: 1 });
    assert.deepEqual(snap(), pristine);

    for (const opts of [{ threads: 1 }, { threads: 2, minRows: 0 }]) {
      const unread = await run(enable, opts, false);
      assert.ok(unread.rows.some((r) => r.unread) && unread.rows.every((r) => !r.state), 'the survey read no repository');
      assert.deepEqual(unread.lines, read.lines, JSON.stringify(opts));
      assert.deepEqual(unread.counts, read.counts);
      assert.deepEqual(snap(), enabled);
      // remove with pick on the enabled workspace: every repository is acted on, and every byte comes back.
      const off = await run(remove, { ...opts, pick: { listed: [] } }, false);
      // solo, which enable could not change (a git process held its index), and tracked and upstream, whose hook files
      // enable left alone (and so everything else), have nothing to remove.
      assert.equal(off.untouched, 3, off.lines.join('\n'));
      assert.deepEqual(snap(), pristine, `remove with pick puts every byte back (${JSON.stringify(opts)})`);

      // Nothing of fleet-git anywhere: no repository is locked (its common git dir is not written), none is counted.
      const commonDirs = off.rows.flatMap((r) => (r.unread ? [r.unread.commonDir] : []));
      const mtimes = () => commonDirs.map((d) => `${d} ${statSync(d).mtimeMs}`);
      const before = mtimes();
      const none = await run(remove, { ...opts, pick: { listed: [] } }, false);
      assert.deepEqual(mtimes(), before, 'no lock was made in a repository with nothing to remove');
      assert.deepEqual(none.counts, { changed: 0, unchanged: 0, leftAlone: 0, failed: 1 }, none.lines.join('\n'));
      assert.ok(none.lines[0].startsWith(`${ws.p.archived}: cannot be read: `), 'the unreadable one fails with its reason');
      assert.equal(none.untouched, commonDirs.length - 1);
      // A repository fleet-git listed in trustedFolders is picked, though it has nothing else of fleet-git.
      const listed = await run(remove, { ...opts, pick: { listed: [ws.p.solo] } }, false);
      assert.equal(listed.untouched, commonDirs.length - 2);
      assert.ok(
        listed.lines.some((l) => l.startsWith(`${ws.p.solo}: `)),
        listed.lines.join('\n'),
      );
      assert.deepEqual(snap(), pristine);
    }
  });
});
