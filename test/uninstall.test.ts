// fleet-git uninstall, run in-process with real git: after enable (with
// --trust and --user), setup and the rest, the home, the global git config and
// every repository are byte for byte as they were before.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gitChurn, sandbox, snapshot, type Sandbox } from './helpers.js';

/** A sandbox with repositories under code/ (one with a linked worktree beside it) and a snapshot of all of it. */
function machine(): { s: Sandbox; code: string; app: string; lib: string; snap: () => Record<string, string> } {
  const s = sandbox('fleet-git-uninstall-');
  const code = join(s.dir, 'code');
  const app = s.repo('code/app');
  const lib = s.repo('code/lib');
  s.git(app, 'worktree', 'add', '-q', join(code, 'app-feature'), '-b', 'feature');
  // A post-checkout hook of the user's own, to come back byte for byte.
  writeFileSync(join(lib, '.git/hooks/post-checkout'), '#!/bin/sh\necho mine\n', { mode: 0o750 });
  return { s, code, app, lib, snap: () => snapshot(s.dir, gitChurn) };
}

const ok = async (s: Sandbox, cwd: string, ...args: string[]) => {
  const r = await s.fleet(cwd, ...args);
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
};

describe('uninstall', () => {
  it('after enable --trust, enable --user, setup and a provisioned worktree, leaves everything as it was, byte for byte', async () => {
    const { s, code, app, lib, snap } = machine();
    const before = snap();
    await ok(s, app, 'enable', '--trust');
    await ok(s, lib, 'enable');
    await ok(s, app, 'enable', '--user');
    await ok(s, app, 'setup');
    // A worktree made now gets the hook file from the post-checkout hook; and a
    // repository fleet-git trusted that is gone since leaves its entry behind.
    s.git(app, 'worktree', 'add', '-q', join(s.dir, 'later'), '-b', 'later');
    assert.ok(existsSync(join(s.dir, 'later', '.github/hooks/fleet.json')));
    s.git(app, 'worktree', 'remove', join(s.dir, 'later'));
    s.git(app, 'branch', '-q', '-D', 'later');
    const gone = s.repo('gone');
    await ok(s, gone, 'enable', '--trust');
    rmSync(gone, { recursive: true });
    // The spool folder the hook command makes in $XDG_RUNTIME_DIR on a Copilot event.
    s.env.XDG_RUNTIME_DIR = join(s.dir, 'run');
    mkdirSync(join(s.env.XDG_RUNTIME_DIR, 'fleet-git'), { recursive: true, mode: 0o700 });
    writeFileSync(join(s.env.XDG_RUNTIME_DIR, 'fleet-git', 'forwarder.lease'), '1 99999\n');
    assert.notDeepEqual(snap(), before);

    const r = await ok(s, s.dir, 'uninstall', code, '--yes');
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /remove: 2 changed/);
    assert.match(r.stdout, /removed the user-level hook file/);
    assert.match(r.stdout, /setup undone/);
    assert.match(r.stdout, new RegExp(`took ${gone} out of Copilot's trustedFolders`));
    assert.match(r.stdout, /removed fleet-git's data folder/);
    assert.match(r.stdout, /removed the hook events' spool folder/);
    rmSync(s.env.XDG_RUNTIME_DIR, { recursive: true }); // the session's runtime folder itself is not fleet-git's
    assert.deepEqual(snap(), before);
    // Again: there is nothing left to take away.
    const again = await ok(s, s.dir, 'uninstall', code, '--yes');
    assert.doesNotMatch(again.stdout, /removed/);
    assert.deepEqual(snap(), before);
  });

  it('--dry-run says what would go and changes nothing; off a terminal, without --yes, it changes nothing either', async () => {
    const { s, code, app } = machine();
    await ok(s, app, 'enable', '--trust', '--user');
    await ok(s, app, 'enable');
    await ok(s, app, 'setup');
    const snap = () => snapshot(s.dir);
    const before = snap();
    const r = await ok(s, s.dir, 'uninstall', code, '--dry-run');
    assert.match(r.stdout, new RegExp(`${app}: would`));
    assert.match(r.stdout, /would remove the user-level hook file/);
    assert.match(r.stdout, /would undo fleet-git setup/);
    assert.match(r.stdout, /would remove fleet-git's data folder/);
    assert.match(r.stdout, /nothing was changed/);
    assert.deepEqual(snap(), before);

    // The same plan as one JSON document: remove's own (as remove --dry-run --json gives it), then the rest.
    const j = await ok(s, s.dir, 'uninstall', code, '--dry-run', '--json');
    const doc = JSON.parse(j.stdout);
    assert.deepEqual(Object.keys(doc), ['remove', 'gone', 'kept', 'userHook', 'setup', 'untrust', 'dataDir', 'configFile']);
    assert.deepEqual(doc.remove, JSON.parse((await ok(s, s.dir, 'remove', code, '--dry-run', '--json')).stdout));
    assert.ok(doc.remove.repos.some((x: { path: string }) => x.path === app));
    assert.equal(doc.userHook, join(s.env.COPILOT_HOME, 'hooks', 'fleet.json'));
    assert.equal(typeof doc.setup, 'string');
    assert.deepEqual(doc.untrust, []);
    assert.equal(doc.dataDir, join(s.env.XDG_DATA_HOME, 'fleet-git'));
    assert.equal(doc.configFile, null);
    assert.deepEqual(snap(), before);
    const noDry = await s.fleet(s.dir, 'uninstall', code, '--json', '--yes');
    assert.equal(noDry.status, 2);
    assert.equal(noDry.stderr, 'fleet-git: --json goes with --dry-run (the plan as JSON)\n');
    assert.deepEqual(snap(), before);

    const asked = await s.fleet(s.dir, 'uninstall', code);
    assert.equal(asked.status, 2);
    assert.equal(asked.stderr.trim().split('\n').length, 1);
    assert.match(asked.stderr, /^fleet-git: uninstall would take .* add --yes to go ahead/);
    assert.deepEqual(snap(), before);
  });

  it("keeps the data folder while something is left undone (a user-level hook file that is not fleet-git's), and says so", async () => {
    const { s, code, app } = machine();
    await ok(s, app, 'enable');
    const userHook = join(s.env.COPILOT_HOME, 'hooks', 'fleet.json');
    mkdirSync(join(s.env.COPILOT_HOME, 'hooks'), { recursive: true });
    writeFileSync(userHook, '{"version":1,"hooks":{}}\n');
    const r = await s.fleet(s.dir, 'uninstall', code, '--yes');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /left .*fleet\.json alone: it was not written by fleet-git/);
    assert.match(r.stderr, /kept the data folder .*: run fleet-git uninstall again once it is fixed/);
    assert.ok(existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'hook-client.cjs')));
    assert.ok(!existsSync(join(app, '.github/hooks/fleet.json')), 'the repositories were still done');
    rmSync(userHook);
    await ok(s, s.dir, 'uninstall', code, '--yes');
    assert.ok(!existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git')));
  });

  it('without a folder, takes fleet-git out of the repositories under the home folder', async () => {
    const s = sandbox('fleet-git-uninstall-');
    const repo = s.repo('home/code/mine');
    const before = snapshot(s.dir, gitChurn);
    await ok(s, repo, 'enable');
    const r = await ok(s, repo, 'uninstall', '--yes');
    assert.match(r.stdout, new RegExp(`${repo}: removed`));
    assert.deepEqual(snapshot(s.dir, gitChurn), before);
  });

  it('without a folder, takes fleet-git out of every repository it recorded, under unrelated folders, byte for byte; a deleted one is gone, not an error', async () => {
    // Neither folder is under the home folder, nor in the config file: only the record knows them.
    const s = sandbox('fleet-git-uninstall-');
    const first = s.repo('work/first');
    const second = s.repo('other/second');
    s.git(second, 'worktree', 'add', '-q', join(s.dir, 'other/second-wt'), '-b', 'wt');
    const deleted = s.repo('tmp/deleted');
    const before = snapshot(s.dir, gitChurn);
    await ok(s, first, 'enable');
    await ok(s, s.dir, 'enable', '--under', join(s.dir, 'other'));
    await ok(s, deleted, 'enable');
    rmSync(join(s.dir, 'tmp'), { recursive: true });
    const records = join(s.env.XDG_DATA_HOME, 'fleet-git', 'repos');
    assert.deepEqual(
      readdirSync(records)
        .map((f) => JSON.parse(readFileSync(join(records, f), 'utf8')).path)
        .sort(),
      [deleted, first, second].sort(),
    );

    const dry = await ok(s, s.dir, 'uninstall', '--dry-run');
    assert.match(dry.stdout, new RegExp(`^${first}: would$`, 'm'));
    assert.match(dry.stdout, new RegExp(`^${second}: would$`, 'm'));
    assert.match(dry.stdout, new RegExp(`would forget ${deleted}, recorded by fleet-git: gone: `));
    assert.match(dry.stdout, /would remove fleet-git's data folder/);
    const doc = JSON.parse((await ok(s, s.dir, 'uninstall', '--dry-run', '--json')).stdout);
    assert.deepEqual(doc.remove.repos.map((r: { path: string }) => r.path).sort(), [first, second].sort());
    assert.deepEqual(
      doc.gone.map((g: { path: string }) => g.path),
      [deleted],
    );
    assert.deepEqual(doc.kept, []);

    const r = await ok(s, s.dir, 'uninstall', '--yes');
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /remove: 2 changed, 0 unchanged, 0 failed \(2 of 2 repositories recorded by fleet-git have/);
    assert.match(r.stdout, new RegExp(`forgot ${deleted}, recorded by fleet-git: gone: `));
    // A gone one may have moved, with fleet-git still in it: "nothing is left" is not known.
    assert.doesNotMatch(r.stdout, /nothing of fleet-git is left/);
    assert.match(r.stdout, /one recorded repository was gone \(forgotten above\): one moved elsewhere still has fleet-git/);
    assert.ok(!existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git')), 'the data folder is gone');
    assert.deepEqual(snapshot(s.dir, gitChurn), Object.fromEntries(Object.entries(before).filter(([k]) => !k.startsWith('tmp'))));
  });

  it('a repository moved since it was enabled: enable there records it again, and uninstall takes it out', async () => {
    const s = sandbox('fleet-git-uninstall-');
    const old = s.repo('code/app');
    const before = snapshot(old, gitChurn);
    await ok(s, old, 'enable');
    const moved = join(s.dir, 'code', 'app-moved');
    renameSync(old, moved);
    const again = await ok(s, moved, 'enable');
    assert.match(again.stdout, /already enabled/);
    const scan = await ok(s, s.dir, 'scan', '--json');
    assert.ok(scan.stdout.includes(JSON.stringify(moved)), `scan lists ${moved}: ${scan.stdout}`);
    const r = await ok(s, s.dir, 'uninstall', '--yes');
    assert.match(r.stdout, new RegExp(`^${moved}: removed$`, 'm'));
    assert.deepEqual(snapshot(moved, gitChurn), before, 'the moved repository came out as it was');
  });

  it('with a folder, names the recorded repositories outside it that still use fleet-git and keeps the data folder their hooks call', async () => {
    const s = sandbox('fleet-git-uninstall-');
    const first = s.repo('work/first');
    const second = s.repo('other/second');
    const before = snapshot(s.dir, gitChurn);
    await ok(s, first, 'enable');
    await ok(s, second, 'enable');
    const data = join(s.env.XDG_DATA_HOME, 'fleet-git');

    const dry = await ok(s, s.dir, 'uninstall', join(s.dir, 'work'), '--dry-run');
    assert.match(dry.stdout, new RegExp(`^${first}: would$`, 'm'));
    assert.doesNotMatch(dry.stdout, new RegExp(`^${second}: would`, 'm'));
    assert.match(dry.stdout, new RegExp(`^${second} \\(recorded by fleet-git, outside .*\\) still uses fleet-git`, 'm'));
    assert.match(dry.stdout, /would keep fleet-git's data folder/);
    assert.doesNotMatch(dry.stdout, /would remove fleet-git's data folder/);
    const doc = JSON.parse((await ok(s, s.dir, 'uninstall', join(s.dir, 'work'), '--dry-run', '--json')).stdout);
    assert.deepEqual(doc.kept, [second]);
    assert.equal(doc.dataDir, null);

    const r = await ok(s, s.dir, 'uninstall', join(s.dir, 'work'), '--yes');
    assert.match(r.stdout, new RegExp(`${second} \\(recorded by fleet-git, outside .*\\) still uses fleet-git and stays as it is`));
    assert.match(r.stdout, /kept fleet-git's data folder .*: fleet-git uninstall with no folder, or with --all, takes it out too/);
    assert.doesNotMatch(r.stdout, /nothing of fleet-git is left/);
    assert.ok(!existsSync(join(first, '.github/hooks/fleet.json')));
    // The second still works: healthy, its hook file calling a data folder that is there.
    const st = await ok(s, second, 'status', '--json');
    assert.equal(JSON.parse(st.stdout).problems.length, 0, st.stdout);
    assert.ok(existsSync(join(data, 'hook.sh')));

    // --all takes the rest, and then the data folder goes.
    const all = await ok(s, s.dir, 'uninstall', join(s.dir, 'work'), '--all', '--yes');
    assert.match(all.stdout, new RegExp(`^${second}: removed`, 'm'));
    assert.match(all.stdout, /nothing of fleet-git is left here/);
    assert.ok(!existsSync(data));
    assert.deepEqual(snapshot(s.dir, gitChurn), before);
    const bad = await s.fleet(s.dir, 'uninstall', '--all', '--yes');
    assert.equal(bad.status, 2);
  });

  it('with a folder that holds a worktree of a repository outside it: that repository is taken out whole, not named as staying', async () => {
    const s = sandbox('fleet-git-uninstall-');
    const inside = s.repo('work/inside');
    const outside = s.repo('other/outside');
    s.git(outside, 'worktree', 'add', '-q', join(s.dir, 'work', 'outside-wt'), '-b', 'wt');
    const before = snapshot(s.dir, gitChurn);
    await ok(s, inside, 'enable');
    await ok(s, outside, 'enable');
    const dry = await ok(s, s.dir, 'uninstall', join(s.dir, 'work'), '--dry-run');
    assert.match(dry.stdout, new RegExp(`^${outside}: would$`, 'm'));
    assert.doesNotMatch(dry.stdout, /still uses fleet-git and stays as it is/);
    assert.match(dry.stdout, /would remove fleet-git's data folder/);
    const r = await ok(s, s.dir, 'uninstall', join(s.dir, 'work'), '--yes');
    assert.doesNotMatch(r.stdout, /stays as it is|kept fleet-git's data folder/);
    assert.match(r.stdout, /nothing of fleet-git is left here/);
    assert.deepEqual(snapshot(s.dir, gitChurn), before);
  });

  it('after an upgrade from a fleet-git that kept no record, without a folder, also looks where that one looked and in the folders it trusted, and says what it cannot know', async () => {
    const s = sandbox('fleet-git-uninstall-');
    const old = s.repo('home/code/old');
    const elsewhere = s.repo('elsewhere/old');
    const later = s.repo('other/later');
    const trusted = s.repo('far/trusted');
    const before = snapshot(s.dir, gitChurn);
    await ok(s, old, 'enable');
    await ok(s, elsewhere, 'enable');
    await ok(s, trusted, 'enable', '--trust');
    // What 0.2.0 left: a data folder with its kit and hook client, and no record.
    rmSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'repos'), { recursive: true });
    const scan = await ok(s, s.dir, 'scan');
    assert.equal(scan.stdout, '');
    assert.match(scan.stderr, /this record of repositories was begun after an upgrade from a fleet-git that kept none/);
    await ok(s, later, 'enable');
    assert.ok(existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git', 'repos', 'begun-after-upgrade')));
    assert.equal((await ok(s, s.dir, 'scan')).stdout, `${later}\thealthy\t-\n`);

    const r = await ok(s, s.dir, 'uninstall', '--yes');
    assert.match(r.stdout, new RegExp(`remove: 3 changed.*recorded by fleet-git or under ${s.home}`));
    assert.ok(!existsSync(join(trusted, '.github')), 'found through the trustedFolders entry fleet-git had added');
    assert.match(r.stdout, /a repository fleet-git 0\.2\.0 or older enabled outside .* is not in its record/);
    assert.doesNotMatch(r.stdout, /nothing of fleet-git is left/);
    assert.ok(existsSync(join(elsewhere, '.github/hooks/fleet.json')), 'not found: outside the home folder, and not recorded');
    await ok(s, elsewhere, 'disable');
    assert.deepEqual(snapshot(s.dir, gitChurn), before);
  });
});
