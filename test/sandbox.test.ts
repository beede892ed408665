// The tests' own sandbox (test/helpers.ts sandbox()): removed after its file even while a process it holds
// still writes in it, without failing the file or keeping its process running.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { procStat } from '../src/fs/process.js';
import { ROOT } from './helpers.js';

test("a sandbox is removed after its file, with the processes that run with its HOME, and the file's other after hooks still run", () => {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // set for this file's process; in a child it makes node --test run nothing
  const r = spawnSync(
    process.execPath,
    ['--import', join(ROOT, 'scripts/ts-loader.mjs'), '--test', '--test-reporter=tap', join(ROOT, 'test/fixtures/sandbox-writer.ts')],
    {
      encoding: 'utf8',
      env,
      timeout: 60_000,
      killSignal: 'SIGKILL',
    },
  );
  const said = /^\s*# (\{.*\})$/m.exec(r.stdout)?.[1];
  assert.ok(said, r.stdout + r.stderr);
  const { dir, writer } = JSON.parse(said) as { dir: string; writer: number };
  const state = procStat(writer)?.[0];
  const running = state !== undefined && state !== 'Z'; // a zombie has ended; its parent may not have reaped it yet
  const left = existsSync(dir);
  if (running) process.kill(writer, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  assert.equal(r.signal, null, `the file's process did not end within 60 s:\n${r.stdout}`);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(running, false, 'the writer still runs');
  assert.equal(left, false, `${dir} is still there`);
});
