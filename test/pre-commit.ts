// pre-commit 3.0.4 from the distribution's packages (.ci/run installs it), run
// offline: a `repo: local` hook of language system, its home and cache in the
// sandbox. Shared by hook-managers.test and config-hooks.test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { sandbox } from './helpers.js';

const PRE_COMMIT_CONFIG = (log: string) => `repos:
- repo: local
  hooks:
  - id: mark
    name: mark
    entry: sh -c 'echo pre-commit >> "${log}"' --
    language: system
    always_run: true
    pass_filenames: false
    stages: [post-checkout]
`;

function preCommitEnv(s: ReturnType<typeof sandbox>): Record<string, string> {
  return { ...s.env, XDG_CACHE_HOME: join(s.dir, 'cache'), PRE_COMMIT_HOME: join(s.dir, 'pre-commit-home') };
}

/** Runs pre-commit with `args` in `cwd`; fails the test when it fails. */
export function preCommit(s: ReturnType<typeof sandbox>, cwd: string, ...args: string[]) {
  const r = spawnSync('pre-commit', args, { cwd, env: preCommitEnv(s), encoding: 'utf8' });
  assert.equal(r.status, 0, `pre-commit ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r;
}

/** A repository whose committed .pre-commit-config.yaml logs each post-checkout; with `foreign`, also a hook of the user's own. */
export function preCommitRepo(s: ReturnType<typeof sandbox>, name: string, foreign: boolean) {
  const repo = s.repo(name);
  const log = join(s.dir, `${name}.log`);
  writeFileSync(join(repo, '.pre-commit-config.yaml'), PRE_COMMIT_CONFIG(log));
  s.git(repo, 'add', '.pre-commit-config.yaml');
  s.git(repo, 'commit', '-q', '-m', 'pre-commit');
  const own = `#!/bin/sh\necho own >> "${log}"\n`;
  if (foreign) writeFileSync(join(repo, '.git/hooks/post-checkout'), own, { mode: 0o755 });
  const ran = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
  const reset = () => writeFileSync(log, '');
  return { repo, log, own, ran, reset };
}
