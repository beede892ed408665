// Shared test helpers: an isolated user environment (nothing touches the real
// HOME or global git config), real git repositories in temporary folders, and
// fleet-git's command line run in-process (the commands' own code, with the
// sandbox's environment and streams of its own) or as the built process.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { CLI, runSync, start } from './spawn.js';
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  mkdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
  readdirSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { Cli } from 'clipanion';
import { main } from '../src/commands/command-line.js';
import { CHECKOUT_SCRIPT, CLIENT_FILE, HOOK_SCRIPT } from '../src/paths.js';
import { sleepSync } from '../src/fs/sleep.js';

export const ROOT = join(import.meta.dirname, '..');
/** Real payloads and transcript lines captured from Copilot CLI 1.0.102 (home folder rewritten to /home/dev). */
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'copilot-1.0.102');
export { CLI };
/**
 * The Copilot CLI the real-Copilot tests run: the pinned devDependency @github/copilot, or the `copilot` command
 * FLEET_GIT_TEST_COPILOT names (`<prefix>/node_modules/.bin/copilot` of an `npm install --prefix <prefix>
 * @github/copilot@<version>`; .ci/run and scripts/compat.mjs run the end-to-end files so on other versions).
 */
export const COPILOT = process.env.FLEET_GIT_TEST_COPILOT || join(ROOT, 'node_modules', '.bin', 'copilot');
if (basename(COPILOT) !== 'copilot')
  throw new Error(`FLEET_GIT_TEST_COPILOT=${COPILOT}: name the copilot command itself (<prefix>/node_modules/.bin/copilot)`);
/** The folder of COPILOT, to put first on PATH where a test's fleet-git looks copilot up there. */
export const COPILOT_DIR = dirname(COPILOT);

/**
 * A real bash 3.2 when FLEET_GIT_TEST_BASH32 names one (macOS's 3.2.57 built on Linux: docs/development.md);
 * otherwise, as in CI, which has none, the bash 3.2 tests imitate it with bash 5 (test/macos.test.ts).
 */
export const BASH32 = process.env.FLEET_GIT_TEST_BASH32 || null;
if (BASH32 && !/^GNU bash, version 3\.2\./.test(spawnSync(BASH32, ['--version'], { encoding: 'utf8' }).stdout ?? ''))
  throw new Error(`FLEET_GIT_TEST_BASH32=${BASH32}: name a bash 3.2 (its --version says another, or it does not run)`);

/** COPILOT's version, from the package.json beside the loader the command links to (null when COPILOT is missing). */
export function copilotVersion(): string | null {
  if (!existsSync(COPILOT)) return null;
  const manifest = join(dirname(realpathSync(COPILOT)), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * Why a test of the real Copilot CLI skips, or false: a missing Copilot fails it (CI installs it with `npm ci`);
 * skipping takes an explicit request (FLEET_GIT_SKIP_COPILOT_E2E=1), and is refused in CI.
 */
export const copilotSkip: string | false =
  !existsSync(COPILOT) && process.env.FLEET_GIT_SKIP_COPILOT_E2E === '1' && !process.env.CI
    ? 'the Copilot CLI is not installed and FLEET_GIT_SKIP_COPILOT_E2E=1'
    : false;

/**
 * A sandbox's PATH: the caller's without any folder holding a copilot executable, wherever the tests were
 * started from (npm run puts node_modules/.bin first; a user may have one installed): doctor would run its
 * --version, 1.5 s of CPU. A test of the real Copilot CLI puts COPILOT_DIR on PATH itself.
 */
const SANDBOX_PATH = (process.env.PATH ?? '/usr/bin:/bin')
  .split(':')
  .filter((d) => d && !existsSync(join(d, 'copilot')))
  .join(':');

export interface Sandbox {
  dir: string;
  home: string;
  env: Record<string, string>;
  /** Runs git with the sandbox environment. Returns stdout (trimmed). */
  git(cwd: string, ...args: string[]): string;
  /** Runs the built fleet-git CLI as a process (for what only a process shows: exit, signals, start-up, the bundle). */
  cli(cwd: string, ...args: string[]): SpawnSyncReturns<string>;
  /** Runs a fleet-git command line in-process, as the built CLI would run it, with the sandbox's environment. */
  fleet(cwd: string, ...args: string[]): Promise<Ran>;
  /** A new repository with one commit on branch main. */
  repo(name: string): string;
  /** Runs git without throwing, for exit codes and stderr. */
  run(cwd: string, args: string[]): SpawnSyncReturns<string>;
  /**
   * Keeps these folders of the sandbox (names in its folder) as they are now; the function returned puts them back
   * at the same paths, where a linked worktree or a .git file still names its repository by its absolute path. For
   * cases that each start from one state made once.
   */
  keep(...names: string[]): () => void;
}

/**
 * The longest a test's temporary folder may be (the system's one and the
 * folder's name): a socket a test makes inside (the observer's,
 * home/.config/claude-code-fleet/fleet.sock; a probe's) must fit a Unix
 * socket's 107 bytes.
 */
const TEMP_DIR_MAX = 60;

/** Whether a user other than its owner can pass through `dir` and each folder above it. */
function othersCanEnter(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (d === dirname(d)) return true;
  }
}

/**
 * Where a test makes a temporary folder named `prefix` and six characters: the
 * system's temporary folder (TMPDIR), or /tmp where that is too long for the
 * sockets made inside, or (`forOthers`: for a test that runs fleet-git as
 * nobody) closed to other users. The caller's TMPDIR may be either.
 */
export function tempBase(prefix: string, forOthers = false): string {
  const t = tmpdir();
  const fits = Buffer.byteLength(join(t, `${prefix}XXXXXX`)) <= TEMP_DIR_MAX;
  return fits && (!forOthers || othersCanEnter(t)) ? t : '/tmp';
}

/**
 * An isolated HOME, global git config, XDG folders and COPILOT_HOME, removed
 * after the test file; `forOthers`: in a folder another user can reach (for a
 * test that runs fleet-git as nobody; the sandbox's own folder is still 0700).
 */
export function sandbox(prefix = 'fleet-git-test-', opts: { forOthers?: boolean } = {}): Sandbox {
  const dir = realpathSync(mkdtempSync(join(tempBase(prefix, opts.forOthers), prefix)));
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const globalConfig = join(home, '.gitconfig');
  writeFileSync(globalConfig, GLOBAL_CONFIG);
  const env: Record<string, string> = {
    PATH: SANDBOX_PATH,
    HOME: home,
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_CONFIG_NOSYSTEM: '1',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    COPILOT_HOME: join(home, '.copilot'),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  };
  after(() => {
    endProcesses(home);
    rmSync(dir, { recursive: true, force: true });
  });
  const git = (cwd: string, ...args: string[]) => gitOut(cwd, args, env);
  return {
    dir,
    home,
    env,
    git,
    run: (cwd, args) => runSync('git', args, { cwd, env }),
    keep(...names) {
      const kept = mkdtempSync(join(dir, '.kept-'));
      const copies = names.map((n) => {
        const listed = listFolder(join(dir, n));
        const root = join(kept, n);
        copyListed(listed, root);
        return { at: join(dir, n), copy: { ...listed, root } };
      });
      return () => {
        for (const { at, copy } of copies) {
          rmSync(at, { recursive: true, force: true });
          copyListed(copy, at);
        }
      };
    },
    cli: (cwd, ...args) => runSync(process.execPath, [CLI, ...args], { cwd, env }),
    fleet: (cwd, ...args) => fleetInProcess(args, { cwd, env }),
    repo(name) {
      const path = join(dir, name);
      // git init, add and commit cost three processes; a copy of the repository made before in this process
      // (every name gets the same one) costs none. Only where git would make the same repository: the
      // sandbox's global config as sandbox() wrote it, the same umask and GIT_* variables.
      const key = sameRepoKey(env, globalConfig);
      const made = key === undefined ? undefined : madeRepos.get(key);
      if (made) copyListed(made, path);
      else {
        makeRepo(path, git);
        if (key !== undefined) madeRepos.set(key, keepCopy(path));
      }
      return path;
    },
  };
}

/** git's stdout (trimmed); throws, with its stderr, when it fails. */
function gitOut(cwd: string, args: string[], env: Record<string, string>): string {
  const r = runSync('git', args, { cwd, env });
  if (r.error || r.status !== 0)
    throw new Error(`git ${args.join(' ')} (in ${cwd}): ${r.error?.message ?? `exit ${r.status}`}\n${r.stderr}`);
  return r.stdout.trim();
}

const GLOBAL_CONFIG =
  '[user]\n\tname = Test\n\temail = test@example.invalid\n[commit]\n\tgpgSign = false\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n';
/** The GIT_* variables a repository may be copied under (the dates are part of what it is). */
const COPYABLE_GIT_ENV = /^GIT_(CONFIG_GLOBAL|CONFIG_NOSYSTEM|(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE))$/;

/** What sandbox().repo(name) makes depends on, or undefined where it may depend on more. */
function sameRepoKey(env: Record<string, string>, globalConfig: string): string | undefined {
  const git = Object.keys(env)
    .filter((k) => k.startsWith('GIT_'))
    .sort();
  if (!git.every((k) => COPYABLE_GIT_ENV.test(k)) || env.GIT_CONFIG_GLOBAL !== globalConfig) return undefined;
  if (readFileSync(globalConfig, 'utf8') !== GLOBAL_CONFIG) return undefined;
  const vars = git.filter((k) => k !== 'GIT_CONFIG_GLOBAL').map((k) => `${k}=${env[k]}`);
  return JSON.stringify([process.umask(), vars]); // a copy keeps the modes the umask gave
}

function makeRepo(path: string, git: (cwd: string, ...args: string[]) => string) {
  mkdirSync(path, { recursive: true });
  git(path, 'init', '-q', '-b', 'main');
  writeFileSync(join(path, 'README.md'), '# a repository\n');
  git(path, 'add', '-A');
  git(path, 'commit', '-q', '-m', 'init');
}

let kept: string | undefined;
/** The repositories sandbox().repo(name) made in this process, kept (by what they depend on). */
const madeRepos = new Map<string, Listed>();

/** A copy of a repository just made, in a folder of this process's own (removed at its exit), listed. */
function keepCopy(path: string): Listed {
  if (!kept) {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'fleet-git-test-repos-')));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    kept = dir;
  }
  const listed = listFolder(path);
  const root = join(kept, String(madeRepos.size));
  copyListed(listed, root);
  return { ...listed, root };
}

/** A folder listed once: its path, its mode, and what it holds, each entry after the folder it is in. */
export interface Listed {
  root: string;
  mode: number;
  entries: Array<{ rel: string; kind: 'dir' | 'file' | 'link'; mode: number; atime: Date; mtime: Date; target: string }>;
}

/** `root` and everything under it (a symbolic link as a link, never followed). */
export function listFolder(root: string): Listed {
  const entries: Listed['entries'] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel))) {
      const r = join(rel, name);
      const st = lstatSync(join(root, r));
      const kind = st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : 'file';
      const target = kind === 'link' ? readlinkSync(join(root, r)) : '';
      entries.push({ rel: r, kind, mode: st.mode & 0o7777, atime: st.atime, mtime: st.mtime, target });
      if (kind === 'dir') walk(r);
    }
  };
  walk('');
  return { root, mode: statSync(root).mode & 0o7777, entries };
}

/**
 * `l` copied to `path`, made as cpSync with verbatimSymlinks and preserveTimestamps would (folders and files with
 * their modes, files with their times, links as they read) from the entries listed once: a third of cpSync's CPU,
 * which looks at each entry and its copy again every time. Folders get their modes last, deepest first, so that one
 * closed to its owner still takes what it holds.
 */
export function copyListed(l: Listed, path: string): void {
  mkdirSync(path, { recursive: true });
  for (const e of l.entries) {
    const to = join(path, e.rel);
    if (e.kind === 'dir') mkdirSync(to);
    else if (e.kind === 'link') symlinkSync(e.target, to);
    else {
      copyFileSync(join(l.root, e.rel), to);
      utimesSync(to, e.atime, e.mtime);
    }
  }
  for (let i = l.entries.length - 1; i >= 0; i--) {
    const e = l.entries[i]!;
    if (e.kind === 'dir') chmodSync(join(path, e.rel), e.mode);
  }
  chmodSync(path, l.mode);
}

/** What a command line gave: its exit code and everything it wrote on stdout and stderr. */
export interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

/** Under a file, so not even root can make it a folder. */
const TRAP_HOME = '/dev/null/not-the-home-of-an-in-process-command';
let inProcess = 0;
let realHome: string | undefined;

/**
 * Runs one fleet-git command line in this process: main() of
 * src/commands/command-line.ts, what the built CLI runs, in a context of its
 * own (cwd, env, home from env.HOME, `input` on stdin, stdout and stderr
 * PassThrough streams, not a terminal), as clipanion's own tests run commands.
 * The commands read only that context, never the process's env or cwd.
 */
export async function fleetInProcess(args: string[], opts: { cwd: string; env: Record<string, string>; input?: string }): Promise<Ran> {
  const stdin = new PassThrough();
  stdin.end(opts.input ?? '');
  const collect = (s: PassThrough) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    return new Promise<string>((resolve) => s.on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))));
  };
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const env = { ...opts.env };
  // Without HOME the process would take the user's from the password file; here it would be the real one.
  if (!env.HOME) throw new Error('fleetInProcess: the environment has no HOME (a test without one runs the built CLI)');
  // While it runs, the process's own HOME names no folder: a command that read it (or os.homedir())
  // instead of its context would fail, not write into the real home.
  if (inProcess++ === 0) {
    realHome = process.env.HOME;
    process.env.HOME = TRAP_HOME;
  }
  let status: number;
  try {
    status = await main(args, { ...Cli.defaultContext, stdin, stdout, stderr, cwd: opts.cwd, env, home: env.HOME });
  } finally {
    if (--inProcess === 0) {
      if (realHome === undefined) delete process.env.HOME;
      else process.env.HOME = realHome;
    }
  }
  stdout.end();
  stderr.end();
  return { status, stdout: await out, stderr: await err };
}

/** Every file, folder and link under `root` with its mode and content: two snapshots are equal only when nothing changed. */
export function snapshot(root: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  (function walk(rel: string) {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r)) continue;
      const p = join(root, r);
      const st = lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[r] = `dir ${mode}`;
        walk(r);
      } else out[r] = `file ${mode} ${readFileSync(p).toString('base64')}`;
    }
  })('');
  return out;
}

export function run(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string>; input?: string }) {
  return runSync(cmd, args, opts);
}

/** git's own churn (index, logs, packed refs, the last fetch and commit message): not fleet-git's doing, left out of snapshots. */
export const gitChurn = (rel: string) => /(^|\/)(index|logs|COMMIT_EDITMSG|ORIG_HEAD|FETCH_HEAD|packed-refs)$/.test(rel);

/** The environment that runs Copilot CLI offline against a scripted model server at `baseUrl`, with repository hooks loaded in -p mode (copilot-cli-hooks.md). */
export function offlineCopilotEnv(base: Record<string, string>, baseUrl: string, fleetModelName: string): Record<string, string> {
  return {
    ...base,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: baseUrl,
    COPILOT_PROVIDER_API_KEY: 'dummy',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_ALLOW_ALL: 'true', // repo hooks load in -p mode only when trusted
    FLEET_MODEL_NAME: fleetModelName,
  };
}

/** Runs `copilot -p PROMPT --allow-all --no-auto-update` in `cwd` (one session, as a user's script would) and fails unless it exits 0. */
export async function copilotPrompt(prompt: string, cwd: string, env: Record<string, string>): Promise<void> {
  const r = await start(COPILOT, ['-p', prompt, '--allow-all', '--no-auto-update'], { cwd, env }).done;
  if (r.code !== 0) throw new Error(`copilot -p exited ${r.code}:\n${r.stdout}${r.stderr}${r.error ?? ''}`);
}

let nobody: number | undefined;
/** nobody's uid: as root, a test that needs a permission to stop fleet-git runs it as nobody (asNobody). */
export function nobodyUid(): number {
  return (nobody ??= Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim()));
}

/** `argv` (a program and its arguments) run as nobody when this is root (setpriv), else as it is. */
export function asNobody(argv: string[]): string[] {
  if (process.getuid?.() !== 0) return argv;
  const id = nobodyUid();
  return ['setpriv', `--reuid=${id}`, `--regid=${id}`, '--clear-groups', ...argv];
}

let nobodys: string | undefined;
/**
 * The built CLI for a command run through asNobody(): this clone's dist/cli.cjs, or, as root where nobody cannot
 * reach it (a clone inside a folder others cannot enter: mktemp -d makes 0700 ones), the same build copied into a
 * temporary folder others can enter, removed at this process's exit.
 */
export function cliForNobody(): string {
  if (nobodys) return nobodys;
  const [cmd, ...args] = asNobody([process.execPath, '-e', 'require("fs").accessSync(process.argv[1])', CLI]);
  if (process.getuid?.() !== 0 || spawnSync(cmd!, args).status === 0) return (nobodys = CLI);
  const dir = mkdtempSync(join(tempBase('fleet-git-nobody-', true), 'fleet-git-nobody-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  return (nobodys = otherBuild(dir, null));
}

/** The pids of the processes (Linux: /proc) that run with this HOME, but this one. */
function withHome(home: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) found.push(Number(name));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/**
 * Linux: SIGKILLs every process that runs with this HOME, until none is left (up to 5 s). A sandbox's removal
 * then races no forwarder still renewing its lease in the spool, and no child of a case that timed out (a
 * Copilot, a hook) outlives its file and keeps that file's process from ending.
 */
function endProcesses(home: string): void {
  const deadline = Date.now() + 5_000;
  for (let pids = withHome(home); pids.length > 0 && Date.now() < deadline; pids = withHome(home)) {
    for (const pid of pids)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    sleepSync(10);
  }
}

const readCmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return ''; // gone
  }
};

/**
 * fleet-git's processes (Linux: /proc) run with this HOME: hook commands, the
 * shells that start a forwarder, forwarders, hook clients. What a sandbox's
 * hooks left running.
 */
export function fleetGitProcesses(home: string): number[] {
  return withHome(home).filter((pid) => /hook-client\.cjs|fleet-git-forwarder|claude-code-fleet fleet-git/.test(readCmdline(pid)));
}

/**
 * Linux: fleet-git's node processes (hook clients, forwarders) that run with this HOME, each with its executable
 * (/proc/PID/exe). The executable is read first and the command line after it, and a process counts only when that
 * command line is the client's: a hook's shell forks copies of itself, which carry the shell's command line until
 * they exec another program (cat, for a payload on a socket), so the other order could pair a shell's command line
 * with cat's executable. A process still a shell, or still setsid (Linux: it execs the forwarder's node in a session
 * of its own), when its executable was read is left out.
 */
export function fleetGitNodes(home: string): Array<{ pid: number; exe: string }> {
  const found: Array<{ pid: number; exe: string }> = [];
  for (const pid of withHome(home))
    try {
      const exe = readlinkSync(`/proc/${pid}/exe`);
      if (/\/((ba|da)?sh|setsid)$/.test(exe)) continue;
      if (/hook-client\.cjs|fleet-git-forwarder/.test(readCmdline(pid))) found.push({ pid, exe });
    } catch {
      /* gone */
    }
  return found;
}

/**
 * Resolves once no more events can reach the observer from a sandbox's hooks, after the Copilot processes
 * that fire them have exited: no fleet-git process runs with that HOME (hook commands, forwarders, agentStop
 * waiters) and the spool folder is empty or absent, seen so on two looks 20 ms apart (so the observer in this
 * process has read what the last one sent before it went). A test that expects nothing proves the absence
 * so, not by sleeping. Throws after `timeoutMs`, naming what was left. Lower the forwarder's linger
 * (FLEET_GIT_FORWARDER_IDLE_MS in Copilot's environment), or this waits its 10 s out.
 */
export async function hooksSettled(home: string, spool: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  for (;;) {
    let files: string[] = [];
    try {
      files = readdirSync(spool);
    } catch {
      /* no spool: nothing waits there */
    }
    const processes = fleetGitProcesses(home);
    quiet = processes.length === 0 && files.length === 0 ? quiet + 1 : 0;
    if (quiet === 2) return;
    if (Date.now() >= deadline)
      throw new Error(`hooks not settled within ${timeoutMs} ms: processes ${JSON.stringify(processes)}, spool ${JSON.stringify(files)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * How many helper threads (worker_threads) `run` made in this process: for a
 * test whose title says the helper threads did the work. The in-process runs
 * of one test file follow one another, so the count is the run's own.
 */
export async function workersDuring<T>(run: () => Promise<T>): Promise<{ result: T; workers: number }> {
  let workers = 0;
  const count = () => workers++;
  process.on('worker', count);
  try {
    return { result: await run(), workers };
  } finally {
    process.off('worker', count);
  }
}

/**
 * The NODE_OPTIONS that make each node process started with it write, as it
 * exits, how many worker threads it made (one line in `log`, `<pid> <count>`):
 * for built CLI processes whose helper threads a test counts.
 */
export function countingWorkers(log: string): Record<string, string> {
  const preload = join(ROOT, 'test', 'fixtures', 'count-workers.cjs');
  return { NODE_OPTIONS: `--require=${preload}`, FLEET_GIT_TEST_WORKER_LOG: log };
}

/** How many helper threads bulk commands use on this machine (src/core/bulk/bulk-apply.ts: two with a second core). */
export const HELPERS = Math.min(2, availableParallelism()) > 1 ? 2 : 0;

/** Copilot marks a finished unpack with copilot/pkg/<platform>/<version>/.extraction-complete (COPILOT's version). */
function unpacked(cache: string): boolean {
  const pkg = join(cache, 'copilot', 'pkg');
  const version = copilotVersion();
  try {
    return readdirSync(pkg).some((p) => existsSync(join(pkg, p, version ?? '', '.extraction-complete')));
  } catch {
    return false;
  }
}

/**
 * A folder to give Copilot as XDG_CACHE_HOME, its package already unpacked there: Copilot's first run in an
 * empty cache writes 235 MB and costs about 1.5 s of CPU, once per sandbox otherwise. scripts/test.mjs makes
 * one folder for the whole run (FLEET_GIT_TEST_COPILOT_CACHE) and removes it after; without it, each test
 * file has its own, removed after the file. The first file unpacks it under a lock (flock), the others wait.
 * Call it where `sandbox()` is called (it registers the removal). The unpacking run has a HOME of its own.
 */
export function copilotCache(): string {
  let dir = process.env.FLEET_GIT_TEST_COPILOT_CACHE;
  if (!dir) {
    const own = realpathSync(mkdtempSync(join(tmpdir(), 'fleet-git-copilot-cache-')));
    after(() => rmSync(own, { recursive: true, force: true }));
    dir = own;
  }
  if (!existsSync(COPILOT) || unpacked(dir)) return dir; // missing: the test says so
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, COPILOT_HOME: join(dir, 'copilot-home'), XDG_CACHE_HOME: dir };
  const run = { env, stdio: 'ignore' as const, timeout: 120_000 };
  const locked = spawnSync('flock', [join(dir, '.unpack.lock'), COPILOT, '--version'], run);
  if (locked.error) spawnSync(COPILOT, ['--version'], run);
  return dir;
}

/** The outside tools some tests run (beyond node, npm and git), each with how to get it. `.ci/run` installs them. */
const TOOLS = {
  zsh: { debian: 'apt-get install zsh', macos: 'part of macOS' },
  fish: { debian: 'apt-get install fish', macos: 'brew install fish' },
  dash: { debian: 'apt-get install dash', macos: 'part of macOS as /bin/dash' },
  busybox: { debian: 'apt-get install busybox', macos: 'brew install busybox' },
  // test/pty.ts runs util-linux's `script -qfec`; macOS's own script takes other options.
  script: { debian: 'apt-get install bsdutils', macos: "util-linux's script, not macOS's" },
  strace: { debian: 'apt-get install strace', macos: 'none: strace is Linux only' },
  'pre-commit': { debian: 'apt-get install pre-commit', macos: 'brew install pre-commit' },
  shellcheck: { debian: 'apt-get install shellcheck', macos: 'brew install shellcheck' },
  man: { debian: 'apt-get install man-db', macos: 'part of macOS' },
  ps: { debian: 'apt-get install procps', macos: 'part of macOS' },
} as const;
export type Tool = keyof typeof TOOLS;

/** Whether `tool` runs here as the tests use it (util-linux's script; a strace allowed to trace). */
function works(tool: Tool): boolean {
  switch (tool) {
    case 'script':
      return /util-linux/.test(spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout ?? '');
    case 'strace':
      return spawnSync('strace', ['-o', '/dev/null', 'true']).status === 0;
    case 'ps':
      return spawnSync('ps', ['-o', 'pid=', '-p', String(process.pid)]).status === 0;
    case 'zsh':
    case 'fish':
    case 'dash':
      return spawnSync(tool, ['-c', ':']).status === 0;
    case 'busybox':
      return spawnSync(tool, ['sh', '-c', ':']).status === 0;
    default:
      return spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
  }
}

/**
 * How many times a test repeats a race or a generated case: `n` in the whole suite (npm test, which
 * .ci/run runs), a quarter of it (at least 1) under npm run test:quick, for the loop of changing one
 * thing (scripts/test.mjs sets FLEET_GIT_TEST_QUICK=1 there). Every case still runs, each assertion in it.
 */
export function repeats(n: number): number {
  return process.env.FLEET_GIT_TEST_QUICK === '1' ? Math.max(1, Math.ceil(n / 4)) : n;
}

const found = new Map<Tool, boolean>();

/**
 * For node:test's `skip` option: false when every tool runs here, else one line naming the first that
 * does not and how to get it (`skipped: needs zsh (Debian: apt-get install zsh; macOS: part of macOS)`).
 * node:test counts the test as skipped; `.ci/run` fails a run with any skip (scripts/test.mjs).
 */
export function needs(...tools: Tool[]): string | false {
  for (const t of tools) {
    if (!found.has(t)) found.set(t, works(t));
    if (!found.get(t)) return `skipped: needs ${t} (Debian: ${TOOLS[t].debian}; macOS: ${TOOLS[t].macos})`;
  }
  return false;
}

/** For `skip`: false when the tests run as root, else one line saying what root is needed for (CI runs as root). */
export function needsRoot(why: string): string | false {
  return process.getuid?.() === 0 ? false : `skipped: needs root to ${why} (CI runs as root)`;
}

/**
 * describe(name, fn), or where `skip` (from needs() or needsRoot()) names what is missing, one skipped test
 * of that name in its place: node:test counts a skipped test in its `skipped` figure, a skipped suite it
 * does not, and a suite's body would still run its hooks.
 */
export function describeNeeding(skip: string | false, name: string, fn: () => void, options: { concurrency?: boolean | number } = {}) {
  if (skip) test(name, { skip }, () => {});
  else describe(name, options, fn);
}

/**
 * Another build of fleet-git: this package (package.json, README.md, LICENSE, dist/, templates/) copied into `dir`,
 * with `line` added to each of the data folder's scripts (what any fix to the hooks' logic looks like; null: the
 * same bytes) and, given `clientLine`, that line added to the hook client's bundle. Returns its command, dist/cli.cjs.
 */
export function otherBuild(dir: string, line: string | null = '# another build of fleet-git', clientLine?: string): string {
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'README.md', 'LICENSE', 'dist', 'templates']) cpSync(join(ROOT, f), join(dir, f), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  if (line !== null) for (const t of [HOOK_SCRIPT, CHECKOUT_SCRIPT]) appendFileSync(join(dir, 'templates', t), `${line}\n`);
  if (clientLine !== undefined) appendFileSync(join(dir, 'dist', CLIENT_FILE), `${clientLine}\n`);
  return join(dir, 'dist', 'cli.cjs');
}
