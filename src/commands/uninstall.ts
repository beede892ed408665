import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Cli, Option } from 'clipanion';
import { operands } from './options.js';
import { EXIT, FleetCommand, InputError, type Context, type ExitCodes } from './base.js';
import { DisableCommand } from './disable.js';
import { RemoveCommand } from './remove.js';
import { ask, isTty, rootsOf, saveTrust, wayOutConfig } from './report.js';
import { SetupCommand } from './setup.js';
import { readTrustRecord, TrustEdit, trustRoots } from '../copilot/trust.js';
import { runContext } from '../core/repo/context.js';
import { setupState } from '../core/setup/setup.js';
import { removeIfEmpty } from '../fs/atomic.js';
import { checkEntry, pruneEntries, readRecord, type Checked } from '../core/repo/record.js';
import { allWorktrees, assessRepo, type RepoState } from '../core/repo/state.js';
import type { RunContext } from '../core/repo/context.js';
import { removeDataDir } from '../fs/data-dir.js';
import { userHookFile, userHooksMade, userHookState } from '../core/setup/user-hooks.js';
import { scanRoots } from '../core/setup/user-config.js';
import { isUnder } from '../paths.js';

/**
 * Everything fleet-git put on this machine, taken away by the commands that
 * take each part away (remove over the recorded repositories or the folders,
 * disable --user, setup --undo), run in turn, then the trustedFolders entries
 * it added that are left, and last its data folder, unless recorded
 * repositories outside the folders still use it.
 */
export class UninstallCommand extends FleetCommand {
  static paths = [['uninstall']];

  static refreshesKit = false; // it removes the data folder, kit and all
  static exits: ExitCodes = {
    0: 'everything fleet-git put on this machine is gone, or the answer to the question was no; or, with folders, all of it but the recorded repositories outside them that still use fleet-git (named) and the data folder their hooks call',
    1: 'a step failed: what was left is said, the data folder stays, and running it again once that is fixed finishes',
    2: 'bad input: a root that does not exist, --json without --dry-run, --all without a folder, off a terminal without --yes',
  };
  static usage = FleetCommand.Usage({
    description:
      'take fleet-git off this machine: every repository it recorded (or under the folders), the user-level hook, setup, its trustedFolders entries, its data folder',
    details: `
      fleet-git records every repository it enables, wherever it is (enable, enable --under, the worktrees and clones its git hook provisions; disable and remove take it out again: see \`fleet-git scan\`). Without a folder, uninstall takes fleet-git out of every recorded repository and its worktrees; with folders, out of every repository under them, and it names each recorded repository outside them that still uses fleet-git: those stay as they are, and so does the data folder whose scripts their hooks run, so that no hook is left calling a script that is gone (--all takes them out too). A recorded repository that is gone (moved or deleted since, or another repository at its path now) is said and forgotten, never acted on. In a record begun after an upgrade from fleet-git 0.2.0, which kept none, uninstall without a folder also walks the folders that one walked (scan.roots of the config file, else your home folder) and those fleet-git listed in Copilot's trustedFolders, and says that a repository enabled elsewhere by the older version is not known.

      In turn it runs what \`fleet-git remove --yes\` does over those repositories, then \`fleet-git disable --user\` and \`fleet-git setup --undo\`, takes out of Copilot's trustedFolders every entry fleet-git added that is still there (but those of the repositories that stay), and last removes fleet-git's data folder (the hook client, the canonical hook file, its records, setup's template folder, the code cache). Your config file stays: it is yours.

      The data folder goes only when every step before succeeded, since a repository still enabled runs the hook client kept there; otherwise it stays, and running uninstall again once the problem is fixed finishes the job. "Nothing of fleet-git is left" is said only when that is known. --dry-run prints the plan and changes nothing; with --json, as one JSON document: {"remove": what remove --dry-run --json prints for those repositories, "gone": [{"path", "reason"}: recorded repositories gone, which would be forgotten], "kept": [recorded repositories outside the folders that would stay], "userHook": the user-level hook file that would go or null, "setup": setup's state when it would be undone or null, "untrust": [the other trustedFolders entries fleet-git added], "dataDir": the data folder, or null when it would stay, "configFile": your config file, which stays, or null}. Off a terminal it acts only with --yes; on a terminal it asks first. Then \`npm uninstall -g fleet-git\` removes the command itself.
    `,
    examples: [
      ['See what would go', '$0 uninstall --dry-run'],
      ['The plan as JSON', '$0 uninstall --dry-run --json'],
      ['Uninstall everywhere, without a question', '$0 uninstall --yes'],
      ['Only the repositories under ~/code (and the user-level parts), without a question', '$0 uninstall ~/code --yes'],
    ],
  });

  dryRun = Option.Boolean('--dry-run', false, { description: 'print the plan, change nothing' });
  yes = Option.Boolean('--yes', false, { description: 'go ahead without asking' });
  quiet = Option.Boolean('-q,--quiet', false, { description: 'print only what failed or was left alone, and the summary' });
  json = Option.Boolean('--json', false, { description: 'with --dry-run: print the plan as one JSON document' });
  all = Option.Boolean('--all', false, {
    description: 'with folders: also take fleet-git out of the repositories it recorded outside them (then its data folder goes too)',
  });
  roots = operands('root');

  async run(): Promise<number> {
    const { env, home } = this.context;
    if (this.json && !this.dryRun) throw new InputError('--json goes with --dry-run (the plan as JSON)');
    if (this.all && !this.roots.length)
      throw new InputError('--all goes with folders (without one, uninstall takes every recorded repository already)');
    const config = wayOutConfig(this); // an invalid file: said once, the defaults used
    const ctx = runContext(env, home);
    const data = ctx.user.dataDir;
    const named = this.roots.length ? await rootsOf(this.roots, this.context.cwd) : [];
    const found = recordedNow(ctx, named, this.all);
    // A record begun after an upgrade does not know what the older fleet-git enabled: without a folder, uninstall
    // also looks where that one looked (scan.roots of the config file, else the home folder), and in the folders
    // that one listed in Copilot's trustedFolders (enable --trust), wherever they are.
    const fallback = !named.length && found.partial ? (config.from['scan.roots'] === 'file' ? scanRoots(config.config, home) : [home]) : [];
    const trusted = fallback.length ? readTrustRecord(ctx.user).filter((e) => !fallback.some((r) => isUnder(e, r))) : [];
    const roots = named.length ? [...named, ...found.taken] : [...found.taken, ...[...fallback, ...trusted].filter((r) => existsSync(r))];
    const where = named.length
      ? `under ${named.join(', ')}${found.taken.length ? ` or recorded by fleet-git` : ''}`
      : `recorded by fleet-git${fallback.length ? ` or under ${fallback.join(', ')}` : ''}`;
    const remove = (argv: Partial<RemoveCommand>, stdout = this.context.stdout) =>
      RemoveCommand.runFor(this, { context: { ...this.context, stdout }, roots, where, quiet: this.quiet, ...argv });
    // The parts that are not repositories: taken away by the commands that take each away, run as they run on their own.
    const parts = Cli.from<Context>([DisableCommand, SetupCommand], { binaryName: 'fleet-git' });
    const step = (argv: string[]) => parts.run(argv, this.context);
    const keptTrust = (e: string) => found.kept.some((s) => trustRoots(s).some((r) => isUnder(e, r)));

    if (this.dryRun) {
      // remove's own plan, in words or (captured) as its JSON document.
      let removePlan = '';
      const capture = new Writable({
        write(chunk, _enc, done) {
          removePlan += chunk;
          done();
        },
      });
      if (roots.length) {
        const code = this.json
          ? await remove({ dryRun: true, json: true }, capture as typeof this.context.stdout)
          : await remove({ dryRun: true });
        if (code !== EXIT.ok) return code;
      } else if (this.json) removePlan = JSON.stringify({ roots: [], repos: [], counts: { targets: 0, untouched: 0 } });
      else this.out('no repository is recorded as using fleet-git');
      const userHook = userHookState(ctx).kind === 'ours' ? userHookFile(ctx.user) : null;
      const setup = setupState(env, home);
      const edit = new TrustEdit(ctx.user);
      const untrust = readTrustRecord(ctx.user).filter((e) => !roots.some((r) => isUnder(e, r)) && !keptTrust(e));
      const dataDir = existsSync(data) && !found.kept.length ? data : null;
      if (this.json) {
        const doc = {
          remove: JSON.parse(removePlan) as unknown,
          gone: found.gone.map((g) => ({ path: g.entry.path, reason: g.gone })),
          kept: found.kept.map((s) => s.path),
          userHook,
          setup: setup.state !== 'off' ? setup.message : null,
          untrust,
          dataDir,
          configFile: config.exists ? config.file : null,
        };
        this.out(JSON.stringify(doc, null, 2));
        return EXIT.ok;
      }
      for (const g of found.gone) this.out(`would forget ${g.entry.path}, recorded by fleet-git: ${g.gone}`);
      for (const line of this.keptLines(found, named, data)) this.out(line);
      if (userHook) this.out(`would remove the user-level hook file ${userHook}`);
      if (setup.state !== 'off') this.out(`would undo fleet-git setup (setup is ${setup.message})`);
      for (const entry of untrust) this.out(`would take ${entry} out of Copilot's trustedFolders in ${edit.file} (fleet-git had added it)`);
      if (dataDir) this.out(`would remove fleet-git's data folder ${dataDir}`);
      if (config.exists) this.out(`your config file ${config.file} would stay`);
      this.out('uninstall --dry-run: nothing was changed');
      return EXIT.ok;
    }
    if (!this.yes) {
      const repos = named.length
        ? `every repository under ${named.join(', ')}${found.taken.length ? ` and the ${found.taken.length} recorded outside them` : ''}`
        : `every repository it recorded (${found.taken.length})${fallback.length ? ` or finds under ${fallback.join(', ')}` : ''}`;
      const what = `fleet-git out of ${repos}, the user-level hook, setup${found.kept.length ? '' : `, and its data folder ${data}`}`;
      if (!isTty(this.context.stdin) || !isTty(this.context.stderr)) {
        throw new InputError(`uninstall would take ${what}, and asks first: add --yes to go ahead (--dry-run shows the plan)`);
      }
      if (!/^\s*y(es)?\s*$/i.test((await ask(this.context, `Take ${what}? [y/N] `)) ?? '')) {
        this.err('fleet-git: nothing was changed');
        return EXIT.ok;
      }
    }
    // Folders fleet-git made in $COPILOT_HOME, known before the steps forget them: each
    // step removes its own when empty, but one made for both (by enable --trust, then
    // --user) is empty only once both are done.
    const made = [userHooksMade(ctx), new TrustEdit(ctx.user).madeFolder()];
    let failed = false;
    if (roots.length) {
      const code = await remove({ yes: true });
      if (code === EXIT.usage) return code;
      if (code !== EXIT.ok) failed = true;
    } else if (!this.quiet) this.out('no repository is recorded as using fleet-git');
    pruneEntries(
      ctx.user,
      found.gone.map((g) => g.entry),
    );
    for (const g of found.gone) if (!this.quiet) this.out(`forgot ${g.entry.path}, recorded by fleet-git: ${g.gone}`);
    for (const argv of [
      ['disable', '--user'],
      ['setup', '--undo'],
    ]) {
      const code = await step(this.quiet ? [...argv, '-q'] : argv);
      if (code !== EXIT.ok) failed = true;
    }
    // Entries fleet-git added for repositories outside those folders (or gone since), but those of repositories it stays in.
    const edit = new TrustEdit(ctx.user);
    for (const entry of readTrustRecord(ctx.user)) {
      if (keptTrust(entry)) continue;
      if (edit.remove(entry) && !this.quiet)
        this.out(`took ${entry} out of Copilot's trustedFolders in ${edit.file} (fleet-git had added it)`);
    }
    if (!saveTrust(this, edit)) failed = true;
    if (failed) {
      this.err(
        `fleet-git: kept the data folder ${data}, since something above was left undone: run fleet-git uninstall again once it is fixed`,
      );
      return EXIT.partial;
    }
    if (found.kept.length) {
      for (const line of this.keptLines(found, named, data)) this.out(line);
      this.out(`uninstalled from the repositories under ${named.join(', ')}, the user-level hook and setup`);
      return EXIT.ok;
    }
    for (const dir of made) if (dir) removeIfEmpty(dir);
    if (existsSync(data)) {
      removeDataDir(data);
      if (!this.quiet) this.out(`removed fleet-git's data folder ${data}`);
    }
    // The hook command's spool folder, when it was not the data folder's (see templates/hook.sh).
    const spool = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'fleet-git') : null;
    if (spool && existsSync(spool)) {
      rmSync(spool, { recursive: true, force: true });
      if (!this.quiet) this.out(`removed the hook events' spool folder ${spool}`);
    }
    if (config.exists && !this.quiet) this.out(`note: your config file ${config.file} stays (delete it if you like)`);
    // What may still use fleet-git somewhere, as far as the record can tell; then the command itself.
    const stranded = 'now call a data folder that is gone (fleet-git status there says so; fleet-git disable there takes it out)';
    const last = 'npm uninstall -g fleet-git removes the command itself';
    if (found.partial)
      this.out(
        `uninstalled from every repository fleet-git knew of; a repository fleet-git 0.2.0 or older enabled ${named.length ? `outside ${named.join(', ')}` : fallback.length ? `outside ${fallback.join(', ')}` : 'elsewhere'}, and no fleet-git met since, is not in its record: its hooks ${stranded}. ${last}`,
      );
    else if (found.gone.length)
      this.out(
        `uninstalled from every repository fleet-git found; ${found.gone.length === 1 ? 'one recorded repository was' : `${found.gone.length} recorded repositories were`} gone (forgotten above): one moved elsewhere still has fleet-git, whose hooks ${stranded}. ${last}`,
      );
    else this.out(`uninstalled: nothing of fleet-git is left here; ${last}`);
    return EXIT.ok;
  }

  /** The recorded repositories outside the folders that still use fleet-git and stay as they are, and what that keeps. */
  private keptLines(found: Recorded, named: string[], data: string): string[] {
    if (!found.kept.length) return [];
    const n = found.kept.length;
    return [
      ...found.kept.map((s) => `${s.path} (recorded by fleet-git, outside ${named.join(', ')}) still uses fleet-git and stays as it is`),
      `${this.dryRun ? 'would keep' : 'kept'} fleet-git's data folder ${data}, whose scripts the hooks of ${n === 1 ? 'that repository' : `those ${n} repositories`} run: fleet-git uninstall with no folder, or with --all, takes ${n === 1 ? 'it' : 'them'} out too`,
    ];
  }
}

/** What the record says, for an uninstall of the folders `named` (none: everything). */
interface Recorded {
  /** The recorded repositories to take fleet-git out of (those outside the folders only with `all`, or without a folder). */
  taken: string[];
  /** Recorded repositories outside the folders that still use fleet-git and stay (with folders, without --all). */
  kept: RepoState[];
  /** Entries whose repository is gone: pruned, never followed. */
  gone: Extract<Checked, { gone: string }>[];
  /** The record was begun after an upgrade from a fleet-git that kept none (record.ts). */
  partial: boolean;
}

function recordedNow(ctx: RunContext, named: string[], all: boolean): Recorded {
  const { entries, partial } = readRecord(ctx.user);
  const out: Recorded = { taken: [], kept: [], gone: [], partial };
  for (const c of entries.map(checkEntry)) {
    if ('gone' in c) out.gone.push(c);
    else if (named.some((r) => isUnder(c.entry.path, r)))
      continue; // remove finds it there
    else if (!named.length || all) out.taken.push(c.entry.path);
    else {
      const s = assessRepo(c.repo, ctx);
      // A worktree of it under the folders brings remove to the whole repository: it does not stay.
      if (s.enabled && !allWorktrees(s).some((w) => named.some((r) => isUnder(w.path, r)))) out.kept.push(s);
    }
  }
  return out;
}
