#!/usr/bin/env node
// The README's first picture: the real fleet observer (`fleet observer` of
// claude-code-fleet) beside one real Copilot CLI session in a repository that
// `fleet-git enable --trust` enabled, its screen captured as text from tmux
// (capture-pane). Copilot (the pinned devDependency) runs offline against the
// benchmarks' scripted model (bench/lib/fake-model.mjs: two bash tool calls,
// then the answer "Done."); everything runs in a throwaway HOME, so the
// observer, Copilot and fleet-git see nothing of the user's own.
//
//   npm run build && node bench/by-hand/observer-screen.mjs FLEET > docs/observer-screen.txt
//
// FLEET: the `fleet` command of claude-code-fleet (its bin, src/index.js of a
// checkout with its dependencies installed). Needs tmux.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeModel } from '../lib/fake-model.mjs';
import { homeEnv } from '../lib/home-env.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const COPILOT = join(ROOT, 'node_modules', '.bin', 'copilot');
const fleet = process.argv[2];
if (!fleet) {
  process.stderr.write('usage: node bench/by-hand/observer-screen.mjs FLEET (the fleet command of claude-code-fleet)\n');
  process.exit(2);
}
const top = mkdtempSync(join(tmpdir(), 'fleet-git-screen-'));
const home = join(top, 'home');
const env = homeEnv(home, { TERM: 'xterm-256color', LANG: 'C.UTF-8' });
const tmux = (...args) => execFileSync('tmux', ['-L', `fleet-git-screen-${process.pid}`, ...args], { env, encoding: 'utf8' });
const model = await startFakeModel({ calls: () => 2 });
try {
  // The observer first, on a screen of 100 by 24.
  tmux('new-session', '-d', '-x', '100', '-y', '24', `${process.execPath} ${resolve(fleet)} observer`);
  const repo = join(home, 'code', 'my-project');
  execFileSync('mkdir', ['-p', repo]);
  execFileSync('git', ['init', '-q', repo], { env });
  execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'start'], { cwd: repo, env });
  execFileSync(process.execPath, [CLI, 'enable', '--trust', '-q'], { cwd: repo, env, stdio: 'inherit' });
  await new Promise((done) => setTimeout(done, 2000)); // the observer is listening
  const copilot = spawn(COPILOT, ['-p', 'Show me what is in this repository', '--allow-all', '--no-auto-update'], {
    cwd: repo,
    env: {
      ...env,
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: model.baseUrl,
      COPILOT_PROVIDER_API_KEY: 'dummy',
      COPILOT_MODEL: 'gpt-4.1',
    },
    stdio: 'ignore',
  });
  const code = await new Promise((done) => copilot.on('close', done));
  if (code !== 0) throw new Error(`copilot -p exited ${code}`);
  // The card shows the answer once the agentStop event is in: wait for it, at most 20 s.
  let screen = '';
  for (let i = 0; i < 100 && !screen.includes('Done.'); i++) {
    await new Promise((done) => setTimeout(done, 200));
    screen = tmux('capture-pane', '-p', '-t', '0');
  }
  if (!screen.includes('Done.')) throw new Error(`the observer never showed the answer:\n${screen}`);
  process.stdout.write(`${screen.replaceAll(home, '~').trimEnd()}\n`);
} finally {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  model.close?.();
  rmSync(top, { recursive: true, force: true });
}
