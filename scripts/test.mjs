// Runs every test file under test/ (recursively) with node:test through tsx.
// A shell glob would silently skip nested files on Node 20, so the list is built here.
// Arguments pick files by a part of their path (`node scripts/test.mjs scan tty`); those that start with -- are node's.
// A test skips only for a missing outside tool, naming it (test/helpers.ts needs()); the run ends
// with one line per skipped test, and with FLEET_GIT_TEST_NO_SKIPS=1 (.ci/run sets it) any skip
// fails the run, read from the runner's closing `skipped N` line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const files = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));
// `--quick` (npm run test:quick) leaves out the files that start the real Copilot CLI or trace
// system calls; npm test and .ci/run run every file. Kept here, in one place.
const SLOW = [
  'test/copilot-e2e.test.ts', // real Copilot sessions, 8 at once among them
  'test/copilot-levels-e2e.test.ts', // real Copilot: trust, hook levels, fleet-git run
  'test/fleet-dropin-e2e.test.ts', // real Copilot through fleet's own hook client
  'test/doctor-live.test.ts', // doctor --live: real Copilot sessions
  'test/upgrade.test.ts', // a previous release built and installed, real Copilot sessions after each upgrade
  'test/kill.test.ts', // SIGKILL by strace at every call that changes a file
  'test/macos-paths.test.ts', // under strace (bind, connect), doctor --live's real Copilot among them
  'test/traced.test.ts', // doctor, scan and remove under strace
];
const args = process.argv.slice(2);
const quick = args.includes('--quick');
// Other arguments that start with -- are node's, given before the files: reporters (scripts/compat.mjs gives its own,
// which take the place of the terminal's).
const options = args.filter((a) => a.startsWith('--') && a !== '--quick');
const only = args.filter((a) => !a.startsWith('--'));
for (const f of SLOW) if (!files.includes(f)) throw new Error(`scripts/test.mjs: ${f} in SLOW is not a test file`);
const picked = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
const chosen = quick ? picked.filter((f) => !SLOW.includes(f)) : picked;
if (chosen.length === 0) {
  console.error('test: no test files found');
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'fleet-git-test-run-'));
// One Copilot package cache for every file that runs the real Copilot CLI (test/helpers.ts copilotCache).
const env = process.env.FLEET_GIT_TEST_COPILOT_CACHE ? process.env : { ...process.env, FLEET_GIT_TEST_COPILOT_CACHE: work };
// The reporter the terminal gets is node's default for it; a TAP copy in a file is read for the skips.
const tap = join(work, 'report.tap');
const reporters = options.some((o) => o.startsWith('--test-reporter'))
  ? []
  : ['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout'];
reporters.push('--test-reporter', 'tap', '--test-reporter-destination', tap);
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...options, ...reporters, ...chosen], {
  cwd: root,
  stdio: 'inherit',
  env,
});
let report = '';
try {
  report = readFileSync(tap, 'utf8');
} catch {
  // no report: the runner did not start; its status says so
}
rmSync(work, { recursive: true, force: true });

const skips = report.split('\n').filter((l) => /^\s*ok \d+ - .* # SKIP/.test(l));
const counted = Number(/^# skipped (\d+)$/m.exec(report)?.[1] ?? 0);
for (const l of skips)
  console.log(
    `test: ${l
      .trim()
      .replace(/^ok \d+ - /, '')
      .replace(/ # SKIP ?/, ': ')}`,
  );
let status = r.status ?? 1;
if (counted > 0 && process.env.FLEET_GIT_TEST_NO_SKIPS === '1') {
  console.error(`test: ${counted} skipped, and FLEET_GIT_TEST_NO_SKIPS=1 allows none: install what the lines above name`);
  status = status || 1;
}
process.exit(status);
