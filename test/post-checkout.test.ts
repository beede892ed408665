// The post-checkout hook (shell) and enable (TypeScript) write the same bytes:
// the hook file, and the exclude block, also when git's info/ folder is missing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { EXCLUDE_BLOCK, addExcludeBlock } from '../src/core/exclude.js';
import { sandbox } from './helpers.js';

const HOOK = '.github/hooks/fleet.json';

it('puts the exclude block back exactly as enable writes it, before the user text', () => {
  const s = sandbox();
  const repo = s.repo('pc');
  s.cli(repo, 'enable');
  writeFileSync(join(repo, '.git/info/exclude'), '# mine\n*.log');
  s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'pc-wt'), '-b', 'w');
  assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), `${EXCLUDE_BLOCK}# mine\n*.log`);
  assert.equal(s.git(join(s.dir, 'pc-wt'), 'status', '--porcelain'), '');
});

it('appends the exclude block to a user text that ends with a newline, as enable does', () => {
  const s = sandbox();
  const repo = s.repo('pc-append');
  s.cli(repo, 'enable');
  writeFileSync(join(repo, '.git/info/exclude'), '# mine\n*.log\n');
  s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'pc-append-wt'), '-b', 'w');
  assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), `# mine\n*.log\n${EXCLUDE_BLOCK}`);
  assert.equal(addExcludeBlock('# mine\n*.log\n'), `# mine\n*.log\n${EXCLUDE_BLOCK}`, 'the bytes enable would write');
  assert.equal(s.git(join(s.dir, 'pc-append-wt'), 'status', '--porcelain'), '');
  assert.equal(readFileSync(join(s.dir, 'pc-append-wt', HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
});

it('creates info/exclude when git has none, and disable removes only what it created', () => {
  const s = sandbox();
  const repo = s.repo('pc-info');
  s.cli(repo, 'enable');
  rmSync(join(repo, '.git/info'), { recursive: true });
  s.git(repo, 'worktree', 'add', '-q', join(s.dir, 'pc-info-wt'), '-b', 'w');
  assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8'), EXCLUDE_BLOCK);
  assert.equal(readFileSync(join(s.dir, 'pc-info-wt', HOOK), 'utf8'), readFileSync(join(repo, HOOK), 'utf8'));
  assert.equal(s.cli(repo, 'disable').status, 0);
  assert.ok(!existsSync(join(repo, '.git/info')), 'the info folder it created is gone');
  assert.ok(!existsSync(join(s.dir, 'pc-info-wt/.github')), 'the folders it created in the worktree are gone');
  assert.ok(!existsSync(join(repo, '.git/fleet-git-created')));
});

it('rewrites an outdated hook file of its own but never a foreign one', () => {
  const s = sandbox();
  const repo = s.repo('pc-own');
  s.cli(repo, 'enable');
  const current = readFileSync(join(repo, HOOK), 'utf8');
  writeFileSync(join(repo, HOOK), current.replace(/"timeoutSec": 10/g, '"timeoutSec": 5'));
  s.git(repo, 'checkout', '-q', '-b', 'b1');
  assert.equal(readFileSync(join(repo, HOOK), 'utf8'), current);
  writeFileSync(join(repo, HOOK), '{"mine":true}\n');
  s.git(repo, 'checkout', '-q', '-b', 'b2');
  assert.equal(readFileSync(join(repo, HOOK), 'utf8'), '{"mine":true}\n');
});
