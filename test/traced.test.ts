// The cases that run fleet-git under strace (Debian package strace, as .ci/run installs it), which
// npm run test:quick leaves out: strace makes the case certain (a write held until the hook has
// exited) or counts what a run read. Each sets up its own sandbox, as the file it came from did.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, test } from 'node:test';
import { kitClient, kitId } from '../src/core/repo/kit.js';
import { doctorWorld } from './doctor-world.js';
import { needs, sandbox } from './helpers.js';
import { CLI, run, runSync } from './spawn.js';
import { buildWorkspace, initRepos } from './workspace.js';

const HOOK = '.github/hooks/fleet.json';
/** strace's path: the doctor cases run it with a PATH that has no strace. */
const STRACE = execFileSync('/bin/sh', ['-c', 'command -v strace || echo strace-is-not-installed'], { encoding: 'utf8' }).trim();

describe('fleet-git doctor under strace: the hook command exits before doctor writes its test event', () => {
  const { sb, repo, paths, env, lines, enabled } = doctorWorld();

  /**
   * doctor run under strace, each of its main thread's writes held 300 ms before it is made: the hook
   * command, given its payload only after that, has exited first when it does not read it. The trace
   * shows the payload's write refused (EPIPE), so the case is the one meant, every run, on any load.
   */
  let traces = 0;
  function doctorWritesLate(cwd: string, env: Record<string, string>) {
    const trace = join(sb.dir, `writes-${++traces}.trace`);
    return run(STRACE, ['-o', trace, '-e', 'trace=write', '-e', 'inject=write:delay_enter=300000', process.execPath, CLI, 'doctor'], {
      cwd,
      env,
    }).then((r) => ({
      ...r,
      payloadWrite:
        readFileSync(trace, 'utf8')
          .split('\n')
          .find((l) => l.includes('fleet-git-doctor-')) ?? '',
    }));
  }

  test(
    'no node to run the hook client (none on PATH, the recorded one gone): FAIL, with the reason and the fix, exit 1',
    { skip: needs('strace') },
    async () => {
      enabled();
      const bin = join(sb.dir, 'git-only');
      mkdirSync(bin, { recursive: true });
      for (const tool of ['git', 'cat'])
        if (!existsSync(join(bin, tool)))
          symlinkSync(execFileSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
      writeFileSync(join(paths.dataDir, 'node'), join(sb.dir, 'uninstalled', 'node'));
      try {
        // Whether the hook command reads the payload before it finds no node or not, the answer is the same.
        const r = await doctorWritesLate(repo, { ...env, PATH: bin });
        assert.match(r.payloadWrite, /^write\(/, 'the payload was written');
        assert.equal(r.code, 1, r.stdout);
        assert.doesNotMatch(r.stdout, /EPIPE|cannot run \/bin\/bash/);
        const line = `FAIL  no node on the PATH Copilot runs hooks with, and the node fleet-git enable recorded (${join(sb.dir, 'uninstalled', 'node')}) is gone, so the hook does nothing: install Node 20 or later (or put it on PATH), then run fleet-git enable`;
        assert.deepEqual(lines(r.stdout, line), [line], r.stdout);
      } finally {
        writeFileSync(join(paths.dataDir, 'node'), process.execPath);
      }
    },
  );

  test(
    'the hook client deleted: the hook command exits before it reads the test event; doctor names the missing client, never EPIPE',
    { skip: needs('strace') },
    async () => {
      enabled();
      const client = kitClient(paths.dataDir, kitId());
      rmSync(client);
      try {
        const r = await doctorWritesLate(repo, env);
        assert.match(r.payloadWrite, /= -1 EPIPE/, 'the hook exited before doctor wrote its payload');
        assert.equal(r.code, 1, r.stdout);
        const line = `FAIL  the hook client ${client} is missing, so enabled repositories report nothing: run fleet-git enable`;
        assert.deepEqual(lines(r.stdout, line), [line], r.stdout);
        assert.doesNotMatch(r.stdout, /EPIPE|cannot run \/bin\/bash/);
      } finally {
        enabled();
      }
    },
  );
});

describe('scan under strace', () => {
  const sb = sandbox('fleet-git-scan-traced-');
  const root = join(sb.dir, 'code');
  const p = { trusted: sb.repo('code/trusted'), untrusted: sb.repo('code/untrusted') };
  sb.repo('code/plain');
  mkdirSync(join(root, 'bare.git'));
  sb.git(join(root, 'bare.git'), 'init', '-q', '--bare');
  const config = join(sb.env.COPILOT_HOME, 'config.json');

  it("reads Copilot's config.json once per scan, however many repositories", { skip: needs('strace') }, async () => {
    assert.equal((await sb.fleet(p.trusted, 'enable', '--trust')).status, 0);
    assert.equal((await sb.fleet(p.untrusted, 'enable')).status, 0);
    assert.ok(existsSync(config), "enable --trust wrote Copilot's config.json");
    const trace = join(sb.dir, 'trace.txt');
    const r = spawnSync('strace', ['-f', '-e', 'trace=open,openat', '-o', trace, process.execPath, CLI, 'scan', root, '--json'], {
      cwd: sb.dir,
      env: sb.env,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).repos.length, 4);
    const opens = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => l.includes(`"${config}"`));
    assert.equal(opens.length, 1, opens.join('\n'));
  });
});

describe('remove under strace', () => {
  it(
    '--yes reads an enabled repository once, under its lock (its exclude block says it has something to remove); one with something of fleet-git but no block before the lock too',
    { skip: needs('strace') },
    async () => {
      const sb = sandbox('fleet-git-remove-traced-');
      const ws = buildWorkspace(sb, { locked: false });
      // Enough repositories for the helper threads (64 at least), all enabled.
      const many = join(ws.root, 'many');
      const configs = initRepos(sb, many, 70).map((d) => join(d, '.git', 'config'));
      assert.equal((await sb.fleet(sb.dir, 'enable', '--under', many)).status, 0);
      assert.equal((await sb.fleet(ws.p.solo, 'enable')).status, 0);
      // upstream: an upstream hook file, nothing of fleet-git: no block, so read without the lock first.
      const upstreamConfig = join(ws.p.upstream, '.git', 'config');
      const trace = join(sb.dir, 'remove-trace.txt');
      const r = runSync('strace', ['-f', '-e', 'trace=open,openat', '-o', trace, process.execPath, CLI, 'remove', ws.root, '--yes'], {
        cwd: sb.dir,
        env: sb.env,
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /remove: 72 changed, /);
      const opens = readFileSync(trace, 'utf8').split('\n');
      const count = (file: string) => opens.filter((l) => l.includes(`"${file}"`) && !l.includes('ENOENT')).length;
      for (const c of configs) assert.equal(count(c), 1, `${c} was read once`);
      assert.equal(count(upstreamConfig), 2, 'the one without a block was read to pick it, then under its lock');
      for (const c of configs) assert.ok(!existsSync(join(c, '..', '..', HOOK)), c);
    },
  );
});
