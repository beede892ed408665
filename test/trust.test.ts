// Copilot trust (trustedFolders in $COPILOT_HOME/config.json) and the
// user-level hook file ($COPILOT_HOME/hooks/fleet.json), the commands run in-process.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, test } from 'node:test';
import { FolderIndex, TRUST_LOCK, readTrustRecord, trustedFolders } from '../src/copilot/trust.js';
import { userPaths } from '../src/paths.js';
import { repeats, sandbox } from './helpers.js';
import { runCli } from './spawn.js';
import { runClient } from './hook-run.js';
import type { UserPaths } from '../src/paths.js';

/** The listed folder that covers `path` in config.json as it is now, or null. */
const trustedBy = (paths: UserPaths, path: string) => new FolderIndex(trustedFolders(paths)).by(path);

describe('enable --trust and disable', () => {
  test('adds the root keeping every other key, and disable removes only what fleet-git added', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
    const before = { version: 1, banner: 'never', model: 'gpt-4.1', trustedFolders: ['/somewhere/else'], nested: { a: [1, { b: null }] } };
    writeFileSync(config, JSON.stringify(before));
    let r = await sb.fleet(repo, 'enable', '--trust');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Copilot now trusts/);
    const after = JSON.parse(readFileSync(config, 'utf8'));
    assert.deepEqual(after, { ...before, trustedFolders: ['/somewhere/else', repo] });
    assert.deepEqual(Object.keys(after), Object.keys(before));
    r = await sb.fleet(repo, 'status');
    assert.match(r.stdout, /Copilot trusts this folder \(listed in/);
    const st = JSON.parse((await sb.fleet(repo, 'status', '--json')).stdout);
    assert.deepEqual(
      Object.keys(st),
      ['path', 'kind', 'enabled', 'problems', 'worktrees', 'copilot'],
      'the copilot key is added after the existing ones',
    );
    assert.deepEqual(st.copilot, { trusted: true, hooks: 'repo' });
    // Enabling again changes nothing.
    r = await sb.fleet(repo, 'enable', '--trust');
    assert.match(r.stdout, /already enabled, nothing changed/);
    // The user adds an entry of their own meanwhile; disable keeps it.
    writeFileSync(config, JSON.stringify({ ...after, trustedFolders: [...after.trustedFolders, '/mine'], added: true }));
    r = await sb.fleet(repo, 'disable');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /removed .* from trustedFolders/);
    assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')), { ...before, trustedFolders: ['/somewhere/else', '/mine'], added: true });
    assert.match((await sb.fleet(repo, 'status')).stdout, /Copilot does not trust this folder: .*copilot -p sessions silently skip/);
  });

  test('a linked worktree outside the repository folder is trusted too, and taken out again', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    sb.git(repo, 'commit', '-q', '--allow-empty', '-m', 'one');
    const outside = join(sb.dir, 'proj-feature');
    const inside = join(repo, 'wt', 'inner');
    sb.git(repo, 'worktree', 'add', '-q', '-b', 'feature', outside);
    sb.git(repo, 'worktree', 'add', '-q', '-b', 'inner', inside);
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    const r = await sb.fleet(repo, 'enable', '--trust');
    assert.equal(r.status, 0, r.stderr);
    // The worktree inside the repository is covered by the repository's entry.
    assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')).trustedFolders, [repo, outside]);
    const paths = userPaths(sb.env, sb.home);
    assert.equal(trustedBy(paths, outside), outside);
    assert.equal(trustedBy(paths, inside), repo);
    const d = await sb.fleet(repo, 'disable');
    assert.equal(d.status, 0, d.stderr);
    assert.ok(!existsSync(config), 'fleet-git made the file, and takes it away with its last entry');
  });

  test('several repositories named at once: config.json written once by enable and once by disable', async () => {
    const sb = sandbox();
    const repos = ['p1', 'p2', 'p3'].map((n) => sb.repo(n));
    const home = sb.env.COPILOT_HOME;
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.json'), '{}\n');
    const en = await renamesOnto(home, 'config.json', async () => await sb.fleet(sb.dir, 'enable', '--trust', ...repos));
    assert.equal(en.result.status, 0, en.result.stderr);
    assert.equal(en.count, 1);
    assert.deepEqual(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).trustedFolders, repos);
    const dis = await renamesOnto(home, 'config.json', async () => await sb.fleet(sb.dir, 'disable', ...repos));
    assert.equal(dis.result.status, 0, dis.result.stderr);
    assert.equal(dis.count, 1);
    assert.equal((dis.result.stdout.match(/from trustedFolders/g) ?? []).length, 3);
  });

  test('a folder the user trusted (itself or a parent) is not added, and disable leaves it', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
    const text = JSON.stringify({ trustedFolders: [sb.dir] }, null, 4);
    writeFileSync(config, text);
    await sb.fleet(repo, 'enable', '--trust');
    assert.equal(readFileSync(config, 'utf8'), text);
    assert.match((await sb.fleet(repo, 'status')).stdout, /Copilot trusts this folder \(through /);
    await sb.fleet(repo, 'disable');
    assert.equal(readFileSync(config, 'utf8'), text);
    assert.equal(trustedBy(userPaths(sb.env, sb.home), `${sb.dir}x/y`), null, 'a prefix is not a parent');
  });

  test("Copilot's own file, comment lines above the JSON: kept, keys kept", async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
    const head = '// User settings belong in settings.json.\n// This file is managed automatically.\n';
    writeFileSync(config, `${head}{\n  "firstLaunchAt": "2026-11-29T18:18:29.902Z"\n}\n`);
    assert.equal((await sb.fleet(repo, 'enable', '--trust')).status, 0);
    assert.equal(
      readFileSync(config, 'utf8'),
      `${head}{\n  "firstLaunchAt": "2026-11-29T18:18:29.902Z",\n  "trustedFolders": [\n    ${JSON.stringify(repo)}\n  ]\n}\n`,
    );
    assert.equal((await sb.fleet(repo, 'disable')).status, 0);
    // fleet-git created the key: with its last entry gone, the key goes too.
    assert.equal(readFileSync(config, 'utf8'), `${head}{\n  "firstLaunchAt": "2026-11-29T18:18:29.902Z"\n}\n`);
  });

  test('comments inside the JSON and trailing commas (JSONC, as Copilot reads it) survive enable --trust and disable byte for byte', async () => {
    const sb = sandbox();
    const [a, b] = [sb.repo('a'), sb.repo('b')];
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
    const own = join(sb.dir, 'own');
    // Entries are added and taken out as text: every comment stays, and the file comes back byte for byte.
    for (const list of [`[\n    ${JSON.stringify(own)}, // mine\n  ]`, `[${JSON.stringify(own)},]`]) {
      const text = `// User settings belong in settings.json.\n{\n  /* the model */ "model": "m", // inline\n  "trustedFolders": ${list},\n  "x": {"y": 1,},\n}\n`;
      writeFileSync(config, text);
      assert.equal((await sb.fleet(a, 'enable', '--trust')).status, 0);
      assert.equal((await sb.fleet(b, 'enable', '--trust')).status, 0);
      const edited = readFileSync(config, 'utf8');
      for (const kept of ['/* the model */ "model": "m", // inline', '"x": {"y": 1,},', '// User settings'])
        assert.ok(edited.includes(kept), edited);
      if (list.includes('// mine')) assert.ok(edited.includes('// mine'), edited);
      assert.deepEqual(new Set(trustedFolders(userPaths(sb.env, sb.home))), new Set([own, a, b]));
      assert.equal((await sb.fleet(a, 'disable')).status, 0);
      assert.equal((await sb.fleet(b, 'disable')).status, 0);
      assert.equal(readFileSync(config, 'utf8'), text, 'back to the same bytes');
    }
  });

  test('uninstall gives back a one-line, a commented and an indented config.json byte for byte, with and without the key', async () => {
    const sb = sandbox();
    const [a, b] = [sb.repo('code/a'), sb.repo('code/b')];
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    const texts = [
      '{"trustedFolders":["/elsewhere"],"model":"x"}',
      '{"model":"x"}',
      '{}',
      '// User settings belong in settings.json.\n{\n  /* the model */ "model": "m", // inline\n  "trustedFolders": [\n    "/elsewhere" // mine\n  ], "x": {"y": 1,},\n}\n',
      '{\n    "model": "m", // the last key\n}\n',
      '{\n\t"trustedFolders": [\n\t\t"/elsewhere",\n\t],\n\t"model": "m"\n}\n',
      '{\n    "trustedFolders": [],\n    "model": "m"\n}',
      '{"trustedFolders": ["/elsewhere" /* a, b */], "model": "m"}',
    ];
    for (const text of texts) {
      mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
      writeFileSync(config, text);
      for (const [repo, args] of [
        [a, ['enable', '--trust']],
        [b, ['enable', '--trust']],
        [sb.dir, ['uninstall', join(sb.dir, 'code'), '--yes']],
        [sb.dir, ['enable', '--under', join(sb.dir, 'code'), '--trust']],
        [sb.dir, ['uninstall', join(sb.dir, 'code'), '--yes']],
      ] as const) {
        const r = await sb.fleet(repo, ...args);
        assert.equal(r.status, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
        if (args[0] === 'enable') {
          assert.ok(trustedFolders(userPaths(sb.env, sb.home)).includes(repo === sb.dir ? a : repo), readFileSync(config, 'utf8'));
        } else assert.equal(readFileSync(config, 'utf8'), text, `${JSON.stringify(text)}: ${args[0]} gives back every byte`);
      }
    }
  });

  test('enable without --trust says once that Copilot does not trust the repository yet, and how; not when it does or the user level reports', async () => {
    const sb = sandbox();
    const note =
      /^note: Copilot does not trust (.*) yet: copilot -p sessions skip its hooks, saying nothing, and interactive ones ask once; (.*) lists (it|them) in Copilot's trustedFolders$/gm;
    const notes = (out: string) => [...out.matchAll(note)].map((m) => `${m[1]} | ${m[2]}`);
    const [a, b] = [sb.repo('code/a'), sb.repo('code/b')];
    let r = await sb.fleet(a, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(notes(r.stdout), ['this repository | fleet-git enable --trust']);
    r = await sb.fleet(a, 'enable', a, b);
    assert.deepEqual(notes(r.stdout), [`2 of these repositories (${a}, ...) | fleet-git enable --trust`]);
    r = await sb.fleet(sb.dir, 'enable', '--under', join(sb.dir, 'code'));
    assert.deepEqual(notes(r.stdout), [`2 of these repositories (${a}, ...) | fleet-git enable --under ${join(sb.dir, 'code')} --trust`]);
    assert.deepEqual(notes((await sb.fleet(a, 'enable', '-q')).stdout), [], 'quiet');
    assert.equal((await sb.fleet(a, 'enable', '--trust')).status, 0);
    assert.deepEqual(notes((await sb.fleet(a, 'enable')).stdout), [], 'trusted now');
    assert.deepEqual(notes((await sb.fleet(a, 'enable', a, b)).stdout), [`1 of these repositories (${b}) | fleet-git enable --trust`]);
    assert.equal((await sb.fleet(b, 'enable', '--user')).status, 0);
    assert.deepEqual(notes((await sb.fleet(b, 'enable')).stdout), [], 'the user-level hook file reports it anyway');
    const help = await sb.fleet(sb.dir, 'help', 'enable');
    // The first example (its label may take two lines).
    assert.match(help.stdout, /Examples\n\n[^$]*\n\s+\$ fleet-git enable --trust\n/, 'help enable leads with enable --trust');
  });

  test('a trustedFolders key the user had stays, empty, after disable', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
    writeFileSync(config, JSON.stringify({ trustedFolders: [], model: 'm' }));
    assert.equal((await sb.fleet(repo, 'enable', '--trust')).status, 0);
    assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')).trustedFolders, [repo]);
    assert.equal((await sb.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')), { trustedFolders: [], model: 'm' });
  });

  test('no config.json yet: created; an invalid one is left alone with one line', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    assert.equal((await sb.fleet(repo, 'enable', '--trust')).status, 0);
    assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')), { trustedFolders: [repo] });
    await sb.fleet(repo, 'disable');
    assert.ok(!existsSync(config), 'the file fleet-git created, with nothing else in it, is gone');
    assert.ok(!existsSync(sb.env.COPILOT_HOME), 'and the folder it made for it');
    mkdirSync(sb.env.COPILOT_HOME);
    writeFileSync(config, '{ "trustedFolders": [ }');
    const r = await sb.fleet(repo, 'enable', '--trust');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /config\.json is not valid JSON: fleet-git leaves it alone/);
    assert.equal(readFileSync(config, 'utf8'), '{ "trustedFolders": [ }');
    assert.ok(!existsSync(join(repo, '.github')), 'read before anything changed: the repository was not enabled');
  });

  test('an invalid config.json: status, enable and doctor say to fix it first, never to run the enable --trust that refuses; doctor fails', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    mkdirSync(sb.env.COPILOT_HOME);
    writeFileSync(config, '{ "trustedFolders": [ }');
    const first = `fix ${config} first: it is not valid JSON, so fleet-git enable --trust would refuse to change it`;
    const e = await sb.fleet(repo, 'enable');
    assert.equal(e.status, 0, e.stderr);
    assert.ok(e.stdout.includes(`interactive ones ask once; ${first}\n`), e.stdout);
    const st = await sb.fleet(repo, 'status');
    assert.ok(st.stdout.includes(`copilot -p sessions silently skip its repository hooks (${first})\n`), st.stdout);
    assert.doesNotMatch(e.stdout + st.stdout, /enable --trust lists/);
    const d = await sb.fleet(repo, 'doctor', '--json');
    const check = JSON.parse(d.stdout).checks.find((c: { id: string }) => c.id === 'repo-trust');
    assert.deepEqual(check, {
      id: 'repo-trust',
      level: 'fault',
      message: `${repo}: Copilot does not trust it, so copilot -p sessions silently skip its hooks (interactive ones ask once); ${first}`,
    });
    assert.equal(readFileSync(config, 'utf8'), '{ "trustedFolders": [ }', 'left as it was');
  });
});

/** How many times `name` in `dir` was replaced (an atomic write is one rename onto it) while `fn` ran. */
async function renamesOnto<T>(dir: string, name: string, fn: () => Promise<T>): Promise<{ result: T; count: number }> {
  let count = 0;
  // The watcher's events come in order: once a mark made after `fn` is seen, every rename before it was counted.
  const mark = join(dir, '.renames-counted');
  let seen = () => {};
  const w = watch(dir, (_event, file) => {
    if (file === name) count++;
    else if (file === basename(mark)) seen();
  });
  const markSeen = () =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the watcher of ${dir} saw no event of ${mark} within 10 s`)), 10_000);
      seen = () => {
        clearTimeout(t);
        resolve();
      };
    });
  try {
    const result = await fn();
    let s = markSeen();
    writeFileSync(mark, '');
    await s;
    // Taken out while the watcher still runs, so that no event of it is left for the next watcher of the folder.
    s = markSeen();
    rmSync(mark);
    await s;
    return { result, count };
  } finally {
    w.close();
  }
}

describe('trust edits at once', () => {
  test("six enable --trust at once in six repositories: every entry is listed and recorded, the user's keys kept; six disables at once take them all out (repeated)", async () => {
    const sb = sandbox();
    const paths = userPaths(sb.env, sb.home);
    const config = join(sb.env.COPILOT_HOME, 'config.json');
    mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
    const before = { banner: 'never', trustedFolders: ['/mine'] };
    writeFileSync(config, JSON.stringify(before, null, 2));
    const repos = Array.from({ length: 6 }, (_, i) => sb.repo(`at-once-${i}`));
    const all = (args: string[]) =>
      Promise.all(
        repos.map(async (repo) => {
          const r = await runCli(args, { cwd: repo, env: sb.env });
          return { status: r.code, stderr: r.stderr };
        }),
      );
    for (let round = 0; round < repeats(4); round++) {
      for (const r of await all(['enable', '--trust'])) assert.equal(r.status, 0, r.stderr);
      const doc = JSON.parse(readFileSync(config, 'utf8'));
      assert.equal(doc.banner, 'never', `round ${round}`);
      assert.deepEqual([...doc.trustedFolders].sort(), ['/mine', ...repos].sort(), `round ${round}: no entry lost`);
      assert.deepEqual(readTrustRecord(paths).sort(), [...repos].sort(), `round ${round}: every entry recorded`);
      for (const r of await all(['disable'])) assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')), before, `round ${round}: all taken out, the user's kept`);
      assert.deepEqual(readTrustRecord(paths), [], `round ${round}`);
    }
    assert.ok(!existsSync(join(paths.dataDir, TRUST_LOCK)), 'no lock left');
  });
});

describe('enable --under ROOT --trust, and remove', () => {
  test('trusts every repository in one write of config.json, keeping its comment lines and keys; remove takes out only those, in one write', async () => {
    const sb = sandbox();
    const root = join(sb.dir, 'code');
    const repos = ['a', 'b', 'c/d'].map((n) => sb.repo(`code/${n}`));
    // A linked worktree beside its repository, outside its folder: trusted on its own.
    sb.git(repos[0], 'commit', '-q', '--allow-empty', '-m', 'one');
    const wt = join(root, 'a-wt');
    sb.git(repos[0], 'worktree', 'add', '-q', '-b', 'wt', wt);
    const outside = sb.repo('outside');
    const home = sb.env.COPILOT_HOME;
    const config = join(home, 'config.json');
    mkdirSync(home, { recursive: true });
    const head = '// User settings belong in settings.json.\n// This file is managed automatically.\n';
    const doc = { firstLaunchAt: 'x', trustedFolders: ['/elsewhere'], nested: { a: [1, { b: null }] }, zlast: true };
    writeFileSync(config, `${head}${JSON.stringify(doc, null, 2)}\n`);
    assert.equal((await sb.fleet(outside, 'enable', '--trust')).status, 0);

    const en = await renamesOnto(home, 'config.json', async () => await sb.fleet(sb.dir, 'enable', '--under', root, '--trust'));
    assert.equal(en.result.status, 0, en.result.stderr);
    assert.equal(en.count, 1, 'one write of config.json for the whole run');
    assert.match(
      en.result.stdout,
      /Copilot now trusts 4 more folders \(repositories and worktrees outside them; added to trustedFolders in /,
    );
    const text = readFileSync(config, 'utf8');
    assert.ok(text.startsWith(head), 'the comment lines stay');
    const after = JSON.parse(text.slice(head.length));
    assert.deepEqual(Object.keys(after), Object.keys(doc));
    assert.deepEqual(after, { ...doc, trustedFolders: ['/elsewhere', outside, repos[0], wt, repos[1], repos[2]] });
    const scan = JSON.parse((await sb.fleet(sb.dir, 'scan', root, '--json')).stdout);
    assert.deepEqual(
      scan.repos.map((r: any) => r.copilot),
      repos.map(() => ({ trusted: true, hooks: 'repo' })),
    );

    // Again: nothing to add, no write.
    const again = await renamesOnto(home, 'config.json', async () => await sb.fleet(sb.dir, 'enable', '--under', root, '--trust'));
    assert.equal(again.count, 0);
    assert.doesNotMatch(again.result.stdout, /Copilot now trusts/);
    assert.match(again.result.stdout, /0 changed, 3 unchanged/);

    // The user lists a folder of their own; remove keeps it, and the entry of the repository outside ROOT.
    writeFileSync(config, `${head}${JSON.stringify({ ...after, trustedFolders: [...after.trustedFolders, '/mine'] }, null, 2)}\n`);
    const dry = await sb.fleet(sb.dir, 'remove', root, '--dry-run');
    assert.match(dry.stdout, /take it out of Copilot's trustedFolders/);
    const rm = await renamesOnto(home, 'config.json', async () => await sb.fleet(sb.dir, 'remove', root, '--yes'));
    assert.equal(rm.result.status, 0, rm.result.stderr);
    assert.equal(rm.count, 1, 'one write of config.json for the whole run');
    assert.match(rm.result.stdout, /took 4 entries fleet-git had added out of trustedFolders/);
    assert.match(
      rm.result.stdout,
      new RegExp(`^${join(root, 'a')}: removed$`, 'm'),
      'one line for the repository, its worktree entry included',
    );
    assert.equal(
      readFileSync(config, 'utf8'),
      `${head}${JSON.stringify({ ...doc, trustedFolders: ['/elsewhere', outside, '/mine'] }, null, 2)}\n`,
    );
    assert.deepEqual(readTrustRecord(userPaths(sb.env, sb.home)), [outside]);
  });

  test('a config.json fleet-git cannot rewrite stops enable --under --trust before anything changes: one line, exit 1', async () => {
    const sb = sandbox();
    const root = join(sb.dir, 'code');
    const repo = sb.repo('code/a');
    mkdirSync(sb.env.COPILOT_HOME, { recursive: true });
    writeFileSync(join(sb.env.COPILOT_HOME, 'config.json'), '{ "trustedFolders": "all" }');
    const r = await sb.fleet(sb.dir, 'enable', '--under', root, '--trust');
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^fleet-git: .*config\.json has a trustedFolders that is not a list: fleet-git leaves it alone \(fix it, then run this again\)\n$/,
    );
    assert.ok(!existsSync(join(repo, '.github')), 'no repository was enabled');
  });
});

/** The client run on a postToolUse from one hook file's folder (COPILOT_HOOK_DIR), or with none. */
function runFrom(env: Record<string, string>, hookDir: string | null, input: string) {
  return runClient(hookDir ? { ...env, COPILOT_HOOK_DIR: hookDir } : env, ['postToolUse'], input);
}

describe('enable --user and disable --user', () => {
  test('status with a user-level hook file it cannot read: says so, exit 0', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    mkdirSync(join(sb.env.COPILOT_HOME, 'hooks', 'fleet.json'), { recursive: true }); // a folder where the file goes
    const r = await sb.fleet(repo, 'status');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /user-level hooks: .*fleet\.json cannot be read/);
  });

  test('installs the same bytes at $COPILOT_HOME/hooks/fleet.json and removes only its own', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const file = join(sb.env.COPILOT_HOME, 'hooks', 'fleet.json');
    let r = await sb.fleet(repo, 'enable', '--user');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!existsSync(join(repo, '.github')), 'enable --user alone leaves the repository alone');
    await sb.fleet(repo, 'enable');
    assert.equal(readFileSync(file, 'utf8'), readFileSync(join(repo, '.github/hooks/fleet.json'), 'utf8'));
    assert.match((await sb.fleet(repo, 'status')).stdout, /user-level hooks: installed/);
    r = await sb.fleet(repo, 'disable', '--user');
    assert.equal(r.status, 0);
    assert.ok(!existsSync(file));
    assert.ok(!existsSync(join(sb.env.COPILOT_HOME, 'hooks')), 'the folder it created is gone');
    assert.match((await sb.fleet(repo, 'status')).stdout, /user-level hooks: not installed/);
    mkdirSync(join(sb.env.COPILOT_HOME, 'hooks'), { recursive: true });
    writeFileSync(file, '{"hooks":{}}');
    r = await sb.fleet(repo, 'enable', '--user');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /was not written by fleet-git/);
    r = await sb.fleet(repo, 'disable', '--user');
    assert.equal(r.status, 1);
    assert.equal(readFileSync(file, 'utf8'), '{"hooks":{}}');
  });

  test('the hook client: a repository-level run is silent while the user-level file exists, a user-level run reports', async () => {
    const sb = sandbox();
    const repo = sb.repo('proj');
    const paths = userPaths(sb.env, sb.home);
    const { TestObserver } = await import('./observer-server.js');
    const obs = await TestObserver.start(paths.fleetSocket);
    try {
      const payload = (id: string) =>
        JSON.stringify({
          sessionId: id,
          timestamp: 1,
          cwd: repo,
          toolName: 'bash',
          toolArgs: { command: 'ls' },
          toolResult: { resultType: 'success', textResultForLlm: '' },
        });
      const repoDir = join(repo, '.github', 'hooks');
      const userDir = join(sb.env.COPILOT_HOME, 'hooks');
      // No user-level file: the repository level reports.
      await runFrom(sb.env, repoDir, payload('s1'));
      await sb.fleet(repo, 'enable', '--user');
      await runFrom(sb.env, repoDir, payload('s2'));
      await runFrom(sb.env, userDir, payload('s3'));
      await runFrom(sb.env, null, payload('s4'));
      await obs.waitFor((e) => e.session_id === 's4');
      await obs.drained(); // every client has exited: all they sent has been read
      assert.deepEqual(
        obs.events.map((e) => e.session_id),
        ['s1', 's3', 's4'],
      );
    } finally {
      await obs.close();
    }
  });
});
