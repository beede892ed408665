// VS Code's agent runs the commands of a hook file, the way its hook executor
// does (the facts, read from VS Code's source, are in docs/how-it-works.md's
// VS Code section; written here from them, none of VS Code's code):
//
// - which commands: the file's keys mapped to VS Code's events (camelCase
//   keys as below, PascalCase ones taken as they are; a later key of the same
//   event replaces an earlier one); only some events are ever run;
// - how: Node's spawn(command, [], { shell: true }), which on Linux and macOS
//   is `/bin/sh -c COMMAND`; here the `sh` under test in its place;
// - the environment: the editor's own, less every variable whose name starts
//   with VSCODE_, GITHUB_ or COPILOT_ (any case), plus the entry's `env`;
// - cwd: the entry's `cwd`, else the user's home folder (the payload's `cwd`
//   is the workspace folder);
// - stdin: the payload as one JSON text, then closed (a write the shell did
//   not wait for is ignored);
// - the exit code: 0 success, 2 a blocking error shown to the model (the
//   request stops), any other a warning shown to the user; after `timeoutSec`
//   (default 30 s), SIGTERM, then SIGKILL 5 s later.
//
// The shells a user's /bin/sh may be, each run as `sh` (shellsUnderTest).
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BASH32, needs } from './helpers.js';
import { start } from './spawn.js';

/** A hook file's camelCase key and the VS Code event it becomes (PascalCase keys are events already). */
const EVENT_OF_KEY: Readonly<Record<string, string>> = {
  sessionStart: 'SessionStart',
  userPromptSubmitted: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  agentStop: 'Stop',
  subagentStop: 'SubagentStop',
  sessionEnd: 'SessionEnd',
  errorOccurred: 'ErrorOccurred',
};
/** The events VS Code's agent runs (SessionEnd and ErrorOccurred are loaded, never run). */
export const RUN_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SubagentStop'] as const;

export interface HookEntry {
  bash: string;
  cwd?: string;
  env?: Record<string, string>;
  timeoutSec?: number;
}

/** What VS Code runs for each event, from a hook file's text: the entries of the event's last key. */
export function vscodeCommands(fileText: string): Map<string, HookEntry[]> {
  const doc = JSON.parse(fileText) as { hooks?: Record<string, Array<HookEntry & { type?: string }>> };
  const out = new Map<string, HookEntry[]>();
  for (const [key, entries] of Object.entries(doc.hooks ?? {})) {
    const event = EVENT_OF_KEY[key] ?? (/^[A-Z]/.test(key) ? key : undefined);
    if (!event || !(RUN_EVENTS as readonly string[]).includes(event)) continue;
    out.set(
      event,
      entries.filter((e) => typeof e.bash === 'string'),
    );
  }
  return out;
}

/** The environment a hook gets from an editor whose own is `env`. */
export function executorEnv(env: Record<string, string>, entryEnv: Record<string, string> = {}): Record<string, string> {
  const kept = Object.entries(env).filter(([k]) => !/^(vscode|github|copilot)_/i.test(k));
  return { ...Object.fromEntries(kept), ...entryEnv };
}

/** How VS Code reads a hook's end. */
export type Outcome = 'success' | 'blocking' | 'warning' | 'timeout';

export const outcomeOf = (code: number | null, timedOut: boolean): Outcome =>
  timedOut ? 'timeout' : code === 0 ? 'success' : code === 2 ? 'blocking' : 'warning';

export interface Executed {
  code: number | null;
  outcome: Outcome;
  stdout: string;
  stderr: string;
  /** The shell's pid (the hook's $$). */
  pid: number;
}

/** A /bin/sh a user may have, as VS Code would start it: `sh` is the file spawn's `shell` names. */
export interface ShellUnderTest {
  name: string;
  sh: string;
  /** Put before the command: an imitation's set-up (bash 3.2's missing variables). */
  prefix: string;
  /** The PATH the editor has, when not the test's (a machine with BusyBox alone). */
  path?: string;
  skip: string | false;
}

/**
 * The /bin/sh of each kind a user has, made in `dir`: dash (Debian's and
 * Ubuntu's), bash 5 started as `sh` (Fedora's: POSIX mode), bash 3.2 as `sh`
 * (macOS's: the real one FLEET_GIT_TEST_BASH32 names, else imitated as
 * test/macos.test.ts does, bash 5 as sh without EPOCHREALTIME, EPOCHSECONDS
 * and BASHPID), BusyBox's ash as `sh` (Alpine's), zsh as `sh` (a Mac's, by choice).
 */
export function shellsUnderTest(dir: string): ShellUnderTest[] {
  const named = (sub: string, target: string) => {
    mkdirSync(join(dir, sub), { recursive: true });
    const sh = join(dir, sub, 'sh');
    symlinkSync(target, sh);
    return sh;
  };
  const bashAsSh = named('bash-as-sh', '/bin/bash');
  const busybox = needs('busybox');
  const where = spawnSync('/bin/sh', ['-c', 'command -v busybox'], { encoding: 'utf8' }).stdout.trim();
  const zsh = needs('zsh');
  const whereZsh = spawnSync('/bin/sh', ['-c', 'command -v zsh'], { encoding: 'utf8' }).stdout.trim();
  return [
    { name: 'dash', sh: '/bin/dash', prefix: '', skip: needs('dash') },
    { name: 'bash 5 as sh', sh: bashAsSh, prefix: '', skip: false },
    BASH32
      ? { name: 'bash 3.2 as sh', sh: named('bash32-as-sh', BASH32), prefix: '', skip: false }
      : { name: 'bash 3.2 as sh', sh: bashAsSh, prefix: 'unset EPOCHREALTIME EPOCHSECONDS BASHPID; ', skip: false },
    { name: 'BusyBox ash as sh', sh: busybox ? '/nonexistent' : named('busybox-as-sh', where), prefix: '', skip: busybox },
    // A Mac's /bin/sh runs the shell /private/var/select/sh names: bash 3.2 unless the user chose dash or zsh.
    { name: 'zsh as sh', sh: zsh ? '/nonexistent' : named('zsh-as-sh', whereZsh), prefix: '', skip: zsh },
    {
      name: 'BusyBox alone (no bash on the PATH)',
      sh: join(dir, 'busybox-as-sh', 'sh'),
      prefix: '',
      path: busybox ? undefined : busyboxOnly(join(dir, 'busybox-only'), where),
      skip: busybox,
    },
  ];
}

/** A folder for PATH holding BusyBox's tools that the hook runs (cat, mkdir, rm, setsid) and node: nothing else. */
function busyboxOnly(bin: string, busybox: string): string {
  mkdirSync(bin, { recursive: true });
  for (const tool of ['cat', 'mkdir', 'rm', 'setsid']) symlinkSync(busybox, join(bin, tool));
  symlinkSync(process.execPath, join(bin, 'node'));
  return bin;
}

/**
 * Runs one entry of a hook file as VS Code's executor does, with the shell `sh`,
 * `payload` on stdin. `env` is the editor's environment, `home` its user's home.
 */
export async function runAsVsCode(
  entry: HookEntry,
  payload: string | object,
  opts: { sh: string; prefix?: string; env: Record<string, string>; home: string },
): Promise<Executed> {
  const { child, done } = start((opts.prefix ?? '') + entry.bash, [], {
    shell: opts.sh,
    cwd: entry.cwd ?? opts.home,
    env: executorEnv(opts.env, entry.env),
    input: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    },
    (entry.timeoutSec ?? 30) * 1000,
  );
  const r = await done;
  clearTimeout(timer);
  if (r.error) throw r.error;
  return { code: r.code, outcome: outcomeOf(r.code, timedOut), stdout: r.stdout, stderr: r.stderr, pid: r.pid };
}

/** Runs every entry VS Code runs for `payload`'s event (its hook_event_name), one after another; [] when the file has none. */
export async function fireAsVsCode(
  commands: Map<string, HookEntry[]>,
  payload: Record<string, unknown>,
  opts: { sh: string; prefix?: string; env: Record<string, string>; home: string },
): Promise<Executed[]> {
  const out: Executed[] = [];
  for (const entry of commands.get(String(payload.hook_event_name)) ?? []) out.push(await runAsVsCode(entry, payload, opts));
  return out;
}
