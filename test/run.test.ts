// fleet-git run and model list, against a fake `copilot` on PATH that records
// its arguments, environment, working folder and the signals it receives
// (fake-copilot.ts).
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fakeCopilot } from './fake-copilot.js';
import { asNobody, CLI, cliForNobody, repeats, sandbox } from './helpers.js';
import { start } from './spawn.js';

const KEY = 'github_pat_SECRET_never_printed_123';

function setup(models: unknown, opts: { forOthers?: boolean } = {}) {
  const sb = sandbox('fleet-git-test-', opts);
  const { bin, log, env, paths, recorded } = fakeCopilot(sb, models);
  const repo = sb.repo('proj');
  const cli = (args: string[], extra: Record<string, string> = {}, input = '') => {
    return start(process.execPath, [CLI, ...args], { cwd: repo, env: { ...env, ...extra }, input });
  };
  return { sb, env, repo, log, paths, cli, recorded, bin };
}

const PROFILES = {
  models: [
    { name: 'work-gpt', tool: 'copilot', model: 'gpt-4.1', apiKey: KEY, env: { EXTRA_VAR: 'x y' }, args: ['--no-auto-update'] },
    { name: 'claude-one', model: 'opus', apiKey: 'sk-ant-OTHERSECRET' },
  ],
  pools: [],
};

/** Waits for `p` to exist; throws, naming it, after a limit that only stops a hung test. */
async function waitFile(p: string, limitMs = 60_000) {
  const deadline = Date.now() + limitMs;
  while (!existsSync(p)) {
    if (Date.now() > deadline) throw new Error(`${p} did not appear within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('fleet-git run', () => {
  test('starts copilot with the profile args and env, in a repository it enabled and trusted', async () => {
    const t = setup(PROFILES);
    const r = await t.cli(['run', '--proxy', 'http://127.0.0.1:3128', '--', '-p', 'hello', '--exit', '7']).done;
    assert.equal(r.code, 7, r.stderr);
    const rec = t.recorded();
    assert.deepEqual(rec.argv, ['--allow-all', '--no-auto-update', '-p', 'hello', '--exit', '7']);
    assert.equal(rec.cwd, t.repo);
    assert.equal(rec.env.FLEET_MODEL_NAME, 'work-gpt');
    assert.equal(rec.env.COPILOT_MODEL, 'gpt-4.1');
    assert.equal(rec.env.COPILOT_GITHUB_TOKEN, KEY);
    assert.equal(rec.env.EXTRA_VAR, 'x y');
    assert.equal(rec.env.HTTP_PROXY, 'http://127.0.0.1:3128');
    assert.equal(rec.env.HTTPS_PROXY, 'http://127.0.0.1:3128');
    assert.ok(existsSync(join(t.repo, '.github/hooks/fleet.json')), 'the repository was enabled');
    const config = JSON.parse(readFileSync(join(t.sb.env.COPILOT_HOME, 'config.json'), 'utf8'));
    assert.deepEqual(config.trustedFolders, [t.repo]);
    assert.ok(!(r.stdout + r.stderr).includes(KEY));
    // A second run changes nothing and says nothing.
    const again = await t.cli(['run', '--model', 'work-gpt']).done;
    assert.equal(again.code, 0);
    assert.equal(again.stderr, '');
  });

  test('four runs at once in a repository with a post-checkout hook of its own: each starts copilot, the repository is enabled once (repeated)', async () => {
    const t = setup(PROFILES);
    for (let round = 0; round < repeats(8); round++) {
      const repo = t.sb.repo(`four-${round}`);
      const hook = join(repo, '.git/hooks/post-checkout');
      writeFileSync(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const runs = await Promise.all([0, 1, 2, 3].map(() => t.cli(['run', '--cwd', repo, '--', '-p', 'hi']).done));
      for (const r of runs) assert.equal(r.code, 0, `round ${round}: ${r.stderr}`);
      assert.equal(runs.filter((r) => /installed the post-checkout hook/.test(r.stdout + r.stderr)).length, 1, `round ${round}`);
      assert.equal(readFileSync(`${hook}.fleet-git-prev`, 'utf8'), '#!/bin/sh\nexit 0\n');
      assert.equal(t.sb.git(repo, 'status', '--porcelain', '--untracked-files=all'), '', `round ${round}`);
      assert.ok(readFileSync(join(repo, '.git/info/exclude'), 'utf8').includes('fleet-git'));
    }
  });

  test('--cwd starts copilot in that folder', async () => {
    const t = setup(PROFILES);
    const other = t.sb.repo('other');
    const r = await t.cli(['run', '--cwd', other]).done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(t.recorded().cwd, other);
    assert.ok(existsSync(join(other, '.github/hooks/fleet.json')));
  });

  for (const [sig, n] of [
    ['SIGTERM', 15],
    ['SIGHUP', 1],
    ['SIGINT', 2],
  ] as const) {
    test(`passes ${sig} on; a signal death gives 128+${n}`, async () => {
      const t = setup(PROFILES);
      const run = t.cli(['run', '--', '--wait', '--die']);
      await waitFile(`${t.log}.ready`);
      run.child.kill(sig);
      const r = await run.done;
      assert.deepEqual(t.recorded().signals, [sig]);
      assert.equal(r.code, 128 + n, r.stderr);
    });
  }

  test('a child that handles the signal and exits: its code', async () => {
    const t = setup(PROFILES);
    const run = t.cli(['run', '--', '--wait']);
    await waitFile(`${t.log}.ready`);
    run.child.kill('SIGTERM');
    const r = await run.done;
    assert.equal(r.code, 40);
  });

  test('errors are one line, exit 2, never a key', async () => {
    const cases: Array<[unknown, string[], RegExp, Record<string, string>?]> = [
      [PROFILES, ['run', '--model', 'nope'], /no model profile named 'nope'.*work-gpt/],
      [PROFILES, ['run', '--model', 'claude-one'], /'claude-one' is for claude, not copilot/],
      ['{ "models": [ {"name": "x", "apiKey": "' + KEY + '", } ] }', ['run'], /models\.json is not valid JSON/],
      [{ nope: 1 }, ['run'], /has no "models" list/],
      [{ models: [{ name: 'c', model: 'opus' }] }, ['run'], /no Copilot model profile/],
      [
        {
          models: [
            { name: 'a', tool: 'copilot', apiKey: KEY },
            { name: 'b', tool: 'copilot' },
          ],
        },
        ['run'],
        /several Copilot model profiles \(a, b\): choose one with --model NAME/,
      ],
      [PROFILES, ['run'], /Copilot CLI is not installed.*npm install -g @github\/copilot/, { PATH: '/usr/bin:/bin' }],
    ];
    for (const [models, args, re, extra] of cases) {
      const t = setup(models);
      const r = await t.cli(args, extra).done;
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(!(r.stdout + r.stderr).includes(KEY));
      assert.ok(!existsSync(t.log), 'copilot was not started');
    }
  });

  test('an unreadable models.json is one line', async () => {
    const t = setup(PROFILES, { forOthers: true });
    chmodSync(t.paths.fleetModels, 0);
    // Root reads it anyway: as root, fleet-git runs as nobody (setpriv, as test/permissions.test.ts does), the
    // folders above the file open to others, so that the file's own mode is what stops it.
    const root = process.getuid?.() === 0;
    if (root) chmodSync(t.sb.dir, 0o711);
    const argv = asNobody([process.execPath, cliForNobody(), 'run']);
    const r = await start(argv[0]!, argv.slice(1), { cwd: t.repo, env: t.env }).done;
    chmodSync(t.paths.fleetModels, 0o644);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /cannot be read: permission denied;/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(!existsSync(t.log), 'copilot was not started');
  });
});

describe('fleet-git model list', () => {
  test('names, models, whether a token is set, never the token', async () => {
    const t = setup({ models: [...PROFILES.models, { name: 'anon', tool: 'copilot' }] });
    const r = await t.cli(['model', 'list']).done;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^NAME +MODEL +TOKEN\nwork-gpt +gpt-4\.1 +set\nanon +- +not set\n\(1 profile for other tools not shown\)\n$/);
    assert.ok(!r.stdout.includes(KEY) && !r.stdout.includes('OTHERSECRET'));
    const j = await t.cli(['model', 'list', '--json']).done;
    assert.deepEqual(JSON.parse(j.stdout), [
      { name: 'work-gpt', model: 'gpt-4.1', token: true, proxy: false },
      { name: 'anon', model: null, token: false, proxy: false },
    ]);
  });

  test('no file: says so, exit 0', async () => {
    const t = setup(undefined);
    const r = await t.cli(['model', 'list']).done;
    assert.equal(r.code, 0);
    assert.match(r.stdout, /no Copilot model profiles/);
  });
});
