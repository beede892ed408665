// Paths with spaces, quotes, $(...), backticks, newlines and non-ASCII
// characters work everywhere fleet-git writes them, and nothing in them runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { sandbox, snapshot } from './helpers.js';

const HOOK = '.github/hooks/fleet.json';
const NAMES = ['it\'s a "repo" with spaces', 'sub $(touch pwned) `touch pwned2` $HOME', 'new\nline', 'ünïcødé-日本'];

it('hostile repository and data paths: enable, worktree add, the hook command, disable; nothing is executed', async () => {
  const s = sandbox();
  // The per-user data folder gets a hostile name too: it is inside every hook command.
  s.env.XDG_DATA_HOME = join(s.dir, "data $(touch pwned3) 'q' `x`");
  mkdirSync(s.env.XDG_DATA_HOME, { recursive: true });
  for (const name of NAMES) {
    const repo = s.repo(name);
    const before = snapshot(repo, (r) => /(^|\/)\.git\/(index|logs|COMMIT_EDITMSG|packed-refs)$/.test(r));
    const r = await s.fleet(repo, 'enable');
    assert.equal(r.status, 0, `${JSON.stringify(name)}: ${r.stderr}`);
    const wt = `${repo} wt`;
    s.git(repo, 'worktree', 'add', '-q', wt, '-b', 'w');
    assert.equal(readFileSync(join(wt, HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'), JSON.stringify(name));
    // Run one hook command the way Copilot does, with no observer listening.
    const doc = JSON.parse(readFileSync(join(repo, HOOK), 'utf8'));
    const cmd: string = doc.hooks.postToolUse[0].bash;
    const run = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', cmd], {
      cwd: repo,
      env: s.env,
      input: '{"sessionId":"s1","timestamp":1,"cwd":"/x","toolName":"bash","toolArgs":{"command":"ls"}}',
      encoding: 'utf8',
    });
    assert.equal(run.status, 0);
    assert.equal(run.stdout, '');
    s.git(repo, 'worktree', 'remove', '--force', wt);
    s.git(repo, 'branch', '-q', '-D', 'w');
    assert.equal((await s.fleet(repo, 'disable')).status, 0);
    assert.deepEqual(
      snapshot(repo, (r) => /(^|\/)\.git\/(index|logs|COMMIT_EDITMSG|packed-refs)$/.test(r)),
      before,
      JSON.stringify(name),
    );
  }
  const everywhere = (dir: string): string[] => readdirSync(dir, { withFileTypes: true, recursive: true }).map((e) => e.name);
  for (const bad of ['pwned', 'pwned2', 'pwned3']) assert.ok(!everywhere(s.dir).includes(bad), `${bad} was never created`);
  assert.ok(!existsSync(join(process.cwd(), 'pwned')));
});

it('a hook command whose hook client is missing exits 0 and prints nothing', async () => {
  const s = sandbox();
  const repo = s.repo('missing-client');
  await s.fleet(repo, 'enable');
  const doc = JSON.parse(readFileSync(join(repo, HOOK), 'utf8'));
  spawnSync('rm', ['-rf', join(s.env.XDG_DATA_HOME, 'fleet-git')]);
  for (const [, entries] of Object.entries<any[]>(doc.hooks)) {
    const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', entries[0].bash], {
      cwd: repo,
      env: s.env,
      input: '{}',
      encoding: 'utf8',
    });
    assert.equal(r.status, 0);
    assert.equal(r.stdout + r.stderr, '');
  }
  // and with no node on PATH at all
  const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', doc.hooks.sessionStart[0].bash], {
    cwd: repo,
    env: { ...s.env, PATH: '/nonexistent' },
    input: '{}',
    encoding: 'utf8',
  });
  assert.equal(r.status, 0);
  assert.equal(r.stdout + r.stderr, '');
});
