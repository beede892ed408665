import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CHECKOUT_SCRIPT, HOOK_SCRIPT } from '../paths.js';
import { createConnection } from 'node:net';
import { runContext, type RunContext } from '../core/repo/context.js';
import { isPresent } from '../fs/read.js';
import { BUILT_CLIENT, clientInUse, kitClient, kitId, kitProblems, readStamp } from '../core/repo/kit.js';
import { NO_NODE_FIX, nodeFor, OLDEST_NODE, tryHookEvent, vscodeShell, type NodeFound } from '../core/session/hook-trial.js';
import { findOnPath, INSTALL_HINT } from '../core/session/run.js';
import { setupState } from '../core/setup/setup.js';
import { assessRepo, notAsWritten, type RepoState } from '../core/repo/state.js';
import { loadUserConfig } from '../core/setup/user-config.js';
import { fixFirst } from '../copilot/trust.js';
import { copilotView, userHookFile, vscodeLine, type CopilotView } from '../core/setup/user-hooks.js';
import { GitRefusedError, locateRepo, NotARepoError } from '../git/repo.js';
import { notifierPath } from '../fleet/notify.js';
import { Option } from 'clipanion';
import { operand, valueOption } from './options.js';
import { REPO_HOOK_ENTRY } from '../core/repo/config-hook.js';
import { EXIT, FleetCommand, InputError, type ExitCodes } from './base.js';

/**
 * One check: `ok`, a `note` (something optional that is off: exit 0, with the
 * command that turns it on) or a `fault` (something broken: exit 1, with what to do).
 */
export type Level = 'ok' | 'note' | 'fault';
interface Check {
  id: string;
  level: Level;
  message: string;
  fix?: string;
}
type Add = (id: string, level: Level, message: string, fix?: string) => void;

/** Whether the hook client in the data folder is the one this fleet-git installs (unreadable: not judged here). */
function clientIsCurrent(installed: string): boolean {
  try {
    return readFileSync(BUILT_CLIENT).equals(readFileSync(installed));
  } catch {
    return true;
  }
}

const LABEL: Record<Level, string> = { ok: 'ok  ', note: 'note', fault: 'FAIL' };

/** Whether something accepts connections on the socket, within `ms`. */
function reachable(path: string, ms = 1000): Promise<string | null> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    const t = setTimeout(() => {
      s.destroy();
      resolve('ETIMEDOUT');
    }, ms);
    s.on('connect', () => {
      clearTimeout(t);
      s.end();
      resolve(null);
    });
    s.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(t);
      s.destroy();
      resolve(e.code ?? 'error');
    });
  });
}

export class DoctorCommand extends FleetCommand {
  static paths = [['doctor']];

  static refreshesKit = false; // it only reads: checkKit says whose the kit is, and a command that changes things replaces it
  static exits: ExitCodes = {
    0: 'nothing failed (notes included); with --live: every expected event arrived exactly once, from the Copilot process',
    1: 'a check failed (FAIL); with --live: an event missing, repeated or incomplete',
    2: 'bad input: with --live, not a repository or no Copilot; a repository, --copilot or --timeout without --live; a --timeout out of range',
  };
  static usage = FleetCommand.Usage({
    description: 'check everything between a Copilot session and the fleet observer',
    details: `
      One line a check: Node; the hook client, run the way Copilot runs it (/bin/bash --norc --noprofile -c with this PATH): ok only when its test sessionStart reached a socket of doctor's own, as the observer reads it (doctor waits while the forwarder the hook started runs, up to 20 s) (nothing is written in the data folder or sent to the user's observer); then, when VS Code's agent sessions show, the same hook command run the way VS Code's agent runs it (/bin/sh -c, which it names, in the home folder, without VSCODE_*, GITHUB_* and COPILOT_* variables, a VS Code payload): ok only when it exits 0 (VS Code reads 2 as a blocking error that stops the request) and its event arrives, naming no process; the data folder's kit, the scripts the hooks hand over to and the programs they run (this build's, or, after an upgrade, another build's, a note: the next command that changes things replaces it; doctor only reads); the observer's socket; the Copilot CLI and its version (without one, a note when VS Code's agent sessions show: VS Code runs the hook files itself); whether VS Code's agent sessions show (the config file's \`vscode\`); the user-level hook file; setup for new clones; the config file; and for the repository of the current folder, whether it is enabled, its info/exclude entry, its post-checkout hook and whether Copilot trusts it.

      Each line is "ok", "note" (an optional part that is off: no observer listening, no Copilot CLI for a user of VS Code's agent, no setup for new clones, the repository here not enabled or not trusted, core.hooksPath elsewhere; each says the command that turns it on) or "FAIL" (something broken, with what to do: Copilot's config.json that enable --trust would refuse, for an enabled repository it does not trust, is one). --json prints {"checks": [{"id", "level": "ok"|"note"|"fault", "message", "fix"?}], "repo": path or null, "counts": {"ok", "notes", "faults"}}.

      With --live: one short, real Copilot session in the repository (REPO, or the current one), run offline by the user's own copilot (from PATH, or --copilot PATH) against a scripted model server of fleet-git's on loopback, with the user's trust and hook levels but a temporary COPILOT_HOME and a socket of its own (the user's dashboard sees nothing). It reports each expected event (sessionStart, postToolUse for a bash and a view call, agentStop with the final message, sessionEnd) as received once, missing or twice, from which hook level, whether ppid was the Copilot process, how long Copilot waited on the hooks, and for each miss the cause (not-trusted, repo-not-loaded, both-levels, no-node, invalid-json, timeout, client-missing, not-enabled, session-failed, no-message) and the command that fixes it. It ends within 60 s (--timeout, at most 50 s, is the session's share) and leaves no process behind; on a terminal, one line on stderr says what it is doing and for how long, cleared before the report (never off a terminal). --json prints the report as one JSON document: {"repo", "copilot": {"path", "version"}, "ok", "events": [{"id", "status", "count", "levels", "waitedMs", "cause": {"code", "message", "fix"}}], "ppid", "hookFiles", "causes", "notes", "session"}.
    `,
    examples: [
      ['Check', '$0 doctor'],
      ['The checks as data', '$0 doctor --json'],
      ['Run one real session here and check every event', '$0 doctor --live'],
    ],
  });

  live = Option.Boolean('--live', false, { description: 'run one real, offline Copilot session and check what the observer would see' });
  copilot = valueOption('--copilot', 'PATH', 'with --live: the copilot to run (default: the one on PATH)');
  json = Option.Boolean('--json', false, { description: 'the checks (with --live, the report) as one JSON document' });
  timeout = valueOption('--timeout', 'S', 'with --live: seconds Copilot may take (default and most: 50)');
  repo = operand('repo');

  async run(): Promise<number> {
    if (this.live)
      return (await import('./doctor-live.js')).doctorLive(this.context, {
        repo: this.repo,
        copilot: this.copilot,
        json: this.json,
        timeout: this.timeout,
      });
    if (this.copilot !== undefined || this.timeout !== undefined || this.repo !== undefined)
      throw new InputError('a repository, --copilot and --timeout go with doctor --live');
    const ctx = runContext(this.context.env, this.context.home);
    const checks: Check[] = [];
    const add: Add = (id, level, message, fix) => {
      checks.push(fix ? { id, level, message, fix } : { id, level, message });
      if (!this.json) this.out(`${LABEL[level]}  ${message}${fix ? `: run ${fix}` : ''}`);
    };
    const copilot = copilotView(ctx); // config.json and the user-level hook file, read once for every check below
    const repo = this.currentRepo(ctx);
    // The hook client matters once something runs it: a repository here enabled, or the user-level hook file.
    const inUse = (repo?.enabled ?? false) || copilot.userLevel;

    const node = nodeFor(this.context.env, ctx.user.dataDir);
    this.checkNode(node, add);
    // VS Code's way once Copilot's works: a fault of both is said once.
    if ((await this.checkClient(ctx, inUse, node, add)) && copilot.vscode) await this.checkVsCodeHook(ctx, node, add);
    this.checkKit(ctx, add);
    const sock = await reachable(ctx.user.fleetSocket);
    if (sock === null) add('observer', 'ok', `the fleet observer is listening on ${ctx.user.fleetSocket}`);
    else
      add(
        'observer',
        'note',
        `no fleet observer at ${ctx.user.fleetSocket} (${sock}); until one listens, events are dropped`,
        '`fleet observer`',
      );
    const notifier = notifierPath(ctx.user.fleetDir);
    if (existsSync(notifier))
      add(
        'notifications',
        'ok',
        `fleet's notifier is installed (${notifier}): Copilot sessions notify as fleet's do (\`fleet notify\` turns them on or off)`,
      );
    else
      add(
        'notifications',
        'note',
        `fleet's notifier is not installed (${notifier} is missing): no desktop notifications for Copilot sessions`,
        '`fleet hooks install`',
      );
    this.checkCopilot(copilot.vscode, add);
    add('vscode', 'ok', vscodeLine(ctx, copilot));
    const user = copilot.userHook;
    if (user === null)
      add(
        'user-hooks',
        'fault',
        `${userHookFile(ctx.user)} cannot be read, so Copilot cannot use it either (repository-level fleet hooks report as usual): make it readable or remove it`,
      );
    else if (user.kind === 'ours') {
      if (user.current) add('user-hooks', 'ok', `user-level hooks installed (${userHookFile(ctx.user)})`);
      else
        add(
          'user-hooks',
          'fault',
          `the user-level hook file ${userHookFile(ctx.user)} ${notAsWritten(user.format)}`,
          'fleet-git enable --user',
        );
    } else if (user.kind !== 'absent')
      add(
        'user-hooks',
        'ok',
        `${userHookFile(ctx.user)} is not fleet-git's (left alone): repository-level fleet hooks report as usual, and fleet-git enable --user needs that name`,
      );
    const setup = setupState(this.context.env, this.context.home);
    if (setup.state === 'off')
      add('setup', 'note', 'setup for new clones is not in effect (optional): new clones do not get fleet-git', 'fleet-git setup');
    else if (setup.state === 'broken') add('setup', 'fault', `setup for new clones: ${setup.message}`);
    else if (setup.state === 'hooks-path' && setup.templateDir) add('setup', 'note', `setup for new clones: ${setup.message}`);
    else add('setup', 'ok', `setup for new clones: ${setup.message}`);
    try {
      const c = loadUserConfig(this.context.env, this.context.home);
      add('config', 'ok', c.exists ? `the config file ${c.file} is valid` : `no config file (${c.file}): the defaults apply`);
    } catch (e) {
      add('config', 'fault', `the config file is invalid: ${(e as Error).message}`);
    }
    if (repo) this.checkRepo(repo, copilot, add);
    else if (this.refused) add('repo', 'fault', this.refused.message);
    else if (!this.json) this.out(`--    ${this.context.cwd} is not in a git repository: no repository checks`);
    const count = (l: Level) => checks.filter((c) => c.level === l).length;
    const faults = count('fault');
    const notes = count('note');
    if (this.json) {
      this.out(JSON.stringify({ checks, repo: repo?.path ?? null, counts: { ok: count('ok'), notes, faults } }, null, 2));
    } else if (faults)
      this.out(
        `${faults} of ${checks.length} checks failed${notes ? `, ${notes} optional part${notes === 1 ? ' is' : 's are'} off (notes)` : ''}`,
      );
    else if (notes)
      this.out(
        `no faults: ${checks.length - notes} of ${checks.length} checks passed, and ${notes} optional part${notes === 1 ? ' is' : 's are'} off (each note says the command that turns it on)`,
      );
    else this.out(`all ${checks.length} checks passed`);
    return faults ? EXIT.partial : EXIT.ok;
  }

  /** The repository of the current folder when git refuses to work in it (currentRepo found it so). */
  private refused: GitRefusedError | null = null;

  /** The state of the repository of the current folder, or null outside one (or in one git refuses: `refused`). */
  private currentRepo(ctx: RunContext): RepoState | null {
    try {
      return assessRepo(locateRepo(this.context.cwd), ctx);
    } catch (e) {
      if (e instanceof GitRefusedError) this.refused = e;
      if (e instanceof NotARepoError) return null;
      throw e;
    }
  }

  /** The node the hook command would run (found as the hook finds it), and its version. */
  private checkNode(node: NodeFound, add: Add): void {
    if (!node.path) {
      add('node', 'fault', `no node on PATH and none recorded: ${NO_NODE_FIX}`);
      return;
    }
    const r = spawnSync(node.path, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const v = r.stdout?.trim() ?? '';
    const major = Number(/^v(\d+)/.exec(v)?.[1] ?? 0);
    add(
      'node',
      r.status === 0 && major >= OLDEST_NODE ? 'ok' : 'fault',
      r.status === 0
        ? `node ${v} at ${node.path}${node.onPath ? ' (on PATH)' : ' (recorded by fleet-git enable)'}${major < OLDEST_NODE ? `: fleet-git needs Node ${OLDEST_NODE} or later` : ''}`
        : `${node.path} does not run: reinstall Node, then run fleet-git enable`,
    );
  }

  /** True when the hook command, run as Copilot runs it, delivered its test event. */
  private async checkClient(ctx: RunContext, inUse: boolean, node: NodeFound, add: Add): Promise<boolean> {
    if (!existsSync(ctx.user.hookClient) && !inUse) {
      add(
        'hook-client',
        'note',
        `the hook client is not installed yet (${ctx.user.hookClient}): nothing here is enabled`,
        'fleet-git enable',
      );
      return false;
    }
    const t = await this.trial(ctx, node, false);
    if (!t.ok) add('hook-client', 'fault', t.message, t.fix);
    else if (!clientIsCurrent(ctx.user.hookClient))
      add('hook-client', 'fault', `the hook client ${ctx.user.hookClient} is from another fleet-git version`, 'fleet-git enable');
    else {
      add(
        'hook-client',
        'ok',
        `the hook client runs as Copilot runs it: a test sessionStart reached a socket of doctor's own, as the observer reads it, in ${t.ms} ms (${clientInUse(ctx.user.dataDir)})`,
      );
      return true;
    }
    return false;
  }

  /** The hook command for a test sessionStart, run as Copilot runs it or (`vscode`) as VS Code's agent does. */
  private trial(ctx: RunContext, node: NodeFound, vscode: boolean) {
    return tryHookEvent({ dataDir: ctx.user.dataDir, env: this.context.env, home: this.context.home, cwd: this.context.cwd, node, vscode });
  }

  /** The hook command as VS Code's agent runs it: with /bin/sh (dash on Debian and Ubuntu), its environment, a VS Code payload. */
  private async checkVsCodeHook(ctx: RunContext, node: NodeFound, add: Add): Promise<void> {
    const t = await this.trial(ctx, node, true);
    const sh = `VS Code's agent runs hooks with ${vscodeShell()}`;
    if (!t.ok) add('vscode-hook', 'fault', `${sh}: ${t.message}`, t.fix);
    else
      add(
        'vscode-hook',
        'ok',
        `${sh}: a test SessionStart run as VS Code runs it exited 0 and reached a socket of doctor's own in ${t.ms} ms`,
      );
  }

  /** The data folder's kit (core/repo/kit.ts): this build's, another build's (an upgrade: the next command that changes things replaces it), or not as this build writes it. Read only. */
  private checkKit(ctx: RunContext, add: Add): void {
    const stamp = readStamp(ctx.user.dataDir);
    if (stamp.id === null && !isPresent(ctx.user.hookClient)) return; // nothing installed yet: the hook client's line says so
    const id = kitId();
    const dir = dirname(kitClient(ctx.user.dataDir, id));
    if (stamp.id !== id) {
      add(
        'kit',
        'note',
        `the data folder's kit is ${stamp.id ? `another fleet-git's (${stamp.id})` : "an older fleet-git's"}: the hooks run it until a command that changes things (fleet-git enable, setup, disable) puts this one's in place (${dir})`,
        'fleet-git enable',
      );
      return;
    }
    const problems = kitProblems(ctx.user);
    if (problems.length)
      add('kit', 'fault', `the data folder's kit is not as this fleet-git writes it: ${problems.join('; ')}`, 'fleet-git enable');
    else
      add(
        'kit',
        'ok',
        `the data folder's kit is this fleet-git's (${dir}, with ${HOOK_SCRIPT} and ${CHECKOUT_SCRIPT} in ${ctx.user.dataDir})`,
      );
  }

  /** The Copilot CLI on PATH; without one, VS Code's agent still runs the hook files (a note), unless its sessions are kept out. */
  private checkCopilot(vscodeShown: boolean, add: Add): void {
    const bin = findOnPath('copilot', this.context.env);
    if (!bin) {
      if (vscodeShown)
        add(
          'copilot',
          'note',
          "the Copilot CLI is not on PATH: VS Code's agent runs the hook files without it and its sessions report, but Copilot CLI sessions need it",
          INSTALL_HINT,
        );
      else add('copilot', 'fault', `the Copilot CLI is not on PATH: install it with ${INSTALL_HINT}`);
      return;
    }
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000, env: { ...this.context.env } });
    const v = (r.stdout ?? '').trim().split('\n')[0] ?? '';
    add(
      'copilot',
      r.status === 0 ? 'ok' : 'fault',
      r.status === 0
        ? `Copilot CLI ${v} (${bin})`
        : `${bin} --version failed (exit ${r.status ?? r.signal}): reinstall it with ${INSTALL_HINT}`,
    );
    if (r.status === 0 && !this.json)
      this.out(
        '--    fleet-git doctor --live runs one real, offline Copilot session here and checks that every event reaches the observer',
      );
  }

  private checkRepo(s: RepoState, copilot: CopilotView, add: Add): void {
    const userLevel = copilot.userLevel;
    const where = s.path;
    if (!s.enabled) {
      if (userLevel) add('repo', 'ok', `${where}: not enabled, but the user-level hooks report it`);
      else
        add(
          'repo',
          'note',
          `${where}: not enabled, so its Copilot sessions do not report (or fleet-git enable --user for every folder)`,
          'fleet-git enable',
        );
    } else {
      const own = [
        ...s.problems.filter(
          (p) => !['exclude-missing', 'git-hook-missing', 'git-hook-displaced', 'git-hook-outdated', 'hooks-path'].includes(p.code),
        ),
        ...s.worktrees.flatMap((w) => w.problems),
      ];
      if (own.length === 0)
        add(
          'repo',
          'ok',
          `${where}: enabled (hook file in place${s.worktrees.length ? ` in all ${s.worktrees.length + 1} worktrees` : ''})`,
        );
      else add('repo', 'fault', `${where}: ${own.map((p) => p.message).join('; ')}`);
      if (s.exclude) add('repo-exclude', 'ok', `${where}: info/exclude keeps the hook file out of commits`);
      else add('repo-exclude', 'fault', `${where}: info/exclude has no fleet-git block`, 'fleet-git enable');
      const hook = s.problems.find((p) => p.code.startsWith('git-hook') || p.code === 'hooks-path');
      // core.hooksPath elsewhere (husky) is the user's choice, not a fault: new worktrees then need fleet-git enable.
      if (!hook)
        add(
          'repo-git-hook',
          'ok',
          `${where}: ${s.provisioning === 'config' ? `the hook.${REPO_HOOK_ENTRY} entry in its git config provisions new worktrees` : 'the post-checkout hook provisions new worktrees'}`,
        );
      else if (hook.code === 'hooks-path')
        add('repo-git-hook', 'note', `${where}: ${hook.message}; fleet-git enable in a new worktree gives it the hook file`);
      else add('repo-git-hook', 'fault', `${where}: ${hook.message}`);
    }
    const by = copilot.trusted.by(where);
    if (by) add('repo-trust', 'ok', `${where}: Copilot trusts it (${by === where ? 'listed' : `through ${by}`} in ${copilot.configFile})`);
    else if (userLevel)
      add('repo-trust', 'ok', `${where}: not trusted by Copilot, which does not matter here: user-level hooks run everywhere`);
    else if (s.enabled && copilot.configProblem)
      // Not an optional part left off: enable --trust would refuse until the file is fixed.
      add(
        'repo-trust',
        'fault',
        `${where}: Copilot does not trust it, so copilot -p sessions silently skip its hooks (interactive ones ask once); ${fixFirst(copilot.configProblem)}`,
      );
    else if (s.enabled)
      add(
        'repo-trust',
        'note',
        `${where}: Copilot does not trust it, so copilot -p sessions silently skip its hooks (interactive ones ask once)`,
        'fleet-git enable --trust',
      );
  }
}
