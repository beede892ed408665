// The post-checkout hook (POSIX sh, templates/post-checkout) and enable
// (TypeScript) make the same two writes in a new worktree: the hook file and
// the exclude block. Over a table of starting states, the folder after git runs
// the hook equals the folder after the same git command without it
// (FLEET_GIT=0) followed by `fleet-git enable`: every path, byte and mode.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXCLUDE_BEGIN, EXCLUDE_END } from '../src/core/repo/exclude.js';
import { gitChurn, sandbox, snapshot, type Sandbox } from './helpers.js';

const HOOK = '.github/hooks/fleet.json';
const PATTERN = `/${HOOK}`;

interface Case {
  sb: Sandbox;
  code: string;
  repo: string;
  wt: string;
}

/**
 * A starting state: `prepare` changes the enabled repository (or the worktree
 * made without the hook, for `checkout` states); then git makes the worktree
 * (`add`) or switches its branch (`checkout`), with or without the hook.
 */
interface State {
  git: 'add' | 'checkout';
  prepare: (c: Case) => void | Promise<void>;
  branch?: string;
  /** What disable leaves in info/exclude. */ afterDisable?: string;
}

/** An add state over this info/exclude text; disable then leaves `after`. */
const exclude = (text: string, after = text): State => ({
  git: 'add',
  prepare: (c) => writeFileSync(join(c.repo, '.git/info/exclude'), text),
  afterDisable: after,
});
const hookFile = (edit: (ours: string, c: Case) => string) => (c: Case) =>
  writeFileSync(join(c.wt, HOOK), edit(readFileSync(join(c.repo, HOOK), 'utf8'), c));

const STATES: Record<string, State> = {
  'the hook file missing': { git: 'add', prepare: () => {} },
  'exclude without the block, with a final newline': exclude('# mine\n*.log\n'),
  'exclude without the block, without a final newline': exclude('# mine\n*.log'),
  'an empty exclude': exclude(''),
  'a lone BEGIN line': exclude(`# mine\n${EXCLUDE_BEGIN}\n`),
  'a lone BEGIN line, then the block': exclude(
    `# mine\n${EXCLUDE_BEGIN}\n*.log\n${EXCLUDE_BEGIN}\n${PATTERN}\n${EXCLUDE_END}\n`,
    `# mine\n${EXCLUDE_BEGIN}\n*.log\n`,
  ),
  'a block without END': exclude(`# mine\n${EXCLUDE_BEGIN}\n${PATTERN}\n`),
  'a block without END, without a final newline': exclude(`# mine\n${EXCLUDE_BEGIN}\n${PATTERN}`),
  'a block without its pattern': exclude(`# mine\n${EXCLUDE_BEGIN}\n${EXCLUDE_END}\n`, '# mine\n'),
  'CRLF line ends': exclude('# mine\r\n*.log\r\n'),
  'the block with CRLF line ends': exclude(`# mine\r\n${EXCLUDE_BEGIN}\r\n${PATTERN}\r\n${EXCLUDE_END}\r\n`),
  'no info/exclude': { git: 'add', prepare: (c) => rmSync(join(c.repo, '.git/info/exclude')) },
  'no info/ folder': { git: 'add', prepare: (c) => rmSync(join(c.repo, '.git/info'), { recursive: true }) },
  'a tracked hook file': {
    git: 'add',
    branch: 'team',
    prepare: async (c) => {
      c.sb.git(c.repo, 'checkout', '-q', '-b', 'team');
      writeFileSync(join(c.repo, HOOK), '{"version":1,"hooks":{}}\n');
      c.sb.git(c.repo, 'add', '-f', HOOK);
      c.sb.git(c.repo, 'commit', '-q', '-m', 'team hook');
      c.sb.git(c.repo, 'checkout', '-q', 'main');
      await c.sb.fleet(c.repo, 'enable'); // main's own hook file again
    },
  },
  'a stale own hook file (its hook client gone)': {
    git: 'checkout',
    prepare: hookFile((ours, c) => ours.replaceAll(c.sb.env.XDG_DATA_HOME, '/gone')),
  },
  'an outdated own hook file': { git: 'checkout', prepare: hookFile((ours) => ours.replace(/"timeoutSec": 10/g, '"timeoutSec": 5')) },
  'a foreign hook file': {
    git: 'checkout',
    prepare: hookFile(() => '{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"echo mine"}]}}\n'),
  },
  "a foreign hook file that names fleet-git's mark outside a command": {
    git: 'checkout',
    prepare: hookFile(
      () => '{"version":1,"note":"not # claude-code-fleet fleet-git","hooks":{"sessionStart":[{"type":"command","bash":"echo mine"}]}}\n',
    ),
  },
  'an own hook file cut short (not JSON)': { git: 'checkout', prepare: hookFile((ours) => ours.slice(0, ours.length - 40)) },
};

async function start(state: State): Promise<Case> {
  const sb = sandbox('fleet-git-hook-eq-');
  // The same commits (and object names) in every sandbox.
  sb.env.GIT_AUTHOR_DATE = sb.env.GIT_COMMITTER_DATE = '2026-12-01T00:00:00Z';
  const code = join(sb.dir, 'code');
  const repo = sb.repo('code/r');
  const c = { sb, code, repo, wt: join(code, 'r-wt') };
  assert.equal((await sb.fleet(repo, 'enable')).status, 0);
  if (state.git === 'checkout') gitWithout(c, c.repo, 'worktree', 'add', '-q', c.wt, '-b', 'w');
  await state.prepare(c);
  return c;
}

function gitWithout(c: Case, cwd: string, ...args: string[]): void {
  const r = c.sb.run(cwd, args);
  assert.equal(r.status, 0, r.stderr);
}

/** The git command of the state, with the hook (FLEET_GIT unset) or without it. */
function gitStep(c: Case, state: State, hook: boolean): string {
  const env = hook ? c.sb.env : { ...c.sb.env, FLEET_GIT: '0' };
  const args =
    state.git === 'add'
      ? ['worktree', 'add', '-q', c.wt, ...(state.branch ? [state.branch] : ['-b', 'w'])]
      : ['checkout', '-q', '-b', 'w2'];
  const r = spawnSync('git', args, { cwd: state.git === 'add' ? c.repo : c.wt, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stderr;
}

describe('the post-checkout hook writes what enable writes', () => {
  for (const [name, state] of Object.entries(STATES)) {
    it(name, async () => {
      const byHook = await start(state);
      const stderr = gitStep(byHook, state, true);
      assert.doesNotMatch(stderr, /fleet-git/, 'the hook says nothing');
      const byEnable = await start(state);
      gitStep(byEnable, state, false);
      const e = await byEnable.sb.fleet(byEnable.wt, 'enable');
      assert.ok(e.status === 0 || e.status === 1, e.stderr);
      // The two sandboxes differ only in their folder's name.
      const a = snapshot(byHook.code, gitChurn);
      const b = snapshot(byEnable.code, gitChurn);
      const text = (snap: Record<string, string>, c: Case) =>
        Object.fromEntries(
          Object.entries(snap).map(([k, v]) => {
            const [kind, mode, data] = v.split(' ');
            return [
              k,
              data === undefined ? v : `${kind} ${mode} ${Buffer.from(data, 'base64').toString('utf8').replaceAll(c.sb.dir, '<sandbox>')}`,
            ];
          }),
        );
      assert.deepEqual(text(a, byHook), text(b, byEnable));
      // And disable gives the user's exclude text back, byte for byte (a lone BEGIN line included).
      if (state.afterDisable !== undefined) {
        assert.equal((await byEnable.sb.fleet(byEnable.repo, 'disable')).status, 0);
        assert.equal(readFileSync(join(byEnable.repo, '.git/info/exclude'), 'utf8'), state.afterDisable);
      }
    });
  }
});
