// scripts/test.mjs, the runner of npm test and npm run test:quick: --quick's temporary folders in memory
// (removed after), its line saying how it runs, and the whole suite's run without either; and two helpers the
// tests lean on: repeats(), fleetGitNodes().
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryFolderHere } from '../scripts/memory-folder.mjs';
import { HOOK_MARK } from '../src/copilot/hook-mark.js';
import { fleetGitNodes, repeats, ROOT } from './helpers.js';
import { runSync } from './spawn.js';

/** scripts/test.mjs run on one small file, with the caller's environment less TMPDIR (none is set, as in a shell). */
function runner(...args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'TMPDIR' && k !== 'FLEET_GIT_TEST_QUICK')) as Record<
    string,
    string
  >;
  return runSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), ...args, 'tested-versions'], { cwd: ROOT, env });
}

const tmpfs = memoryFolderHere();

test('--quick: the temporary folders in memory where /dev/shm is a tmpfs, said in one line, and gone after the run', () => {
  const r = runner('--quick');
  assert.equal(r.status, 0, r.stderr);
  const line = /^test: quick: 1 file, (\d+) at a time, a quarter of the repetitions, temporary folders in (\S+)( \(memory\))?$/m.exec(
    r.stderr,
  );
  assert.ok(line, r.stderr);
  assert.ok(Number(line[1]) >= 2);
  if (tmpfs) {
    assert.match(line[2]!, /^\/dev\/shm\/fleet-git-\w{6}\/t$/);
    assert.equal(line[3], ' (memory)');
    assert.equal(existsSync(join(line[2]!, '..')), false, 'the run removed its folder');
  } else assert.equal(line[3], undefined);
});

test('without --quick (the whole suite, npm test): none of the quick tier, whose line is not said', () => {
  const r = runner();
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /^test: quick/m);
});

test('repeats(n): n in the whole suite; under the quick tier a quarter, rounded up, at least 1', () => {
  const saved = process.env.FLEET_GIT_TEST_QUICK;
  try {
    delete process.env.FLEET_GIT_TEST_QUICK;
    assert.deepEqual([1, 4, 12, 300].map(repeats), [1, 4, 12, 300]);
    process.env.FLEET_GIT_TEST_QUICK = '1';
    assert.deepEqual([1, 4, 12, 300, 5].map(repeats), [1, 1, 3, 75, 2]);
  } finally {
    if (saved === undefined) delete process.env.FLEET_GIT_TEST_QUICK;
    else process.env.FLEET_GIT_TEST_QUICK = saved;
  }
});

test(
  "fleetGitNodes: a hook shell's child that execs cat is never taken for a node process; the client's node is",
  { skip: process.platform !== 'linux' && 'reads /proc (Linux)' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-git-nodes-'));
    try {
      const client = join(dir, 'hook-client.cjs');
      writeFileSync(client, 'setTimeout(() => {}, 3000);\n');
      // A hook's shell (its command line has fleet-git's mark) whose children exec cat, as hook.sh reads a payload that
      // comes on a socket, beside a client it started.
      const script = `node "$0" & i=0; while [ $i -lt 4000 ]; do v=$(cat /dev/null); i=$((i + 1)); done; wait # ${HOOK_MARK} hook`;
      const shell = spawn('bash', ['--norc', '-c', script, client], { env: { ...process.env, HOME: dir }, stdio: 'ignore' });
      const done = new Promise((r) => shell.on('close', r));
      const seen = new Map<string, number>();
      let running = true;
      void done.then(() => (running = false));
      const deadline = Date.now() + 2000;
      while (running && Date.now() < deadline) {
        for (const { exe } of fleetGitNodes(dir)) seen.set(exe, (seen.get(exe) ?? 0) + 1);
        await new Promise((r) => setImmediate(r));
      }
      shell.kill('SIGKILL');
      await done;
      assert.deepEqual([...seen.keys()], [realpathSync(process.execPath)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
