import { Option } from 'clipanion';
import { valueOption, listOption, operands } from './options.js';
import type { Group, RowJson, SurveyJson } from '../core/bulk/bulk.js';
import type { Style } from '../colour.js';
import type { HookLevel } from '../core/setup/user-hooks.js';
import type { RunContext } from '../core/repo/context.js';
import { EXIT, FleetCommand, InputError, type ExitCodes } from './base.js';
import { isTty, loadBulk, rootsOf, withProgress } from './report.js';

function parseDepth(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new InputError(`--depth takes a whole number of folder levels (0 or more), not "${v}"`);
  return Number(v);
}

const HOOK_LEVELS: Record<HookLevel, string> = {
  repo: 'repository hooks',
  user: 'user-level hooks',
  both: 'both hook levels (each event once)',
  none: 'no hooks',
};

const TITLES: Record<Group, string> = {
  healthy: 'Enabled and healthy',
  problems: 'With problems',
  'not-enabled': 'Not enabled',
  'not-usable': 'Not usable',
};

/** A recorded repository that is gone (record.ts, checkEntry), and why. */
interface Gone {
  path: string;
  reason: string;
}

/** What scan --json adds when it lists the recorded repositories: the record's folder, whether it is partial (begun after an upgrade), the entries gone. */
interface RecordJson {
  folder: string;
  partial: boolean;
  gone: Gone[];
}

/** A path as a line of scan's plain output shows it: as it is, or quoted as a JSON string when it holds a tab, a newline, a backslash, a control character or starts with a double quote. */
function plainPath(p: string): string {
  return /[\x00-\x1f\x7f\\]|^"/.test(p) ? JSON.stringify(p) : p;
}

export class ScanCommand extends FleetCommand {
  static paths = [['scan']];

  static refreshesKit = false; // it only reads: the kit is left as it is (a command that changes things replaces it)
  static exits: ExitCodes = {
    0: 'the scan ran, whatever it found; with --check, it found no repository or worktree with problems and none not usable (a bare repository aside)',
    1: 'with --check: some repository or worktree has problems or is not usable, a bare repository aside (one line on stderr counts them)',
    2: 'a root that does not exist or is not a folder, a --depth that is not a whole number, an invalid config file',
  };
  static usage = FleetCommand.Usage({
    description: 'show the fleet state of every repository fleet-git recorded, or of every repository and worktree under some folders',
    details: `
      Without a folder (and no scan.roots in the config file), it reports the repositories fleet-git recorded, wherever they are: every repository that enable, enable --under, or the worktrees and clones its git hook provisions added, less those that disable and remove took out (the record is a folder of small files in fleet-git's data folder; \`fleet-git uninstall\` uses it too). A recorded repository that is gone since (moved or deleted, or another repository at its path now) is shown as gone, never read (scan writes nothing; the next fleet-git enable or uninstall forgets it). After an upgrade from fleet-git 0.2.0, which kept no record, a line on stderr says that the repositories that version enabled are not in it until enabled again (enable --under FOLDER records those already enabled and changes nothing else there).

      With folders (\`scan .\` for the current one, which is what no folder meant before the record), or those of scan.roots in the config file, it walks them, stopping at each repository root and skipping node_modules. Either way it reads each repository's state from its files, as \`fleet-git status\` does: enabled and healthy, enabled with problems (and which), not enabled, or not usable (bare, stale, broken, unreadable, or refused by git itself, with the reason: git's own words for a repository fleet-git has something in). Linked worktrees are shown with their repository.

      For each repository it also tells whether Copilot trusts it (on a terminal: marked on the line of an enabled one that copilot -p would skip, the others counted once at the end) (copilot -p sessions skip an untrusted repository's hooks silently) and which fleet hook file reports it: the repository's own, the user-level one, both (each event is still sent once) or none.

      On a terminal it prints a table grouped by state with counts at the end. Otherwise one line per repository and linked worktree, tab-separated: the path, the state (healthy, problems, not-enabled or not-usable) and the problem codes, comma-separated, or - when there are none (a path holding a tab, a newline, a backslash or a control character, or starting with a double quote, is printed as a JSON string). A recorded repository gone since is one line \`path<TAB>gone<TAB>-\`. With --json, the one stable machine format, one JSON document: {"roots", "repos": [{"path", "kind", "enabled", "problems", "worktrees", "copilot": {"trusted", "hooks"}}], "counts"} ("copilot" on usable repositories only; "hooks" is "repo", "user", "both" or "none"), and without a folder "record": {"folder", "partial", "gone": [{"path", "reason"}]} ("roots" then lists the recorded repositories still there).
    `,
    examples: [
      ['Every repository fleet-git recorded', '$0 scan'],
      ['Every repository under ~/code', '$0 scan ~/code'],
      ['As JSON, with repositories nested inside others', '$0 scan ~/code --json --nested'],
      ['In a script or CI: fail when a repository under ~/code has a problem', '$0 scan ~/code --check'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'print one JSON document' });
  nested = Option.Boolean('--nested', false, { description: 'also look inside repositories for nested repositories and submodules' });
  depth = valueOption('--depth', 'N', 'read at most N folder levels below each root');
  ignore = listOption('--ignore', 'GLOB', "skip folders matching this glob (repeatable; picomatch's: docs/how-it-works.md, Patterns)");
  followSymlinks = Option.Boolean('--follow-symlinks', false, { description: 'follow symbolic links to folders (loops are detected)' });
  check = Option.Boolean('--check', false, {
    description:
      'exit 1 when any repository or worktree has problems or is not usable (not enabled is no problem, nor a bare repository: it has no worktree for fleet-git to work in), for scripts and CI',
  });
  quiet = Option.Boolean('-q,--quiet', false, {
    description: 'no progress line; only the repositories with problems or not usable, and the counts (--json: every one)',
  });
  roots = operands('root');

  async run(): Promise<number> {
    const depth = parseDepth(this.depth);
    const { loadUserConfig, scanRoots } = await import('../core/setup/user-config.js');
    const { config, from } = loadUserConfig(this.context.env, this.context.home); // an invalid file: one line, exit 2
    const [{ surveyAsJson }, { runContext }] = await Promise.all([loadBulk(), import('../core/repo/context.js')]);
    const ctx = runContext(this.context.env, this.context.home);
    // No folder, and none in the config file: the repositories fleet-git recorded, wherever they are.
    const record = this.roots.length || from['scan.roots'] === 'file' ? null : await this.readRecord(ctx);
    const roots = record
      ? record.roots
      : await rootsOf(this.roots.length ? this.roots : scanRoots(config, this.context.home), this.context.cwd);
    const hits = new Set<string>();
    const opts = {
      nested: this.nested,
      depth,
      ignore: [...config.scan.ignore, ...this.ignore],
      ignoreHits: this.ignore.length ? hits : undefined,
      followSymlinks: this.followSymlinks,
    };
    const s = this.quiet
      ? await surveyAsJson(roots, ctx, opts)
      : await withProgress(this.context, (onProgress) => surveyAsJson(roots, ctx, { ...opts, onProgress }));
    // An --ignore that matched nothing is most likely a mistake: said once, the scan's output and exit code are as before.
    for (const g of new Set(this.ignore))
      if (!hits.has(g)) this.err(`fleet-git: --ignore ${JSON.stringify(g)} matched nothing under ${roots.join(', ')}`);
    const { jsonGroup } = await loadBulk();
    const shown = this.quiet ? { ...s, repos: s.repos.filter((r) => ['problems', 'not-usable'].includes(jsonGroup(r))) } : s;
    const gone = record?.gone ?? [];
    if (this.json) this.context.stdout.write(`${JSON.stringify(record ? { ...s, record: record.json } : s, null, 2)}\n`);
    else if (!isTty(this.context.stdout)) await this.printLines(shown, gone);
    else await this.printTable(shown, ctx, gone, record ? 'recorded by fleet-git' : `under ${s.roots.join(', ')}`);
    if (record?.json.partial)
      this.err(
        `fleet-git: note: this record of repositories was begun after an upgrade from a fleet-git that kept none: the repositories that one enabled are not in it until fleet-git enables them again (fleet-git scan FOLDER finds them; fleet-git enable --under FOLDER records them and changes nothing else where they are enabled already)`,
      );
    const { withProblems } = s.counts;
    // A bare repository is listed as not usable but fails no check: it has no worktree, so nothing for fleet-git to do there.
    const notUsable = s.repos.filter((r) => r.kind !== 'bare' && jsonGroup(r) === 'not-usable').length;
    if (!this.check || withProblems + notUsable === 0) return EXIT.ok;
    this.err(
      `fleet-git: scan --check: ${withProblems} with problems, ${notUsable} not usable (see above; fleet-git status REPO says what to do)`,
    );
    return EXIT.partial;
  }

  /**
   * The recorded repositories (record.ts) as scan's roots: those still there, each its own root; the entries
   * whose repository is gone, with the reason: reported, never read (scan writes nothing; the next enable forgets them).
   */
  private async readRecord(ctx: RunContext): Promise<{ roots: string[]; gone: Gone[]; json: RecordJson }> {
    const { checkEntry, readRecord, recordDir } = await import('../core/repo/record.js');
    const { entries, partial } = readRecord(ctx.user);
    const roots: string[] = [];
    const gone: Gone[] = [];
    for (const c of entries.map(checkEntry)) {
      if ('gone' in c) gone.push({ path: c.entry.path, reason: c.gone });
      else roots.push(c.entry.path);
    }
    return { roots, gone, json: { folder: recordDir(ctx.user), partial, gone } };
  }

  /** Off a terminal: one line per repository and worktree, `path<TAB>state<TAB>codes` (codes comma-separated, or -); a recorded one gone since, `path<TAB>gone<TAB>-`. */
  private async printLines(s: SurveyJson, gone: Gone[]): Promise<void> {
    const { jsonGroup } = await loadBulk();
    const codes = (ps: { code: string }[]) => (ps.length ? ps.map((p) => p.code).join(',') : '-');
    const lines: string[] = [];
    for (const r of s.repos) {
      lines.push(`${plainPath(r.path)}\t${jsonGroup(r)}\t${codes(r.problems)}`);
      for (const w of r.worktrees)
        lines.push(`${plainPath(w.path)}\t${w.problems.length ? 'problems' : w.enabled ? 'healthy' : 'not-enabled'}\t${codes(w.problems)}`);
    }
    for (const g of gone) lines.push(`${plainPath(g.path)}\tgone\t-`);
    this.context.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
  }

  /** `ctx.configHooks`: whether this git runs hooks named in config (config-hook.ts), which decides how enabled repositories provision new worktrees. */
  private async printTable(s: SurveyJson, ctx: RunContext, gone: Gone[], where: string): Promise<void> {
    const viaConfig = ctx.configHooks;
    const { jsonGroup, GROUPS } = await loadBulk();
    const paint = this.paint();
    const tint: Record<Group, Style> = { healthy: 'green', problems: 'yellow', 'not-enabled': 'dim', 'not-usable': 'red' };
    const lines: string[] = [];
    const kindNote = (r: RowJson) => {
      const notes: string[] = [];
      if (r.kind !== 'repo') notes.push(r.kind);
      if (r.outside) notes.push('outside the folders scanned, found through a worktree');
      if (r.enclosing) notes.push(`inside ${r.enclosing}`);
      return notes.length ? ` (${notes.join('; ')})` : '';
    };
    // Copilot's side: an enabled repository that copilot -p would skip stands out on its line;
    // the rest is counted once at the end (thousands of repositories, a handful of cases).
    let skipped = 0;
    const copilotCounts = new Map<string, number>();
    const copilotNote = (r: RowJson) => {
      const c = r.copilot;
      if (!c) return '';
      if (c.hooks === 'repo' && !c.trusted) {
        skipped++;
        return `  ${paint(['yellow'], 'copilot: untrusted, so copilot -p skips its hooks')}`;
      }
      const k = `${c.trusted ? 'trusted' : 'untrusted'} with ${HOOK_LEVELS[c.hooks]}`;
      copilotCounts.set(k, (copilotCounts.get(k) ?? 0) + 1);
      return '';
    };
    for (const g of GROUPS) {
      const rows = s.repos.filter((r) => jsonGroup(r) === g);
      if (rows.length === 0) continue;
      lines.push(paint(['bold', tint[g]], `${TITLES[g]} (${rows.length})`));
      for (const r of rows) {
        lines.push(`  ${paint([tint[g]], r.path)}${kindNote(r)}${copilotNote(r)}`);
        if (r.reason !== undefined) {
          lines.push(`      ${r.reason}`);
          continue;
        }
        for (const p of r.problems) lines.push(`      - ${p.message}`);
        for (const w of r.worktrees) {
          lines.push(
            `    worktree ${w.path}: ${w.enabled ? (w.problems.length ? 'enabled, with problems' : 'enabled') : w.problems.length ? 'with problems' : 'not enabled'}`,
          );
          for (const p of w.problems) lines.push(`        - ${p.message}`);
        }
      }
      lines.push('');
    }
    if (gone.length) {
      lines.push(paint(['bold', 'dim'], `Gone since fleet-git recorded them, forgotten by the next enable (${gone.length})`));
      for (const g of gone) lines.push(`  ${paint(['dim'], g.path)}`, `      ${g.reason}`);
      lines.push('');
    }
    const c = s.counts;
    lines.push(
      `${c.repositories} repositor${c.repositories === 1 ? 'y' : 'ies'} and ${c.worktrees} linked worktree${c.worktrees === 1 ? '' : 's'} ${where}: ` +
        `${paint([tint.healthy], `${c.healthy} healthy`)}, ${paint([tint.problems], `${c.withProblems} with problems`)}, ${c.notEnabled} not enabled, ${paint([tint['not-usable']], `${c.notUsable} not usable`)}`,
    );
    if (copilotCounts.size)
      lines.push(
        paint(
          ['dim'],
          `Copilot, by repository: ${[...copilotCounts].map(([k, n]) => `${n} ${k}`).join(', ')}${skipped ? `, ${skipped} untrusted with repository hooks (marked above)` : ''}`,
        ),
      );
    if (c.healthy + c.withProblems > 0)
      lines.push(
        paint(
          ['dim'],
          viaConfig
            ? "new worktrees get the hook file through each enabled repository's git config (hook.fleet-git: this git runs hooks named in config)"
            : "new worktrees get the hook file through the post-checkout hook in each enabled repository's hooks folder (git older than 2.54)",
        ),
      );
    if (s.repos.some((r) => r.copilot?.hooks === 'user' || r.copilot?.hooks === 'both'))
      lines.push(`user-level fleet hooks are installed: Copilot sessions in every folder report, trusted or not`);
    if (skipped) {
      const { fixFirst, readTrust } = await import('../copilot/trust.js');
      const problem = readTrust(ctx.user).problem; // a config.json that enable --trust would refuse: fixing it comes first
      lines.push(
        paint(
          ['yellow'],
          `${skipped} enabled repositor${skipped === 1 ? 'y is' : 'ies are'} not trusted by Copilot: copilot -p sessions skip their hooks silently (${problem ? fixFirst(problem, 'fleet-git enable --under ROOT --trust') : 'fleet-git enable --under ROOT --trust, or trust: true in the config file'})`,
        ),
      );
    }
    this.context.stdout.write(`${lines.join('\n')}\n`);
  }
}
