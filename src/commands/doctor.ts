import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { BUILT_CLIENT, runContext, type RunContext } from '../core/context.js';
import { hookCommand, NODE_FILE } from '../core/hook-file.js';
import { findOnPath, INSTALL_HINT } from '../core/run.js';
import { setupState } from '../core/setup.js';
import { assessRepo } from '../core/state.js';
import { loadUserConfig } from '../core/user-config.js';
import { copilotView, userHookFile, type CopilotView } from '../core/user-hooks.js';
import { locateRepo, NotARepoError } from '../git/repo.js';
import { Option } from 'clipanion';
import { EXIT, FleetCommand, InputError } from './base.js';

interface Check { ok: boolean; what: string }

/** Whether something accepts connections on the socket, within `ms`. */
function reachable(path: string, ms = 1000): Promise<string | null> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    const t = setTimeout(() => { s.destroy(); resolve('ETIMEDOUT'); }, ms);
    s.on('connect', () => { clearTimeout(t); s.end(); resolve(null); });
    s.on('error', (e: NodeJS.ErrnoException) => { clearTimeout(t); s.destroy(); resolve(e.code ?? 'error'); });
  });
}

export class DoctorCommand extends FleetCommand {
  static paths = [['doctor']];
  static usage = FleetCommand.Usage({
    description: 'check everything between a Copilot session and the fleet observer',
    details: `
      One line a check, OK or what to do: Node and the hook client, run the way Copilot runs it (/bin/bash --norc --noprofile -c with this PATH); the observer's socket; the Copilot CLI and its version; the user-level hook file; setup for new clones; the config file; and for the repository of the current folder, whether it is enabled, its info/exclude entry, its post-checkout hook and whether Copilot trusts it. Exit code 0 only when every check passes, 1 otherwise.

      With --live: one short, real Copilot session in the repository (REPO, or the current one), run offline by the user's own copilot (from PATH, or --copilot PATH) against a scripted model server of fleet-git's on loopback, with the user's trust and hook levels but a temporary COPILOT_HOME and a socket of its own (the user's dashboard sees nothing). It reports each expected event (sessionStart, postToolUse for a bash and a view call, agentStop with the final message, sessionEnd) as received once, missing or twice, from which hook level, whether ppid was the Copilot process, how long Copilot waited on the hooks, and for each miss the cause and the command that fixes it. Exit 0 only when every event arrived once, 1 otherwise, 2 for bad input; --json prints the report as one JSON document.
    `,
    examples: [['Check', '$0 doctor'], ['Run one real session here and check every event', '$0 doctor --live']],
  });

  live = Option.Boolean('--live', false, { description: 'run one real, offline Copilot session and check what the observer would see' });
  copilot = Option.String('--copilot', { description: 'with --live: the copilot to run (default: the one on PATH)' });
  json = Option.Boolean('--json', false, { description: 'with --live: the report as one JSON document' });
  timeout = Option.String('--timeout', { description: 'with --live: seconds Copilot may take (default and most: 50)' });
  repo = Option.String({ required: false, name: 'repo' });

  async run(): Promise<number> {
    if (this.live) return (await import('./doctor-live.js')).doctorLive(this.context, { repo: this.repo, copilot: this.copilot, json: this.json, timeout: this.timeout });
    if (this.copilot !== undefined || this.timeout !== undefined || this.repo !== undefined) throw new InputError('a repository, --copilot and --timeout go with doctor --live');
    const ctx = runContext(this.context.env, this.context.home);
    const checks: Check[] = [];
    const add = (ok: boolean, what: string) => { checks.push({ ok, what }); this.out(`${ok ? 'ok  ' : 'FAIL'}  ${what}`); };

    this.checkNode(ctx, add);
    this.checkClient(ctx, add);
    const sock = await reachable(ctx.user.fleetSocket);
    add(sock === null, sock === null ? `the fleet observer is listening on ${ctx.user.fleetSocket}` : `no fleet observer at ${ctx.user.fleetSocket} (${sock}): start one with \`fleet observer\`; until then events are dropped`);
    this.checkCopilot(add);
    const copilot = copilotView(ctx); // config.json and the user-level hook file, read once for every check below
    const user = copilot.userHook;
    if (user === null) add(false, `${userHookFile(ctx.user)} cannot be read, so Copilot cannot use it either: repository-level fleet hooks report as usual`);
    else if (user.kind === 'ours') add(user.current, user.current ? `user-level hooks installed (${userHookFile(ctx.user)})` : `the user-level hook file ${userHookFile(ctx.user)} is from another fleet-git version: run fleet-git enable --user`);
    else if (user.kind !== 'absent') add(true, `${userHookFile(ctx.user)} is not fleet-git's (left alone): repository-level fleet hooks report as usual, and fleet-git enable --user needs that name`);
    const setup = setupState(this.context.env, this.context.home);
    add(setup.state === 'on', `setup for new clones: ${setup.message}`);
    try {
      const c = loadUserConfig(this.context.env, this.context.home);
      add(true, c.exists ? `the config file ${c.file} is valid` : `no config file (${c.file}): the defaults apply`);
    } catch (e) {
      add(false, `the config file is invalid: ${(e as Error).message}`);
    }
    this.checkRepo(ctx, copilot, add);
    const failed = checks.filter((c) => !c.ok).length;
    this.out(failed ? `${failed} of ${checks.length} checks failed` : `all ${checks.length} checks passed`);
    return failed ? EXIT.partial : EXIT.ok;
  }

  private checkNode(ctx: RunContext, add: (ok: boolean, what: string) => void): void {
    const onPath = findOnPath('node', this.context.env);
    let recorded: string | null = null;
    try { recorded = readFileSync(`${ctx.user.dataDir}/${NODE_FILE}`, 'utf8').trim() || null; } catch { /* none */ }
    const node = onPath ?? (recorded && existsSync(recorded) ? recorded : null);
    if (!node) { add(false, `no node on PATH and none recorded: install Node 20 or later, then run fleet-git enable`); return; }
    const r = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const v = r.stdout?.trim() ?? '';
    const major = Number(/^v(\d+)/.exec(v)?.[1] ?? 0);
    add(r.status === 0 && major >= 18, r.status === 0 ? `node ${v} at ${node}${onPath ? ' (on PATH)' : ' (recorded by fleet-git enable)'}${major < 18 ? ': the hook client needs Node 18 or later' : ''}` : `${node} does not run: reinstall Node, then run fleet-git enable`);
  }

  private checkClient(ctx: RunContext, add: (ok: boolean, what: string) => void): void {
    if (!existsSync(ctx.user.hookClient)) { add(false, `the hook client ${ctx.user.hookClient} is missing: run fleet-git enable`); return; }
    let current = true;
    try { current = readFileSync(BUILT_CLIENT).equals(readFileSync(ctx.user.hookClient)); } catch { /* keep */ }
    const cmd = hookCommand('postToolUse', { dataDir: ctx.user.dataDir });
    const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', cmd], { cwd: this.context.cwd, env: { ...this.context.env }, input: '{}', encoding: 'utf8', timeout: 10_000 });
    if (r.error) add(false, `cannot run /bin/bash (${(r.error as NodeJS.ErrnoException).code}): Copilot runs hooks with it`);
    else if (r.status !== 0 || r.stdout !== '') add(false, `the hook command, run as Copilot runs it, exited ${r.status}${r.stdout ? ' and printed to stdout' : ''}: run fleet-git enable`);
    else add(current, current ? `the hook client runs as Copilot runs it (${ctx.user.hookClient})` : `the hook client ${ctx.user.hookClient} is from another fleet-git version: run fleet-git enable`);
  }

  private checkCopilot(add: (ok: boolean, what: string) => void): void {
    const bin = findOnPath('copilot', this.context.env);
    if (!bin) { add(false, `the Copilot CLI is not on PATH: install it with ${INSTALL_HINT}`); return; }
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000, env: { ...this.context.env } });
    const v = (r.stdout ?? '').trim().split('\n')[0] ?? '';
    add(r.status === 0, r.status === 0 ? `Copilot CLI ${v} (${bin})` : `${bin} --version failed (exit ${r.status ?? r.signal}): reinstall it with ${INSTALL_HINT}`);
    if (r.status === 0) this.out('--    fleet-git doctor --live runs one real, offline Copilot session here and checks that every event reaches the observer');
  }

  private checkRepo(ctx: RunContext, copilot: CopilotView, add: (ok: boolean, what: string) => void): void {
    const userLevel = copilot.userLevel;
    let repo;
    try {
      repo = locateRepo(this.context.cwd);
    } catch (e) {
      if (e instanceof NotARepoError) { this.out(`--    ${this.context.cwd} is not in a git repository: no repository checks`); return; }
      throw e;
    }
    const s = assessRepo(repo, ctx);
    const where = s.path;
    if (!s.enabled) add(userLevel, userLevel ? `${where}: not enabled, but the user-level hooks report it` : `${where}: not enabled: run fleet-git enable (or fleet-git enable --user for every folder)`);
    else {
      const own = [...s.problems.filter((p) => !['exclude-missing', 'git-hook-missing', 'git-hook-displaced', 'git-hook-outdated', 'hooks-path'].includes(p.code)), ...s.worktrees.flatMap((w) => w.problems)];
      add(own.length === 0, own.length === 0 ? `${where}: enabled (hook file in place${s.worktrees.length ? ` in all ${s.worktrees.length + 1} worktrees` : ''})` : `${where}: ${own.map((p) => p.message).join('; ')}`);
      add(s.exclude, s.exclude ? `${where}: info/exclude keeps the hook file out of commits` : `${where}: info/exclude has no fleet-git block: run fleet-git enable`);
      const hook = s.problems.find((p) => p.code.startsWith('git-hook') || p.code === 'hooks-path');
      add(!hook, hook ? `${where}: ${hook.message}` : `${where}: the post-checkout hook provisions new worktrees`);
    }
    const by = copilot.trusted.by(where);
    if (by) add(true, `${where}: Copilot trusts it (${by === where ? 'listed' : `through ${by}`} in ${copilot.configFile})`);
    else if (userLevel) add(true, `${where}: not trusted by Copilot, which does not matter here: user-level hooks run everywhere`);
    else if (s.enabled) add(false, `${where}: Copilot does not trust it, so copilot -p sessions silently skip its hooks (interactive ones ask once): run fleet-git enable --trust`);
  }
}
