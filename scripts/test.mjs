// Runs every test file under test/ (recursively) with node:test, the project's TypeScript made
// JavaScript by esbuild for the run (scripts/ts-loader.mjs).
// A shell glob would silently skip nested files on Node 20, so the list is built here.
// Arguments pick files by a part of their path (`node scripts/test.mjs scan tty`); those that start with -- are node's.
// A test skips only for a missing outside tool, naming it (test/helpers.ts needs()); the run ends
// with one line per skipped test, and with FLEET_GIT_TEST_NO_SKIPS=1 (.ci/run sets it) any skip
// fails the run, read from the runner's closing `skipped N` line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { MEMORY_FOLDER, memoryFolderHere } from './memory-folder.mjs';

const root = join(import.meta.dirname, '..');
/** The files under `dir` (recursively) whose name ends with `suffix`, relative to the root. */
function find(dir, suffix, found = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) find(p, suffix, found);
    else if (e.name.endsWith(suffix)) found.push(relative(root, p));
  }
  return found;
}
const files = find(join(root, 'test'), '.test.ts');
// `--quick` (npm run test:quick) leaves out the files that start the real Copilot CLI, trace
// system calls, spend their time waiting by design (on leases, idle forwarders, stalled
// observers), or start fleet-git, its hook client or another tool as a process over and over
// (races, terminals, other builds, npm, pre-commit); npm test and .ci/run run every file. What
// stays mostly runs fleet-git's commands in the test's own process, and its hooks under git. Kept here,
// in one place.
const SLOW = [
  'test/forwarder-faults.test.ts', // waits out leases, stalls an observer 8 s, starves a forwarder of CPU
  'test/hook-forwarder.test.ts', // forwarders that leave after their idle time, one after another
  'test/observer-restart.test.ts', // one forwarder across observers ended and started again, a minute of events among them
  'test/notify.test.ts', // forwarders and fleet's notifier as processes, a notify-send held until released
  'test/macos.test.ts', // the same hook and forwarder under bash 3.2 and without /proc
  'test/doctor.test.ts', // the hook-client check's test events through a forwarder, each of its states
  'test/post-checkout-lock.test.ts', // checkouts that wait out a held lock, hooks killed as they write
  'test/copilot-e2e.test.ts', // real Copilot sessions, 8 at once among them
  'test/copilot-levels-e2e.test.ts', // real Copilot: trust, hook levels, fleet-git run
  'test/copilot-subagents-e2e.test.ts', // real Copilot: task subagents, nested and at once; fleet's notifications
  'test/fleet-dropin-e2e.test.ts', // real Copilot through fleet's own hook client
  'test/vscode-shape-e2e.test.ts', // real Copilot's VS Code-shaped payloads (PascalCase keys)
  'test/doctor-live.test.ts', // doctor --live: real Copilot sessions
  'test/upgrade.test.ts', // a previous release built and installed, real Copilot sessions after each upgrade
  'test/kill.test.ts', // SIGKILL by strace at every call that changes a file
  'test/macos-paths.test.ts', // under strace (bind, connect), doctor --live's real Copilot among them
  'test/traced.test.ts', // doctor, scan and remove under strace
  'test/concurrency.test.ts', // fleet-git processes started at once to race, over and over
  'test/hook-client.test.ts', // the hook client as a process, some 70 times, against stalled observers among them
  'test/kit.test.ts', // other builds of fleet-git as processes, events racing a kit's replacement
  'test/run.test.ts', // fleet-git run as a process, starting a fake copilot, four at once among them
  'test/tty.test.ts', // fleet-git processes on a pseudo-terminal
  'test/hook-managers.test.ts', // real husky, lefthook and pre-commit (Python) runs
  'test/package.test.ts', // npm pack and npm install -g of the package
  'test/test-runner.test.ts', // this runner itself, run on a test file
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
/**
 * `--quick` with no TMPDIR of the caller's: the tests' temporary folders go in memory, where /dev/shm is a
 * tmpfs (Linux). The tests make and remove thousands of files and folders (a repository copied for each
 * case); on an ext4 disk that costs some five times the CPU (docs/measured.md). npm test and .ci/run keep
 * the machine's temporary folder, so the whole suite runs on a real disk.
 */
function inMemory() {
  if (!quick || process.env.TMPDIR || !memoryFolderHere()) return null;
  try {
    return mkdtempSync(join(MEMORY_FOLDER, 'fleet-git-'));
  } catch {
    return null; // not ours to write
  }
}
const memory = inMemory();
const work = memory ?? mkdtempSync(join(tmpdir(), 'fleet-git-test-run-'));
const env = { ...process.env };
// node reads NODE_EXTRA_CA_CERTS at every start (Debian's whole bundle: 70 ms of CPU a process on a CI
// machine), and no test process makes a TLS connection; npm, which the package tests run, does, and
// test/npm.ts gives it back to npm.
if (env.NODE_EXTRA_CA_CERTS !== undefined) {
  env.FLEET_GIT_TEST_CA_CERTS = env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_EXTRA_CA_CERTS;
}
// Fewer repetitions of the race and generated cases under --quick (test/helpers.ts repeats()).
if (quick) env.FLEET_GIT_TEST_QUICK = '1';
else delete env.FLEET_GIT_TEST_QUICK;
// One Copilot package cache for every file that runs the real Copilot CLI (test/helpers.ts copilotCache).
env.FLEET_GIT_TEST_COPILOT_CACHE ??= work;
if (memory) {
  env.TMPDIR = join(work, 't');
  mkdirSync(env.TMPDIR);
}
// Every TypeScript file of the project, made JavaScript once for the run: each file's process loads
// scripts/ts-loader.mjs, which answers with it (scripts/ts-hooks.mjs), instead of tsx.
env.FLEET_GIT_TEST_JS = join(work, 'js');
await compileAll(env.FLEET_GIT_TEST_JS);
// The reporter the terminal gets is node's default for it; a TAP copy in a file is read for the skips.
const tap = join(work, 'report.tap');
const reporters = options.some((o) => o.startsWith('--test-reporter'))
  ? []
  : ['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout'];
reporters.push('--test-reporter', 'tap', '--test-reporter-destination', tap);
// Two files at a time; --quick, one more than the cores: its files wait on timers and sockets for a
// part of their time, which a third file fills (2 cores: 65 s against 82, docs/measured.md).
const concurrency = quick ? availableParallelism() + 1 : 2;
if (quick)
  console.error(
    `test: quick: ${chosen.length} file${chosen.length === 1 ? '' : 's'}, ${concurrency} at a time, a quarter of the repetitions, temporary folders in ${memory ? `${env.TMPDIR} (memory)` : tmpdir()}`,
  );
// A file that runs longer than this fails, named, and its process is ended: a hang (a child that never exits, a
// promise never settled) costs its run 10 minutes, not the whole of CI's time. The longest file takes under 2.
const FILE_LIMIT_MS = 600_000;
// Ctrl-C (or a TERM) reaches the runner, which stops; this process then still removes its folder.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => {});
const r = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    '--import',
    join(root, 'scripts', 'ts-loader.mjs'),
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${FILE_LIMIT_MS}`,
    ...options,
    ...reporters,
    ...chosen,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env,
  },
);
/**
 * esbuild's JavaScript of every .ts file under src/, test/ and scripts/, in `dir` as the tree is. A
 * file's source map names the .ts file beside the module's own URL, which is the .ts file's: stack
 * traces (--enable-source-maps) show its lines.
 */
async function compileAll(dir) {
  const { build } = await import('esbuild');
  const { outputFiles } = await build({
    entryPoints: ['src', 'test', 'scripts'].flatMap((d) => find(join(root, d), '.ts')).map((f) => join(root, f)),
    outdir: dir,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    tsconfig: join(root, 'tsconfig.json'),
    sourcemap: 'external',
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
  });
  const maps = new Map(outputFiles.filter((f) => f.path.endsWith('.map')).map((f) => [f.path.slice(0, -4), f.text]));
  for (const f of outputFiles) {
    if (f.path.endsWith('.map')) continue;
    const map = JSON.parse(maps.get(f.path));
    map.sources = [`${basename(f.path, '.js')}.ts`];
    const text = f.text.replace(/\/\/# sourceMappingURL=.*\n?$/, '');
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(
      f.path,
      `${text}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`,
    );
  }
}

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
