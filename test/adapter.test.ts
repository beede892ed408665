// CopilotAdapter: fleet's adapter contract for Copilot CLI.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { CopilotAdapter } from '../src/copilot/adapter.js';
import { userPaths } from '../src/paths.js';
import { FIXTURES, ROOT, sandbox } from './helpers.js';
import { observerSummary, TestObserver } from './observer-server.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

describe('CopilotAdapter', () => {
  const sb = sandbox();

  test('names and events', () => {
    const a = new CopilotAdapter({});
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
    assert.equal(new CopilotAdapter({ PATH: `${sb.dir}:${bin}` }).isInstalled(), true);
    assert.equal(new CopilotAdapter({ PATH: notExec }).isInstalled(), false);
    assert.equal(new CopilotAdapter({ PATH: '' }).isInstalled(), false);
  });

  test('buildArgs: --allow-all then the profile\'s own arguments, no --model', () => {
    const a = new CopilotAdapter({});
    assert.deepEqual(a.buildArgs({ name: 'p' }), ['--allow-all']);
    assert.deepEqual(a.buildArgs({ name: 'p', model: 'gpt-4.1', args: ['--no-auto-update', '--add-dir', '/x'] }), ['--allow-all', '--no-auto-update', '--add-dir', '/x']);
  });

  test('buildEnv: a new object with the profile on top, baseEnv untouched', () => {
    const a = new CopilotAdapter({});
    const base = Object.freeze({ PATH: '/bin', COPILOT_MODEL: 'old', KEEP: 'yes' });
    const env = a.buildEnv({ name: 'work-gpt', model: 'gpt-4.1', apiKey: 'github_pat_x', env: { K: 'v', N: 3, GONE: null, KEEP: 'over' } }, base);
    assert.notEqual(env, base);
    assert.deepEqual(base, { PATH: '/bin', COPILOT_MODEL: 'old', KEEP: 'yes' });
    assert.deepEqual(env, { PATH: '/bin', COPILOT_MODEL: 'gpt-4.1', KEEP: 'over', FLEET_MODEL_NAME: 'work-gpt', COPILOT_GITHUB_TOKEN: 'github_pat_x', K: 'v', N: '3' });
    const plain = a.buildEnv({ name: 'logged-in', model: null, apiKey: null }, { PATH: '/bin' });
    assert.deepEqual(plain, { PATH: '/bin', FLEET_MODEL_NAME: 'logged-in' });
  });

  test('normalizePayload and summarizeToolUse', () => {
    const a = new CopilotAdapter({ FLEET_MODEL_NAME: 'work' });
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

  test('classifyFailure', () => {
    const a = new CopilotAdapter({});
    assert.deepEqual(a.classifyFailure({ stderrSnippet: 'Error: 429 Too Many Requests' }), { kind: 'failover-safe', reason: 'rate_limited' });
    assert.deepEqual(a.classifyFailure({ stderrSnippet: 'connect ECONNREFUSED 127.0.0.1:443' }), { kind: 'failover-safe', reason: 'upstream_unreachable' });
    assert.deepEqual(a.classifyFailure({ stderrSnippet: 'Error: invalid flag --model' }), { kind: 'terminal', reason: 'unclassified' });
    assert.deepEqual(a.classifyFailure({}), { kind: 'terminal', reason: 'unclassified' });
  });

  test('installHooks, isHookInstalled, removeHooks; someone else\'s file is left alone', () => {
    const a = new CopilotAdapter(sb.env);
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
      assert.ok(doc.hooks[event].some((h: { type: string; bash: string }) => h.type === 'command' && h.bash.includes('claude-code-fleet')), event);
    }
    for (const [event, entries] of Object.entries(doc.hooks) as Array<[string, Array<{ bash: string }>]>) {
      assert.ok(entries[0]!.bash.includes(join(sb.dir, 'data')), event);
      assert.ok(entries[0]!.bash.includes(` ${event};`), event);
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
    assert.throws(() => a.installHooks(join(sb.dir, 'client.js'), repo), /hook-client\.cjs/);
  });

  test('the installed hook command, run as Copilot runs it, reaches the observer with Copilot as ppid', async () => {
    const a = new CopilotAdapter(sb.env);
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
      assert.equal(start.ppid, process.pid); // bash exec'd node: its parent is the one that ran the hook
      const tool = await obs.waitFor((e) => e.event === 'PostToolUse');
      assert.equal(observerSummary(tool.tool_name, tool.tool_input), 'Bash: echo hello-from-tool');
    } finally {
      await obs.close();
    }
  });
});
