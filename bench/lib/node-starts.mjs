// How many node processes a command starts, counted by strace (every execve
// of a program named node that succeeded, in the command and all it starts).
// null where strace is not installed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function nodeStarts(argv, opts) {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-strace-'));
  const log = join(dir, 'trace');
  try {
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=execve', '-e', 'signal=none', '-o', log, ...argv], { ...opts, stdio: 'pipe' });
    if (r.error) return null;
    if (r.status !== 0) throw new Error(`${argv.join(' ')} under strace: exit ${r.status}: ${r.stderr}`);
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => /execve\("[^"]*\/node"/.test(l) && / = 0$/.test(l)).length;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
