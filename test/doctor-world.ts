// doctor's hook-client check as its tests set it up (test/doctor.test.ts, and test/traced.test.ts's cases
// under strace): a sandbox with one repository, a TMPDIR of its own to see that doctor leaves nothing there.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { userPaths } from '../src/paths.js';
import { sandbox } from './helpers.js';

export function doctorWorld() {
  const sb = sandbox();
  const repo = sb.repo('proj');
  const paths = userPaths(sb.env, sb.home);
  const tmp = join(sb.dir, 'tmp');
  mkdirSync(tmp);
  const env: Record<string, string> = { ...sb.env, TMPDIR: tmp };
  /** The stdout's lines equal to `line` (every check is one line). */
  const lines = (stdout: string, line: string) => stdout.split('\n').filter((l) => l === line);
  /** fleet-git enable in the repository, by the built CLI. */
  const enabled = () => assert.equal(sb.cli(repo, 'enable').status, 0);
  return { sb, repo, paths, tmp, env, lines, enabled };
}
