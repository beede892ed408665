// CopilotAdapter: fleet's adapter contract for Copilot CLI.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { CopilotAdapter } from '../src/core/adapter.js';
import { HOOK_MARK } from '../src/copilot/hook-mark.js';
import { userPaths } from '../src/paths.js';
import { FIXTURES, ROOT, sandbox } from './helpers.js';
import { observerSummary, TestObserver } from './observer-server.js';
import { runClient } from './hook-run.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
/** What fleet's own isHookInstalled asks of a Copilot hook file (fleet-observer-protocol.md). */
const fleetWouldSeeInstalled = (doc: { hooks: Record<string, Array<{ type: string; bash?: string }>> }) =>
  ['sessionStart', 'postToolUse', 'sessionEnd'].every((k) =>
    (doc.hooks[k] ?? []).some((h) => h.type === 'command' && !!h.bash?.includes('claude-code-fleet')),
  );

/** A small in-memory file system with the calls the adapter's seam names (files only; folders are implied). */
function memoryFs() {
  const files = new Map<string, string>();
  const missing = (p: string) => Object.assign(new Error(`ENOENT: no such file or directory, '${p}'`), { code: 'ENOENT' });
  return {
    files,
    existsSync: (p: string) => files.has(p) || [...files.keys()].some((f) => f.startsWith(`${p}/`)),
    readFileSync: (p: string) => {
      const t = files.get(p);
      if (t === undefined) throw missing(p);
      return t;
    },
    writeFileSync: (p: string, data: string) => {
      files.set(p, String(data));
    },
    mkdirSync: () => undefined,
    renameSync: (from: string, to: string) => {
      const t = files.get(from);
      if (t === undefined) throw missing(from);
      files.set(to, t);
      files.delete(from);
    },
    unlinkSync: (p: string) => {
      if (!files.delete(p)) throw missing(p);
    },
    lstatSync: (p: string) => {
      if (!files.has(p)) throw missing(p);
      return { isSymbolicLink: () => false };
    },
  };
}
const pickEv = (e: { event: string; message: string | null } | null) => (e ? [e.event, e.message] : null);

describe('CopilotAdapter', () => {
  const sb = sandbox();

  test('names and events', () => {
    const a = new CopilotAdapter({ env: {} });
    assert.equal(a.name, 'copilot');
    assert.equal(a.displayName, 'GitHub Copilot');
    assert.equal(a.binary, 'copilot');
    assert.deepEqual(a.hookEvents, ['SessionStart', 'PostToolUse', 'Stop']);
  });

  test('isInstalled looks for an executable copilot on PATH', () => {
    const bin = join(sb.dir, 'bin');
    const notExec = join(sb.dir, 'not-exec');
    mkdirSync(bin);
    mkdirSync(notExec);
    writeFileSync(join(bin, 'copilot'), '#!/bin/sh\n');
    chmodSync(join(bin, 'copilot'), 0o755);
    writeFileSync(join(notExec, 'copilot'), '');
    chmodSync(join(notExec, 'copilot'), 0o644);
    assert.equal(new CopilotAdapter({ env: { PATH: `${sb.dir}:${bin}` } }).isInstalled(), true);
    assert.equal(new CopilotAdapter({ env: { PATH: notExec } }).isInstalled(), false);
    assert.equal(new CopilotAdapter({ env: { PATH: '' } }).isInstalled(), false);
  });

  test("buildArgs: --allow-all then the profile's own arguments, no --model", () => {
    const a = new CopilotAdapter({ env: {} });
    assert.deepEqual(a.buildArgs({ name: 'p' }), ['--allow-all']);
    assert.deepEqual(a.buildArgs({ name: 'p', model: 'gpt-4.1', args: ['--no-auto-update', '--add-dir', '/x'] }), [
      '--allow-all',
      '--no-auto-update',
      '--add-dir',
      '/x',
    ]);
  });

  test('buildEnv: a new object with the profile on top, baseEnv untouched', () => {
    const a = new CopilotAdapter({ env: {} });
    const base = Object.freeze({ PATH: '/bin', COPILOT_MODEL: 'old', KEEP: 'yes' });
    const env = a.buildEnv(
      { name: 'work-gpt', model: 'gpt-4.1', apiKey: 'github_pat_x', env: { K: 'v', N: 3, GONE: null, KEEP: 'over' } },
      base,
    );
    assert.notEqual(env, base);
    assert.deepEqual(base, { PATH: '/bin', COPILOT_MODEL: 'old', KEEP: 'yes' });
    assert.deepEqual(env, {
      PATH: '/bin',
      COPILOT_MODEL: 'gpt-4.1',
      KEEP: 'over',
      FLEET_MODEL_NAME: 'work-gpt',
      COPILOT_GITHUB_TOKEN: 'github_pat_x',
      K: 'v',
      N: '3',
    });
    const plain = a.buildEnv({ name: 'logged-in', model: null, apiKey: null }, { PATH: '/bin' });
    assert.deepEqual(plain, { PATH: '/bin', FLEET_MODEL_NAME: 'logged-in' });
  });

  test('normalizePayload and summarizeToolUse', () => {
    const a = new CopilotAdapter({ env: { FLEET_MODEL_NAME: 'work', HOME: sb.home, COPILOT_HOME: sb.env.COPILOT_HOME } });
    const ev = a.normalizePayload(fixture('postToolUse.json'), 'postToolUse')!;
    assert.equal(ev.event, 'PostToolUse');
    assert.equal(ev.fleet_model_name, 'work');
    assert.equal(observerSummary(ev.tool_name, ev.tool_input), 'Bash: echo hello-from-tool');
    const start = a.normalizePayload(fixture('sessionStart.json'), 'sessionStart')!;
    assert.equal(start.pid, process.pid);
    assert.equal(a.normalizePayload(fixture('preToolUse.json'), 'preToolUse'), null);
    assert.equal(a.summarizeToolUse('view', { path: '/w/src/index.ts' }), 'Read index.ts');
    assert.equal(a.summarizeToolUse('Read', { file_path: '/w/src/index.ts' }), 'Read index.ts');
  });

  test("classifyFailure: the reasons fleet's load balancer knows, in the words of fleet's own adapters", () => {
    const a = new CopilotAdapter({ env: {} });
    const safe = (reason: string) => ({ kind: 'failover-safe', reason });
    const cases: Array<[string, { kind: string; reason: string }]> = [
      ['Error: 429 Too Many Requests', safe('rate_limited')],
      ['rate limit exceeded for this model', safe('rate_limited')],
      ['connect ECONNREFUSED 127.0.0.1:443', safe('upstream_unreachable')],
      ['upstream connect error or disconnect/reset before headers', safe('upstream_unreachable')],
      ['HTTP 503 Service Unavailable: try again later', safe('upstream_unreachable')],
      ['Error: TLS handshake failed', safe('startup_transient_error')],
      ['Error: socket hang up before startup completed', safe('startup_transient_error')],
      ['Error: proxy connect aborted', safe('startup_transient_error')],
      ['Authentication temporarily unavailable', safe('auth_temporarily_unusable')],
      ['the model is busy, try again later', safe('auth_temporarily_unusable')],
      ['auth: token exchange failed temporarily', safe('auth_temporarily_unusable')],
      ['Error: invalid flag --model', { kind: 'terminal', reason: 'unclassified' }],
    ];
    for (const [stderrSnippet, want] of cases) assert.deepEqual(a.classifyFailure({ stderrSnippet }), want, stderrSnippet);
    const terminal = { kind: 'terminal', reason: 'unclassified' };
    assert.deepEqual(a.classifyFailure({}), terminal);
    assert.deepEqual(a.classifyFailure({ code: 1, stderrSnippet: null }), terminal);
    assert.deepEqual(a.classifyFailure(undefined), terminal);
    assert.deepEqual(a.classifyFailure({ stderrSnippet: 42 } as never), terminal);
  });

  test("normalizePayload: the event from the argument, else the hook command's hint, else the payload's hook_event_name or type", () => {
    const env = { HOME: sb.home, COPILOT_HOME: sb.env.COPILOT_HOME };
    const plain = new CopilotAdapter({ env });
    const hinted = (event: string) => new CopilotAdapter({ env: { ...env, FLEET_COPILOT_EVENT: event } });
    const end = fixture('sessionEnd.json');
    const tool = fixture('postToolUse.json');
    // A real payload names no event: without a hint there is nothing to send.
    assert.equal(plain.normalizePayload(end), null);
    assert.deepEqual(pickEv(hinted('sessionEnd').normalizePayload(end)), ['Stop', 'complete']);
    assert.deepEqual(pickEv(hinted('sessionEnd').normalizePayload(end, 'sessionStart')), ['SessionStart', null], 'the argument first');
    assert.deepEqual(pickEv(plain.normalizePayload({ ...end, type: 'sessionEnd' })), ['Stop', 'complete'], "the seed design's shape");
    assert.deepEqual(pickEv(plain.normalizePayload({ ...end, type: 'SessionEnd' })), ['Stop', 'complete']);
    assert.deepEqual(pickEv(plain.normalizePayload({ ...end, hook_event_name: 'SessionEnd' })), ['Stop', 'complete']);
    assert.deepEqual(
      pickEv(hinted('postToolUse').normalizePayload({ ...tool, type: 'sessionStart' })),
      ['PostToolUse', null],
      'the hint before the payload',
    );
    assert.equal(hinted('preToolUse').normalizePayload(tool), null, 'an event fleet-git does not forward');
    assert.equal(plain.normalizePayload('not an object', 'postToolUse'), null);
    assert.equal(plain.normalizePayload({ ...tool, sessionId: '../x' }, 'postToolUse'), null);
  });

  test('normalizePayload reads the transcript as the hook client does: the session model, and the last message of an agentStop', () => {
    const sid = 'transcript-sid';
    const copilotHome = join(sb.dir, 'copilot-t');
    const transcript = join(copilotHome, 'session-state', sid, 'events.jsonl');
    mkdirSync(dirname(transcript), { recursive: true });
    writeFileSync(transcript, readFileSync(join(FIXTURES, 'transcript-events.jsonl')));
    const a = new CopilotAdapter({ env: { HOME: sb.home, COPILOT_HOME: copilotHome } });
    const start = a.normalizePayload({ ...fixture('sessionStart.json'), sessionId: sid }, 'sessionStart')!;
    assert.equal(start.model, 'gpt-4.1');
    assert.equal(start.ppid, process.ppid);
    const stop = a.normalizePayload({ ...fixture('agentStop.json'), sessionId: sid, transcriptPath: undefined }, 'agentStop')!;
    assert.deepEqual([stop.event, stop.last_assistant_message, stop.message], ['Stop', 'Done. All finished.', 'end_turn']);
  });

  test('normalizePayload waits for a final message that reaches the transcript late', async () => {
    const transcript = join(sb.dir, 'late.jsonl');
    const waiting = join(sb.dir, 'late.waiting');
    const lines = readFileSync(join(FIXTURES, 'transcript-events.jsonl'), 'utf8').trimEnd().split('\n');
    writeFileSync(transcript, `${lines.slice(0, -2).join('\n')}\n`); // the turn's last step has not been written yet
    // Written by another process while this one waits (normalizePayload blocks its thread): only once this one
    // has begun (the file `waiting`, made just before the call), so the message is late on any load; the wait's
    // limit (FLEET_GIT_STOP_WAIT_MS, its largest) only stops a hung test.
    const writer = spawn(process.execPath, [
      '-e',
      `const fs = require('fs'); const [t, text, w] = process.argv.slice(1);
       (function go() { if (!fs.existsSync(w)) return setTimeout(go, 10); setTimeout(() => fs.appendFileSync(t, text), 300); })();`,
      transcript,
      `${lines.slice(-2).join('\n')}\n`,
      waiting,
    ]);
    const a = new CopilotAdapter({ env: { HOME: sb.home, COPILOT_HOME: sb.env.COPILOT_HOME, FLEET_GIT_STOP_WAIT_MS: '60000' } });
    await new Promise((r) => writer.on('spawn', r));
    writeFileSync(waiting, '');
    const stop = a.normalizePayload({ ...fixture('agentStop.json'), transcriptPath: transcript }, 'agentStop')!;
    await new Promise((r) => writer.on('close', r));
    assert.equal(stop.last_assistant_message, 'Done. All finished.');
  });

  test('normalizePayload gives what the hook client sends, for every event it forwards', async () => {
    const paths = userPaths(sb.env, sb.home);
    const transcript = join(sb.dir, 'same.jsonl');
    writeFileSync(transcript, readFileSync(join(FIXTURES, 'transcript-events.jsonl')));
    const env = { ...sb.env, FLEET_MODEL_NAME: 'same', TERM_PROGRAM: 'tmux' };
    const obs = await TestObserver.start(paths.fleetSocket);
    try {
      const files: Array<[string, string]> = [
        ['sessionStart', 'sessionStart.json'],
        ['postToolUse', 'postToolUse.json'],
        ['postToolUseFailure', 'postToolUseFailure.json'],
        ['agentStop', 'agentStop.json'],
        ['errorOccurred', 'errorOccurred.json'],
        ['sessionEnd', 'sessionEnd.json'],
      ];
      for (const [event, file] of files) {
        const payload = { ...fixture(file), ...(event === 'agentStop' ? { transcriptPath: transcript } : {}) };
        const n = obs.events.length;
        const r = await runClient(env, [event], JSON.stringify(payload));
        assert.deepEqual([r.code, r.stdout], [0, '']);
        const sent = await obs.waitFor((e) => obs.events.indexOf(e) === n);
        const mine = new CopilotAdapter({ env: { ...env, FLEET_COPILOT_EVENT: event } }).normalizePayload(payload) as Record<
          string,
          unknown
        > | null;
        assert.ok(mine, event);
        const { pid: _p, ppid: _pp, ...got } = sent;
        const { pid: _p2, ppid: _pp2, ...want } = mine;
        assert.deepEqual(got, want, event);
      }
    } finally {
      await obs.close();
    }
  });

  test("installHooks, isHookInstalled, removeHooks; someone else's file is left alone", () => {
    const a = new CopilotAdapter({ env: sb.env });
    const repo = sb.repo('hooks');
    const client = join(sb.dir, 'data', 'hook-client.cjs');
    const file = join(repo, '.github', 'hooks', 'fleet.json');
    assert.equal(a.isHookInstalled(repo), false);
    a.installHooks(client, repo);
    assert.equal(a.isHookInstalled(repo), true);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.version, 1);
    // What upstream fleet's own isHookInstalled looks for.
    for (const event of ['sessionStart', 'postToolUse', 'sessionEnd']) {
      assert.ok(
        doc.hooks[event].some((h: { type: string; bash: string }) => h.type === 'command' && h.bash.includes('claude-code-fleet')),
        event,
      );
    }
    for (const [event, entries] of Object.entries(doc.hooks) as Array<[string, Array<{ bash: string }>]>) {
      assert.ok(entries[0]!.bash.includes(join(sb.dir, 'data')), event);
      assert.ok(entries[0]!.bash.includes(` e=${event};`), event);
    }
    a.removeHooks(repo);
    assert.equal(existsSync(file), false);
    assert.equal(a.isHookInstalled(repo), false);
    a.removeHooks(repo); // nothing to remove: no error

    assert.equal(existsSync(join(repo, '.github')), false, 'the folders it created are gone too');
    assert.equal(readFileSync(join(repo, '.git/info/exclude'), 'utf8').includes('fleet-git'), false);
    const foreign = JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo mine' }] } });
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, foreign);
    assert.equal(a.isHookInstalled(repo), false);
    a.removeHooks(repo);
    assert.equal(readFileSync(file, 'utf8'), foreign);
  });

  test("installHooks with fleet's hook client: a file fleet's own tools and fleet-git's status, disable and remove know, each command naming its event", async () => {
    const a = new CopilotAdapter({ env: sb.env });
    const repo = sb.repo('fleet-client');
    const clientDir = join(sb.dir, "fleet's hooks $(x)");
    const client = join(clientDir, 'hook-client.js');
    const file = join(repo, '.github', 'hooks', 'fleet.json');
    mkdirSync(join(repo, 'sub'));
    a.installHooks(client, join(repo, 'sub')); // the worktree's root, where Copilot reads it
    assert.equal(a.isHookInstalled(repo), true);
    assert.equal(a.isHookInstalled(join(repo, 'sub')), true);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.version, 1);
    for (const [event, entries] of Object.entries(doc.hooks) as Array<[string, Array<{ type: string; bash: string }>]>) {
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.type, 'command');
      assert.ok(entries[0]!.bash.includes('claude-code-fleet'), event);
      assert.ok(!entries[0]!.bash.includes(HOOK_MARK), `${event}: fleet's file, not fleet-git's`);
      assert.ok(entries[0]!.bash.includes(` FLEET_COPILOT_EVENT=${event} `), event);
    }
    assert.ok(fleetWouldSeeInstalled(doc), "fleet's own isHookInstalled");

    // The command, run as Copilot runs it, hands the client its event and the payload; the path is quoted.
    mkdirSync(clientDir, { recursive: true });
    const seen = join(sb.dir, 'seen.json');
    writeFileSync(
      client,
      `const fs = require('fs'); let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => fs.writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ argv: process.argv.slice(2), event: process.env.FLEET_COPILOT_EVENT, ppid: process.ppid, input: s })));`,
    );
    const child = spawn('/bin/bash', ['--norc', '--noprofile', '-c', doc.hooks.postToolUse[0].bash], { cwd: repo, env: sb.env });
    child.stdin.end('{"sessionId":"s"}');
    assert.equal(await new Promise((r) => child.on('close', r)), 0);
    assert.deepEqual(JSON.parse(readFileSync(seen, 'utf8')), {
      argv: ['--tool', 'copilot'],
      event: 'postToolUse',
      ppid: process.pid,
      input: '{"sessionId":"s"}',
    });
    // With the client or node gone, the hook exits 0 and says nothing.
    for (const env of [{ ...sb.env, PATH: '/nonexistent' }, sb.env]) {
      if (env === sb.env) rmSync(client);
      const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', doc.hooks.sessionStart[0].bash], {
        cwd: repo,
        env,
        input: '{}',
        encoding: 'utf8',
      });
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
    }

    const status = JSON.parse((await sb.fleet(repo, 'status', '--json')).stdout);
    assert.deepEqual(
      status.problems.map((p: { code: string }) => p.code),
      ['hook-file-upstream'],
    );
    assert.match(status.problems[0].message, /fleet's own hook client/);
    const disabled = await sb.fleet(repo, 'disable');
    assert.equal(disabled.status, 0, disabled.stderr);
    assert.ok(existsSync(file), 'disable leaves a file fleet-git did not write');
    const removed = await sb.fleet(sb.dir, 'remove', repo, '--yes');
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal(existsSync(file), false, 'remove takes fleet files out');
    assert.equal(existsSync(join(repo, '.github')), false, 'and the folders installHooks made for them');

    a.installHooks(client, repo);
    a.installHooks(client, repo); // again: the same bytes
    a.removeHooks(repo);
    assert.equal(existsSync(file), false);
    assert.equal(a.isHookInstalled(repo), false);
    assert.equal(sb.git(repo, 'status', '--porcelain'), '', 'nothing of fleet left');
    assert.equal(existsSync(join(repo, '.github')), false, 'no empty .github/hooks left behind');

    // A .github the user had stays, with what is in it; only the hooks folder made for the file goes.
    mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
    a.installHooks(client, repo);
    a.removeHooks(repo);
    assert.deepEqual(readdirSync(join(repo, '.github')), ['workflows']);
  });

  test("installHooks with fleet's client keeps the hook file out of commits as enable does: git status stays clean, git add -A commits nothing, removeHooks gives info/exclude back byte for byte", () => {
    const a = new CopilotAdapter({ env: sb.env });
    const client = join(sb.dir, 'fleet-status', 'hook-client.js');
    for (const [name, exclude] of [
      ['excluded-fresh', null],
      ['excluded-user-text', '# mine\n*.log'], // no final newline: the block goes first, the user's bytes kept
    ] as const) {
      const repo = sb.repo(name);
      const ex = join(repo, '.git', 'info', 'exclude');
      if (exclude === null) rmSync(join(repo, '.git', 'info'), { recursive: true, force: true });
      else writeFileSync(ex, exclude);
      a.installHooks(client, repo);
      assert.ok(existsSync(join(repo, '.github', 'hooks', 'fleet.json')), name);
      assert.equal(sb.git(repo, 'status', '--porcelain'), '', `${name}: git status shows nothing`);
      sb.git(repo, 'add', '-A');
      assert.equal(sb.git(repo, 'diff', '--cached', '--name-only'), '', `${name}: git add -A stages nothing`);
      // A linked worktree's own file: excluded by the same block (info/exclude is the common git dir's).
      const wt = join(sb.dir, `${name}-wt`);
      sb.git(repo, 'worktree', 'add', '-q', wt);
      a.installHooks(client, wt);
      assert.ok(existsSync(join(wt, '.github', 'hooks', 'fleet.json')), name);
      assert.equal(sb.git(wt, 'status', '--porcelain'), '', `${name}: the worktree's status shows nothing`);
      a.removeHooks(wt);
      a.removeHooks(repo);
      assert.equal(existsSync(join(repo, '.github')), false, name);
      assert.equal(existsSync(join(wt, '.github')), false, name);
      if (exclude === null) assert.equal(existsSync(join(repo, '.git', 'info')), false, `${name}: the info folder it made went too`);
      else assert.equal(readFileSync(ex, 'utf8'), exclude, `${name}: info/exclude as it was`);
    }
  });

  test('installHooks leaves alone a hook file neither fleet nor fleet-git wrote, a tracked one, and a symbolic link', () => {
    const a = new CopilotAdapter({ env: sb.env });
    const client = join(sb.dir, 'fleet', 'hook-client.js');
    const foreignRepo = sb.repo('foreign-file');
    const foreign = JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo mine' }] } });
    const file = (repo: string) => join(repo, '.github', 'hooks', 'fleet.json');
    mkdirSync(dirname(file(foreignRepo)), { recursive: true });
    writeFileSync(file(foreignRepo), foreign);
    assert.throws(() => a.installHooks(client, foreignRepo), /left .* alone: it was written by someone else/);
    assert.equal(readFileSync(file(foreignRepo), 'utf8'), foreign);
    a.removeHooks(foreignRepo);
    assert.equal(readFileSync(file(foreignRepo), 'utf8'), foreign);

    const tracked = sb.repo('tracked-file');
    const upstream = JSON.stringify({
      version: 1,
      hooks: { sessionStart: [{ type: 'command', bash: 'node x --tool copilot # claude-code-fleet' }] },
    });
    mkdirSync(dirname(file(tracked)), { recursive: true });
    writeFileSync(file(tracked), upstream);
    sb.git(tracked, 'add', '-A');
    sb.git(tracked, 'commit', '-q', '-m', 'track it');
    assert.throws(() => a.installHooks(client, tracked), /tracked by git/);
    assert.equal(readFileSync(file(tracked), 'utf8'), upstream);

    const linked = sb.repo('linked-github');
    const outside = join(sb.dir, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(linked, '.github'));
    assert.throws(() => a.installHooks(client, linked), /symbolic link/);
    assert.deepEqual(readdirSync(outside), []);
  });

  test('the { fs } seam: installHooks, isHookInstalled and removeHooks through an in-memory file system, the disk untouched', () => {
    const mem = memoryFs();
    const a = new CopilotAdapter({ fs: mem, env: sb.env });
    const cwd = join(sb.dir, 'in-memory', 'project'); // no such folder on disk
    const file = join(cwd, '.github', 'hooks', 'fleet.json');
    const fleetClient = join(sb.home, '.config', 'claude-code-fleet', 'hooks', 'hook-client.js');
    assert.equal(a.isHookInstalled(cwd), false);
    a.installHooks(fleetClient, cwd);
    assert.equal(a.isHookInstalled(cwd), true);
    const doc = JSON.parse(mem.files.get(file)!);
    assert.ok(fleetWouldSeeInstalled(doc));
    assert.ok(doc.hooks.agentStop[0].bash.includes(`'${fleetClient}' --tool copilot`));
    assert.deepEqual([...mem.files.keys()], [file], 'one file, no temporary left');
    a.removeHooks(cwd);
    assert.equal(mem.files.size, 0);
    assert.equal(a.isHookInstalled(cwd), false);

    // fleet-git's own client: its hook file, through the seam too.
    const ownClient = join(sb.dir, 'data-mem', 'hook-client.cjs');
    a.installHooks(ownClient, cwd);
    assert.equal(a.isHookInstalled(cwd), true);
    assert.ok(mem.files.get(file)!.includes(HOOK_MARK));
    assert.ok(mem.files.get(file)!.includes(`d='${dirname(ownClient)}'`));
    a.removeHooks(cwd);
    assert.equal(mem.files.size, 0);

    // Someone else's file stays, and installHooks says so.
    const foreign = JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo mine' }] } });
    mem.files.set(file, foreign);
    assert.throws(() => a.installHooks(fleetClient, cwd), /someone else/);
    a.removeHooks(cwd);
    assert.equal(a.isHookInstalled(cwd), false);
    assert.equal(mem.files.get(file), foreign);
    assert.equal(existsSync(join(sb.dir, 'in-memory')), false, 'nothing on the real disk');
    assert.equal(existsSync(join(sb.dir, 'data-mem')), false);
    // A seam without lstatSync works too (fleet's own test double has none).
    const bare = memoryFs();
    delete (bare as Partial<typeof bare>).lstatSync;
    new CopilotAdapter({ fs: bare }).installHooks(fleetClient, cwd);
    assert.ok(bare.files.has(file));
  });

  test('the installed hook command, run as Copilot runs it, reaches the observer', async () => {
    const a = new CopilotAdapter({ env: sb.env });
    const repo = sb.repo('run-hooks');
    const paths = userPaths(sb.env, sb.home);
    const dataDir = join(sb.dir, 'data-run');
    mkdirSync(dataDir);
    copyFileSync(join(ROOT, 'dist', 'hook-client.cjs'), join(dataDir, 'hook-client.cjs'));
    a.installHooks(join(dataDir, 'hook-client.cjs'), repo);
    const doc = JSON.parse(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8'));
    const obs = await TestObserver.start(paths.fleetSocket);
    try {
      for (const event of ['sessionStart', 'postToolUse'] as const) {
        const child = spawn('/bin/bash', ['--norc', '--noprofile', '-c', doc.hooks[event][0].bash], { cwd: repo, env: sb.env });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stdin.end(readFileSync(join(FIXTURES, `${event}.json`)));
        const code = await new Promise((r) => child.on('close', r));
        assert.deepEqual([code, out], [0, '']);
      }
      const start = await obs.waitFor((e) => e.event === 'SessionStart');
      // The hook's parent, this test process, is no Copilot CLI: no process named (test/copilot-process.test.ts).
      assert.deepEqual([start.pid, start.ppid], [null, null]);
      const tool = await obs.waitFor((e) => e.event === 'PostToolUse');
      assert.equal(observerSummary(tool.tool_name, tool.tool_input), 'Bash: echo hello-from-tool');
    } finally {
      await obs.close();
    }
  });
});
