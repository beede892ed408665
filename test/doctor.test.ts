// fleet-git doctor: every check passing in a set-up sandbox, and each failing one saying what to do.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, test } from 'node:test';
import { userPaths } from '../src/paths.js';
import { kitClient, kitId } from '../src/core/repo/kit.js';
import { sandbox } from './helpers.js';
import { CLI, run, runCli } from './spawn.js';
import { doctorWorld } from './doctor-world.js';
import { TestObserver } from './observer-server.js';
import { FLEET_NOTIFIER } from './fleet-notifier.js';

function doctor(
  cwd: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(['doctor', ...args], { cwd, env });
}

describe('fleet-git doctor', () => {
  test('optional parts that are off are notes (exit 0), each with its command; all pass when everything is in place; each broken part is one FAIL line saying what to do (exit 1)', async () => {
    const sb = sandbox();
    const bin = join(sb.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'copilot'), '#!/bin/sh\necho "1.0.102"\necho "Commit: abc"\n');
    chmodSync(join(bin, 'copilot'), 0o755);
    const env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}` };
    const repo = sb.repo('proj');
    const paths = userPaths(env, sb.home);

    // Nothing enabled, nothing listening: all optional, so notes and exit 0.
    let r = await doctor(repo, env);
    assert.equal(r.code, 0, r.stdout);
    assert.doesNotMatch(r.stdout, /FAIL/);
    assert.match(r.stdout, /note {2}the hook client is not installed yet .*: run fleet-git enable\n/);
    assert.match(r.stdout, /note {2}no fleet observer at .*: run `fleet observer`\n/);
    assert.match(r.stdout, /note {2}.*proj: not enabled.*: run fleet-git enable\n/);
    assert.match(r.stdout, /ok {4}Copilot CLI 1\.0\.102 /);
    assert.match(r.stdout, /\n-- {4}fleet-git doctor --live runs one real, offline Copilot session here/);

    // Freshly enabled, no clone set-up, no trust, no observer: exit 0, each optional part a note with its command.
    assert.equal(spawnCli(sb, repo, ['enable']), 0);
    r = await doctor(repo, env);
    assert.equal(r.code, 0, r.stdout);
    assert.doesNotMatch(r.stdout, /FAIL/);
    assert.match(r.stdout, /ok {4}the hook client runs as Copilot runs it/);
    assert.match(
      r.stdout,
      /note {2}setup for new clones is not in effect \(optional\): new clones do not get fleet-git: run fleet-git setup\n/,
    );
    assert.match(r.stdout, /note {2}.*proj: Copilot does not trust it.*: run fleet-git enable --trust\n/);
    assert.match(r.stdout, /note {2}no fleet observer/);
    assert.match(
      r.stdout,
      /note {2}fleet's notifier is not installed \(.*hooks\/notifier\.js is missing\): no desktop notifications for Copilot sessions: run `fleet hooks install`\n/,
    );
    assert.match(r.stdout, /no faults: \d+ of \d+ checks passed, and 4 optional parts are off/);
    const j = await doctor(repo, env, '--json');
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout);
    assert.equal(doc.repo, repo);
    const levels = Object.fromEntries(doc.checks.map((c: any) => [c.id, c.level]));
    assert.deepEqual(levels, {
      node: 'ok',
      'hook-client': 'ok',
      'vscode-hook': 'ok',
      kit: 'ok',
      observer: 'note',
      notifications: 'note',
      copilot: 'ok',
      vscode: 'ok',
      setup: 'note',
      config: 'ok',
      repo: 'ok',
      'repo-exclude': 'ok',
      'repo-git-hook': 'ok',
      'repo-trust': 'note',
    });
    assert.deepEqual(doc.checks.find((c: any) => c.id === 'repo-trust').fix, 'fleet-git enable --trust');
    assert.deepEqual(doc.counts, { ok: 10, notes: 4, faults: 0 });
    assert.match(
      r.stdout,
      /ok {4}the data folder's kit is this fleet-git's \(.*\/kit\/[0-9a-f]{16}, with hook\.sh and post-checkout\.sh in /,
    );
    // A real fault: the data folder's hook script gone while a repository uses it.
    rmSync(join(paths.dataDir, 'hook.sh'));
    r = await doctor(repo, env);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /FAIL {2}the data folder's hook script .*hook\.sh is missing, so enabled repositories report nothing: run fleet-git enable\n/,
    );
    assert.match(
      r.stdout,
      /FAIL {2}the data folder's kit is not as this fleet-git writes it: .*hook\.sh is missing: run fleet-git enable\n/,
    );
    assert.match(r.stdout, /FAIL {2}.*proj: .*runs a data folder's hook script that no longer exists/);
    assert.match(r.stdout, /3 of \d+ checks failed, 4 optional parts are off/);
    const jf = await doctor(repo, env, '--json');
    assert.equal(jf.code, 1);
    assert.equal(JSON.parse(jf.stdout).counts.faults, 3);
    assert.equal(spawnCli(sb, repo, ['enable']), 0);

    const obs = await TestObserver.start(paths.fleetSocket);
    try {
      const setup = sb.cli(repo, 'setup');
      assert.equal(setup.status, 0, `fleet-git setup failed: ${setup.stderr}`);
      assert.equal(spawnCli(sb, repo, ['enable', '--trust']), 0);
      // fleet's hooks folder with its notifier, as `fleet hooks install` leaves it.
      mkdirSync(join(paths.fleetDir, 'hooks'), { recursive: true });
      writeFileSync(join(paths.fleetDir, 'hooks', 'notifier.js'), FLEET_NOTIFIER);
      r = await doctor(repo, env);
      assert.match(r.stdout, /ok {4}fleet's notifier is installed \(.*hooks\/notifier\.js\): Copilot sessions notify as fleet's do/);
      assert.match(r.stdout, /ok {4}setup for new clones/);
      assert.equal(r.code, 0, r.stdout);
      assert.doesNotMatch(r.stdout, /FAIL/);
      assert.match(r.stdout, /ok {4}the hook client runs as Copilot runs it/);
      assert.match(r.stdout, /ok {4}the fleet observer is listening/);
      assert.match(r.stdout, /ok {4}.*proj: Copilot trusts it/);
      assert.match(r.stdout, /all \d+ checks passed\n$/);
      assert.equal(obs.events.length, 0, 'the hook check sends nothing');

      // Untrusted, an invalid config file, no Copilot.
      spawnCli(sb, repo, ['disable']);
      spawnCli(sb, repo, ['enable']);
      mkdirSync(paths.configDir, { recursive: true });
      writeFileSync(join(paths.configDir, 'config.json5'), '{ include: 3 }');
      r = await doctor(repo, { ...env, PATH: sb.env.PATH });
      assert.equal(r.code, 1);
      assert.match(r.stdout, /note {2}.*proj: Copilot does not trust it.*fleet-git enable --trust/);
      assert.match(r.stdout, /FAIL {2}the config file is invalid: .*config\.json5/);
      // Without the CLI, VS Code's agent still runs the hook files: a note, not a fault.
      assert.match(
        r.stdout,
        /note {2}the Copilot CLI is not on PATH: VS Code's agent runs the hook files without it and its sessions report, but Copilot CLI sessions need it: run npm install -g @github\/copilot\n/,
      );
      assert.match(
        r.stdout,
        /ok {4}VS Code's agent runs the same hook files: its sessions show as cards marked VSCode \(vscode: false in .*config\.json5 keeps them out;/,
      );
      assert.doesNotMatch(r.stdout, /doctor --live/);
      assert.equal(r.stderr, '');
      // With VS Code's sessions kept out, nothing would report without the CLI.
      writeFileSync(join(paths.configDir, 'config.json5'), '{ vscode: false }');
      r = await doctor(repo, { ...env, PATH: sb.env.PATH });
      assert.equal(r.code, 1);
      assert.match(r.stdout, /FAIL {2}the Copilot CLI is not on PATH: install it with npm install -g @github\/copilot/);
      assert.match(r.stdout, /ok {4}VS Code's agent sessions are kept out \(vscode: false in .*config\.json5\)/);

      // User-level hooks make trust unnecessary.
      writeFileSync(join(paths.configDir, 'config.json5'), '{}');
      spawnCli(sb, repo, ['enable', '--user']);
      r = await doctor(repo, env);
      assert.equal(r.code, 0, r.stdout);
      assert.match(r.stdout, /ok {4}user-level hooks installed/);
    } finally {
      await obs.close();
    }
  });
});

function spawnCli(sb: ReturnType<typeof sandbox>, cwd: string, args: string[]): number | null {
  const r = sb.cli(cwd, ...args);
  return r.status;
}

describe('fleet-git doctor: the hook-client check', () => {
  // Each case runs the real CLI; its test event goes through the real hook command, spool and forwarder.
  const { sb, repo, paths, tmp, env, lines, enabled } = doctorWorld();

  test("VS Code's way: names the /bin/sh VS Code uses, runs the hook command with it as VS Code does; a bash-only hook.sh (0.2.0's) is a FAIL naming exit 2", async () => {
    enabled();
    const sh = realpathSync('/bin/sh');
    const named = sh === '/bin/sh' ? '/bin/sh' : `/bin/sh (${basename(sh) === 'bash' ? 'bash as sh' : basename(sh)}, ${sh})`;
    let r = await doctor(repo, env);
    assert.ok(
      r.stdout.includes(
        `ok    VS Code's agent runs hooks with ${named}: a test SessionStart run as VS Code runs it exited 0 and reached a socket of doctor's own in `,
      ),
      r.stdout,
    );
    // fleet-git 0.2.0's hook.sh read the clock with bash's ${EPOCHREALTIME/[.,]/}: dash ends there, with exit 2.
    const script = join(paths.dataDir, 'hook.sh');
    const saved = readFileSync(script, 'utf8');
    writeFileSync(script, saved.replace('umask 077', 't=${EPOCHREALTIME/[.,]/}\numask 077'));
    try {
      r = await doctor(repo, env);
      const said = r.stdout.split('\n').filter((l) => l.startsWith(`FAIL  VS Code's agent runs hooks with ${named}: `));
      if (basename(sh) === 'dash') {
        assert.equal(said.length, 1, r.stdout);
        assert.match(
          said[0]!,
          /: the hook command, run as VS Code runs it, exited 2, which VS Code reads as a blocking error: it stops the request: run fleet-git enable$/,
        );
        assert.match(r.stdout, /^ok {4}the hook client runs as Copilot runs it/m, 'bash runs it as before');
        assert.equal(r.code, 1);
      }
    } finally {
      writeFileSync(script, saved);
    }
  });

  test("ok only when the test sessionStart arrived on doctor's own socket, normalized; nothing reaches the user's observer, nothing is left", async () => {
    enabled();
    const obs = await TestObserver.start(paths.fleetSocket);
    try {
      const r = await doctor(repo, env);
      assert.match(
        r.stdout,
        /^ok {4}the hook client runs as Copilot runs it: a test sessionStart reached a socket of doctor's own, as the observer reads it, in \d+ ms \(.*\/kit\/[0-9a-f]{16}\/hook-client\.cjs\)$/m,
      );
      const j = JSON.parse((await doctor(repo, env, '--json')).stdout);
      assert.equal(j.checks.find((c: any) => c.id === 'hook-client').level, 'ok');
      assert.equal(obs.events.length, 0, "the test event went to doctor's socket, not the user's");
    } finally {
      await obs.close();
    }
    assert.deepEqual(readdirSync(tmp), [], 'the temporary folder is gone');
    assert.ok(!existsSync(join(paths.dataDir, 'spool')), 'no spool in the data folder');
  });

  test('a node that answers --version but runs nothing (a broken shim): its forwarder leaves without sending the event, FAIL naming that node, exit 1', async () => {
    enabled();
    const bin = join(sb.dir, 'shim');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'node'), `#!/bin/sh\n[ "$1" = --version ] && echo ${process.version}\nexit 0\n`);
    chmodSync(join(bin, 'node'), 0o755);
    const r = await doctor(repo, { ...env, PATH: `${bin}:${sb.env.PATH}` });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, new RegExp(`^ok {4}node ${process.version.replace(/\./g, '\\.')} at ${bin}/node \\(on PATH\\)$`, 'm'));
    const line = `FAIL  the hook command ran, but its test event did not reach doctor's socket (its forwarder left without sending it; node: ${bin}/node, on PATH; client: ${kitClient(paths.dataDir, kitId())}): run fleet-git enable`;
    assert.deepEqual(lines(r.stdout, line), [line], r.stdout);
    assert.deepEqual(readdirSync(tmp), []);
  });

  test("a node older than package.json's engines allow (19): FAIL naming the oldest it needs, exit 1", async () => {
    enabled();
    const bin = join(sb.dir, 'old');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'node'), `#!/bin/sh\n[ "$1" = --version ] && echo v19.9.0 && exit 0\nexec '${process.execPath}' "$@"\n`);
    chmodSync(join(bin, 'node'), 0o755);
    const r = await doctor(repo, { ...env, PATH: `${bin}:${sb.env.PATH}` });
    assert.equal(r.code, 1, r.stdout);
    const line = `FAIL  node v19.9.0 at ${bin}/node (on PATH): fleet-git needs Node 20 or later`;
    assert.deepEqual(lines(r.stdout, line), [line], r.stdout);
  });

  test('a forwarder that starts slowly (a loaded machine: node takes 3.5 s to start) is waited for while it runs: ok, not a FAIL after a fixed time', async () => {
    enabled();
    const bin = join(sb.dir, 'slow');
    mkdirSync(bin, { recursive: true });
    // Slow only where the hook command starts the forwarder; doctor's own node --version is answered at once.
    writeFileSync(join(bin, 'node'), `#!/bin/sh\n[ "$1" = --version ] || sleep 3.5\nexec '${process.execPath}' "$@"\n`);
    chmodSync(join(bin, 'node'), 0o755);
    const r = await doctor(repo, { ...env, PATH: `${bin}:${sb.env.PATH}` });
    const ms = Number(/^ok {4}the hook client runs as Copilot runs it: .* in (\d+) ms /m.exec(r.stdout)?.[1]);
    assert.ok(ms >= 3500, `${r.stdout}: the event came after the forwarder's slow start`);
    assert.deepEqual(readdirSync(tmp), []);
  });

  test("a hook client that node cannot load: FAIL with node's own words, exit 1", async () => {
    enabled();
    const client = kitClient(paths.dataDir, kitId());
    writeFileSync(client, 'this is not javascript (\n');
    const r = await doctor(repo, env);
    assert.equal(r.code, 1, r.stdout);
    const said = r.stdout.split('\n').filter((l) => l.startsWith(`FAIL  ${process.execPath} cannot run the hook client ${client} (`));
    assert.equal(said.length, 1, r.stdout);
    assert.match(said[0], / \(SyntaxError: [^)]+\), so the hook does nothing: run fleet-git enable$/);
    enabled();
  });

  test('a hook client whose event lacks what the observer needs (one from before the ppid and pid were sent): FAIL naming what is missing', async () => {
    enabled();
    // A forwarder that sends the spooled test event's session id and cwd only, to the socket its environment names.
    writeFileSync(
      kitClient(paths.dataDir, kitId()),
      `const fs = require('fs'), net = require('net'), path = require('path');
const spool = process.argv[3];
const name = fs.readdirSync(spool).find((n) => n.endsWith('.ev'));
const text = fs.readFileSync(path.join(spool, name), 'utf8');
const payload = JSON.parse(text.slice(0, text.indexOf('\\0')));
fs.unlinkSync(path.join(spool, name));
const c = net.connect(path.join(process.env.FLEET_GIT_OBSERVER_DIR, 'fleet.sock'), () =>
  c.end(JSON.stringify({ event: 'SessionStart', session_id: payload.sessionId, cwd: payload.cwd }) + '\\n'));
`,
    );
    try {
      const r = await doctor(repo, env);
      assert.equal(r.code, 1, r.stdout);
      const said = r.stdout
        .split('\n')
        .filter((l) => l.startsWith("FAIL  the hook client's test event arrived without what the observer needs: "));
      assert.equal(said.length, 1, r.stdout);
      assert.match(
        said[0]!,
        /: timestamp; pid and ppid \(none and none, not null: a hook whose parent is no Copilot CLI names no process\); _tool and tool \("copilot"\): run fleet-git enable$/,
      );
    } finally {
      enabled();
    }
  });

  test('/bin/bash cannot be run (here: /dev/null mounted over it, in a namespace of its own): FAIL saying so', async () => {
    enabled();
    const r = await run(
      'unshare',
      ['--map-root-user', '--mount', '/bin/sh', '-c', 'mount --bind /dev/null /bin/bash && exec "$0" "$1" doctor', process.execPath, CLI],
      { cwd: repo, env },
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const line = 'FAIL  cannot run /bin/bash: permission denied; Copilot runs hooks with it';
    assert.deepEqual(lines(r.stdout, line), [line], r.stdout + r.stderr);
  });
});
