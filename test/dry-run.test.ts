// --dry-run against the real run: for every command that has one, over a table
// of starting states, the steps the dry run prints (as JSON) are exactly the
// changes the real run then makes. Each case snapshots the folder before,
// applies the printed steps to that snapshot, runs the real command and
// compares: same paths, same bytes, same modes. The text dry run prints the
// same changes as the real run's outcome, one line each.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { Cli } from 'clipanion';
import { gitChurn, sandbox, snapshot, type Sandbox } from './helpers.js';
import { EnableCommand } from '../src/commands/enable.js';
import { DisableCommand } from '../src/commands/disable.js';
import { RemoveCommand } from '../src/commands/remove.js';
import { UninstallCommand } from '../src/commands/uninstall.js';
import type { Context } from '../src/commands/base.js';
import { upstreamFleetJson } from './workspace.js';
import { applyPlan, type Plan } from '../src/core/plan.js';
import { planDisable, planEnable } from '../src/core/actions.js';
import { assessRepo } from '../src/core/state.js';
import { runContext } from '../src/core/context.js';
import { locateRepo } from '../src/git/repo.js';

const HOOK = '.github/hooks/fleet.json';
const UMASK = process.umask();

interface Case { sb: Sandbox; code: string; repo: string }

/** Runs a command in-process (the commands' own code, with the sandbox's environment and streams of its own). */
async function run(c: Case, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const cli = new Cli<Context>({ binaryName: 'fleet-git' });
  for (const command of [EnableCommand, DisableCommand, RemoveCommand, UninstallCommand]) cli.register(command);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = (s: PassThrough) => { let t = ''; s.on('data', (d) => { t += d; }); return () => t; };
  const out = text(stdout);
  const err = text(stderr);
  const status = await cli.run(args, { ...Cli.defaultContext, stdin: new PassThrough(), stdout, stderr, cwd: c.repo, env: c.sb.env, home: c.sb.home });
  return { status, stdout: out(), stderr: err() };
}

/** A starting state: a repository under `code/`, made as a user (or another tool) would leave it. */
type State = (c: Case) => void | Promise<void>;

const enable = async (c: Case, ...args: string[]) => {
  const r = await run(c, 'enable', ...args);
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
};

const STATES: Record<string, State> = {
  fresh: () => {},
  enabled: (c) => enable(c),
  'stale hook file': async (c) => {
    await enable(c);
    const f = join(c.repo, HOOK);
    writeFileSync(f, readFileSync(f, 'utf8').replaceAll(c.sb.env.XDG_DATA_HOME, '/gone'));
  },
  'foreign hook file': async (c) => {
    mkdirSync(join(c.repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(c.repo, HOOK), '{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"echo mine"}]}}\n');
  },
  'foreign hook file replaced by --force': async (c) => {
    await STATES['foreign hook file'](c);
    await enable(c, '--force');
  },
  'upstream hook file': async (c) => {
    mkdirSync(join(c.repo, '.github/hooks'), { recursive: true });
    writeFileSync(join(c.repo, HOOK), upstreamFleetJson());
  },
  'tracked hook file': async (c) => {
    await STATES['foreign hook file'](c);
    c.sb.git(c.repo, 'add', '-f', HOOK);
    c.sb.git(c.repo, 'commit', '-q', '-m', 'team hook');
  },
  'a foreign post-checkout': async (c) => {
    writeFileSync(join(c.repo, '.git/hooks/post-checkout'), '#!/bin/sh\necho mine\n');
    chmodSync(join(c.repo, '.git/hooks/post-checkout'), 0o750);
  },
  'a foreign post-checkout, enabled': async (c) => {
    await STATES['a foreign post-checkout'](c);
    await enable(c);
  },
  "lefthook's .old": async (c) => {
    // lefthook renames the hook it finds to .old and puts its own in place.
    await enable(c);
    const hook = join(c.repo, '.git/hooks/post-checkout');
    renameSync(hook, `${hook}.old`);
    writeFileSync(hook, '#!/bin/sh\nlefthook run post-checkout "$@"\n');
    chmodSync(hook, 0o755);
  },
  'linked worktrees': async (c) => {
    c.sb.git(c.repo, 'worktree', 'add', '-q', join(c.code, 'r-wt1'));
    c.sb.git(c.repo, 'worktree', 'add', '-q', join(c.code, 'r-wt2'));
  },
  'linked worktrees, enabled': async (c) => {
    await STATES['linked worktrees'](c);
    await enable(c);
  },
  'linked worktrees, one made before and one after enable': async (c) => {
    c.sb.git(c.repo, 'worktree', 'add', '-q', join(c.code, 'r-wt1'));
    await enable(c);
    c.sb.git(c.repo, 'worktree', 'add', '-q', join(c.code, 'r-wt2'));
    rmSync(join(c.code, 'r-wt1', HOOK)); // and one that lost its hook file
  },
  'exclude without a final newline': (c) => writeFileSync(join(c.repo, '.git/info/exclude'), '# mine\n*.log'),
  'exclude without a final newline, enabled': async (c) => {
    await STATES['exclude without a final newline'](c);
    await enable(c);
  },
  'no info folder': (c) => rmSync(join(c.repo, '.git/info'), { recursive: true }),
  'no info folder, enabled': async (c) => {
    await STATES['no info folder'](c);
    await enable(c);
  },
  'no hooks folder, enabled': async (c) => {
    rmSync(join(c.repo, '.git/hooks'), { recursive: true });
    await enable(c);
  },
  'enabled, a file of the user in .github/hooks': async (c) => {
    await enable(c);
    writeFileSync(join(c.repo, '.github/hooks/mine.json'), '{}\n');
  },
  'enabled, then the exclude block lost': async (c) => {
    await enable(c);
    writeFileSync(join(c.repo, '.git/info/exclude'), '');
  },
  'enabled, with temporary files a killed fleet-git left': async (c) => {
    await enable(c);
    writeFileSync(join(c.repo, '.git/info/.exclude.fleet-git-999999999-k1.tmp'), 'half');
    writeFileSync(join(c.repo, '.github/hooks/.fleet.json.fleet-git-999999999-k2.tmp'), '{');
  },
  'an empty record file a killed fleet-git left': (c) => writeFileSync(join(c.repo, '.git/fleet-git-created'), ''),
  'a symbolic link as .github': async (c) => {
    mkdirSync(join(c.code, 'elsewhere/hooks'), { recursive: true });
    symlinkSync('../elsewhere', join(c.repo, '.github'));
  },
};

/**
 * The commands with a --dry-run: the dry run (given --json for the plan as data; `text`, when another
 * command prints it as text), the real run, and whether it reports as a bulk run.
 */
interface Command { dry: string[]; text?: string[]; real: string[]; bulk: boolean }
const COMMANDS: Record<string, (c: Case) => Command> = {
  enable: () => ({ dry: ['enable', '--dry-run'], real: ['enable'], bulk: false }),
  'enable --force': () => ({ dry: ['enable', '--force', '--dry-run'], real: ['enable', '--force'], bulk: false }),
  disable: () => ({ dry: ['disable', '--dry-run'], real: ['disable'], bulk: false }),
  remove: (c) => ({ dry: ['remove', c.code, '--dry-run'], real: ['remove', c.code, '--yes'], bulk: true }),
  'enable --under': (c) => ({ dry: ['enable', '--under', c.code, '--dry-run'], real: ['enable', '--under', c.code], bulk: true }),
  // uninstall's part in the repositories is remove's (its other parts are outside them).
  uninstall: (c) => ({ dry: ['remove', c.code, '--dry-run'], text: ['uninstall', c.code, '--dry-run'], real: ['uninstall', c.code, '--yes'], bulk: true }),
};

type Snap = Record<string, string>;
const b64 = (t: string) => Buffer.from(t, 'utf8').toString('base64');
const mode = (m: number) => `${(m & 0o7777).toString(8)}`;

/** The snapshot a list of steps (as --dry-run --json prints them) makes of `before`. */
function applySteps(before: Snap, root: string, steps: any[]): Snap {
  const s = { ...before };
  const rel = (p: string) => relative(root, p);
  for (const st of steps) {
    const at = rel(st.path);
    assert.ok(!at.startsWith('..'), `a step outside the folder: ${st.path}`);
    if (st.kind === 'folder' && st.op === 'make') {
      assert.equal(s[at], undefined, `${at} is made where nothing is`);
      s[at] = `dir ${mode(0o777 & ~UMASK)}`;
    } else if (st.op === 'remove') {
      assert.ok(s[at] !== undefined, `${at} is removed where it is`);
      if (st.kind !== 'folder') assert.equal(s[at].split(' ')[2], b64(st.before), `${at} holds what the step says it removes`);
      delete s[at];
    } else if (st.op === 'write') {
      const old = s[at];
      assert.equal(old === undefined ? null : Buffer.from(old.split(' ')[2], 'base64').toString('utf8'), st.before, `${at}: the step's before is the file's text`);
      const m = st.mode ?? (old ? old.split(' ')[1] : mode(0o644 & ~UMASK));
      s[at] = `file ${m} ${b64(st.after)}`;
    } else if (st.op === 'rename') {
      const to = rel(st.to);
      assert.ok(s[at] !== undefined, `${at} is renamed where it is`);
      s[to] = s[at];
      delete s[at];
    } else assert.fail(`unknown step ${JSON.stringify(st)}`);
  }
  return s;
}

/** Every step of a --dry-run --json document. */
const stepsOf = (doc: any): any[] => doc.repos.flatMap((r: any) => (r.changes ?? []).flatMap((c: any) => c.steps));
const wouldOf = (doc: any): string[] => doc.repos.flatMap((r: any) => (r.changes ?? []).map((c: any) => c.would));

async function makeCase(state: State): Promise<Case> {
  const sb = sandbox('fleet-git-dry-');
  const code = join(sb.dir, 'code');
  const repo = sb.repo('code/r');
  const c = { sb, code, repo };
  await state(c);
  return c;
}

describe('--dry-run prints exactly the changes the real run makes', () => {
  for (const [stateName, state] of Object.entries(STATES)) {
    it(stateName, async () => {
      for (const [cmdName, command] of Object.entries(COMMANDS)) {
        const c = await makeCase(state);
        const cmd = command(c);
        const snap = () => snapshot(c.code, gitChurn);
        const before = snap();
        const dj = await run(c, ...cmd.dry, '--json');
        assert.equal(dj.status, 0, `${cmdName}: ${dj.stderr}`);
        assert.deepEqual(snap(), before, `${cmdName} --dry-run --json changes nothing`);
        const doc = JSON.parse(dj.stdout);
        const text = await run(c, ...(cmd.text ?? cmd.dry));
        assert.equal(text.status, 0, `${cmdName}: ${text.stderr}`);
        assert.deepEqual(snap(), before, `${cmdName} --dry-run changes nothing`);
        const would = wouldOf(doc);
        for (const w of would) assert.ok(text.stdout.includes(`\n  ${w}\n`), `${cmdName}: the text dry run prints ${w}`);
        const expected = applySteps(before, c.code, stepsOf(doc));

        const real = await run(c, ...cmd.real);
        assert.ok(real.status === 0 || real.status === 1, `${cmdName}: ${real.stderr}`);
        assert.deepEqual(snap(), expected, `${stateName}, ${cmdName}: the real run made exactly the planned changes`);
        if (cmd.bulk) {
          // A bulk run prints one line for each repository it changed.
          const changed = real.stdout.split('\n').filter((l) => /^\S.*: (enabled|removed)$/.test(l)).map((l) => l.slice(0, l.lastIndexOf(':')));
          assert.deepEqual(changed, doc.repos.filter((r: any) => r.changes?.length).map((r: any) => r.path), `${cmdName}: the repositories changed\n${real.stdout}`);
        } else {
          // One outcome line per planned change.
          const lines = real.stdout.split('\n').filter((l) => l.startsWith('  ') && !l.startsWith('  note: '));
          assert.equal(lines.length, would.length, `${cmdName}: the real run's lines\n${real.stdout}\nagainst the plan's\n${would.join('\n')}`);
        }
        if (!cmd.bulk) assert.equal(real.status, doc.repos.some((r: any) => r.notes.length) ? 1 : 0, `${cmdName}: the plan's notes are the real run's exit code`);
      }
    });
  }
});

describe('the applier undoes what it did when a step fails', () => {
  /** A plan with a step that fails once the steps before it are done. */
  const failing = (p: Plan, at: number): Plan => {
    const bad = { kind: 'file' as const, op: 'write' as const, path: '/nonexistent-fleet-git-test/x', before: null, after: 'x', why: 'fails' };
    const changes = p.changes.map((ch) => ({ ...ch, steps: [...ch.steps] }));
    changes[Math.min(at, changes.length - 1)].steps.push(bad);
    return { ...p, changes };
  };

  for (const [name, state] of Object.entries({ fresh: STATES.fresh, 'a foreign post-checkout': STATES['a foreign post-checkout'], 'linked worktrees, enabled': STATES['linked worktrees, enabled'], 'foreign hook file replaced by --force': STATES['foreign hook file replaced by --force'] })) {
    it(`${name}: enable and disable, failing at each change, leave every byte as it was`, async () => {
      const c = await makeCase(state);
      const ctx = runContext(c.sb.env, c.sb.home);
      const snap = () => snapshot(c.code, gitChurn);
      let planned = 0;
      for (const plan of [(s: ReturnType<typeof assessRepo>) => planEnable(s, ctx, { force: true }), (s: ReturnType<typeof assessRepo>) => planDisable(s, { upstream: true })]) {
        const p = plan(assessRepo(locateRepo(c.repo), ctx));
        planned += p.changes.length;
        for (let at = 0; at < p.changes.length; at++) {
          const before = snap();
          assert.throws(() => applyPlan(failing(p, at)), /ENOENT/);
          assert.deepEqual(snap(), before, `${name}: failing in change ${at} (${p.changes[at].did}) leaves the folder as it was`);
        }
        applyPlan(p); // and the plan itself goes through
      }
      assert.ok(planned > 0, `${name}: the plans change something`);
    });
  }
});

describe('remove --dry-run', () => {
  it('on a freshly enabled repository lists every step the real remove takes, the empty folders it made included', async () => {
    const c = await makeCase(STATES.enabled);
    const r = await run(c, 'remove', c.code, '--dry-run');
    assert.equal(r.stdout, [
      `${c.repo}: would`,
      `  remove ${join(c.repo, HOOK)}`,
      `  remove the empty folders .github/hooks, .github it had created in ${c.repo}`,
      `  remove the fleet-git block from ${join(c.repo, '.git/info/exclude')}`,
      `  remove fleet-git's post-checkout hook ${join(c.repo, '.git/hooks/post-checkout')}`,
      `1 of 1 repository under ${c.code} has fleet-git or upstream fleet files; --dry-run: nothing was changed`,
      '',
    ].join('\n'));
  });
});
