// npm run compat [-- VERSION | oldest]: the real-Copilot end-to-end files against another Copilot CLI. Without an
// argument, the newest @github/copilot on the registry (what a user's Copilot updates itself to); `oldest`, the
// oldest fleet-git supports (package.json, fleet-git.copilot.oldest), the chain's files only (.ci/run runs that);
// or a version. It installs
// that version into a temporary folder (the checkout's own, pinned devDependency stays as it is), runs the files
// with FLEET_GIT_TEST_COPILOT naming it (test/helpers.ts), and prints a line a test, then one summary line. The
// whole test output goes to a log file, kept when a test fails. Exit 0 when every test passed, 1 when one failed,
// 2 when the version could not be found or installed. Needs a build (npm run compat builds first).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The files that run the real Copilot CLI (names as scripts/test.mjs takes them). The chain, Copilot's hooks to the
// observer with one level installed, is what every supported version passes (the oldest runs these). The levels need
// Copilot to tell a hook which file it runs from (COPILOT_HOOK_DIR, 1.0.102 on the registry): before it, both levels
// installed report each event twice and doctor --live cannot name the level (docs/platforms.md, Tested versions).
const CHAIN = ['copilot-e2e', 'fleet-dropin-e2e'];
const LEVELS = ['copilot-levels-e2e', 'doctor-live'];

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const npm = (args, opts = {}) => spawnSync('npm', args, { encoding: 'utf8', cwd: root, ...opts });
const fail = (message) => {
  console.error(`compat: ${message}`);
  process.exit(2);
};

const asked = process.argv[2] ?? 'newest';
let version = asked;
let which = '';
if (asked === 'newest') {
  const r = npm(['view', '@github/copilot', 'version']);
  version = r.stdout?.trim() ?? '';
  if (r.status !== 0 || !version) fail(`could not read the newest @github/copilot from the registry: ${r.stderr?.trim() || r.error}`);
  which = 'the newest on the registry';
} else if (asked === 'oldest') {
  version = manifest['fleet-git']?.copilot?.oldest;
  if (!version) fail('package.json has no fleet-git.copilot.oldest');
  which = 'the oldest supported';
} else if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(asked)) fail(`${asked}: not a version (say 1.0.102, oldest, or nothing for the newest)`);
const pinned = manifest.devDependencies['@github/copilot'];
if (version === pinned) which += `${which ? ', ' : ''}the pinned one`;
const files = asked === 'oldest' ? CHAIN : [...CHAIN, ...LEVELS];
const label = `copilot ${version}${which ? ` (${which})` : ''}, node ${process.version}, ${files.join(' ')}`;

const prefix = mkdtempSync(join(tmpdir(), `fleet-git-compat-${version}-`));
const log = join(tmpdir(), `fleet-git-compat-${version}-${process.pid}.log`);
let code = 1;
try {
  console.log(`${label}: installing into ${prefix}`);
  const installed = npm([
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    `@github/copilot@${version}`,
  ]);
  if (installed.status !== 0) {
    console.error(
      `compat: npm install @github/copilot@${version} failed: ${String(installed.stderr || installed.error)
        .trim()
        .split('\n')
        .at(-1)}`,
    );
    code = 2;
  } else code = runFiles();
} finally {
  rmSync(prefix, { recursive: true, force: true });
  if (code === 0) rmSync(log, { force: true });
}
process.exit(code);

/** Runs the end-to-end files against the installed Copilot, prints a line a test and the summary; the exit code. */
function runFiles() {
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'scripts', 'test.mjs'),
      '--test-reporter=tap',
      `--test-reporter-destination=${log}`,
      `--test-reporter=${join(root, 'scripts', 'compat-reporter.mjs')}`,
      '--test-reporter-destination=stdout',
      ...files,
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, FLEET_GIT_TEST_COPILOT: join(prefix, 'node_modules', '.bin', 'copilot') } },
  );
  const lines = (r.stdout ?? '').trimEnd().split('\n');
  const at = lines.findIndex((l) => /^\d+ tests, /.test(l));
  const summary = at < 0 ? 'no test results' : lines.splice(at, 1)[0];
  for (const line of lines) console.log(`  ${line}`);
  if (r.stderr?.trim()) writeFileSync(log, `\n# stderr\n${r.stderr}`, { flag: 'a' });
  const failed = r.status !== 0;
  console.log(
    `${label}: ${summary}, ${Math.round((Date.now() - started) / 1000)} s${failed ? `: FAILED, the whole output in ${log}` : ''}`,
  );
  return failed ? 1 : 0;
}
