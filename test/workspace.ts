// A small workspace with every kind of repository and oddity that discovery,
// `scan` and bulk `remove` meet under a folder like ~/code. Built with real git
// in a sandbox (see helpers.ts); the same call builds the same tree.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { copyListed, gitChurn, listFolder, ROOT, snapshot, type Sandbox } from './helpers.js';

export interface WorkspaceOptions {
  /**
   * Enables fleet-git in a repository (later: `sb.cli(path, 'enable')`). When
   * given, `states/fleet-git` and `states/lefthook` are enabled, and lefthook is
   * then installed in `states/lefthook` so that it displaces fleet-git's hook.
   */
  enable?: (repoPath: string) => void;
  /** Installs upstream fleet's Copilot hook file; default writes `upstreamFleetJson()` untracked. */
  upstream?: (repoPath: string) => void;
  /** Make `locked/` unreadable (chmod 000). Default true. */
  locked?: boolean;
}

export interface Workspace {
  /** The folder to scan. */
  root: string;
  /** Outside `root`: the submodule's origin, the separate git dir, the symlink target. */
  outside: string;
  /** Absolute paths by role. */
  p: {
    solo: string; // regular repo at depth 1
    app: string; // regular repo at depth 2, with a linked worktree and node_modules inside
    appWorktree: string; // linked worktree of app, beside it
    superproject: string; // repo with a submodule
    submodule: string; // superproject/libs/sub (only found with nested)
    outer: string; // repo with an unrelated repo nested in its worktree
    inner: string; // outer/vendor/inner (only found with nested)
    separate: string; // worktree whose git dir lives outside root (--separate-git-dir)
    separateGitDir: string;
    bare: string; // mirrors/tool.git
    stale: string; // odd/stale: `.git` file naming a missing folder (relative path)
    staleGitDir: string;
    broken: string; // odd/broken: `.git` folder holding only `config`
    garbage: string; // odd/garbage: `.git` file without a gitdir line
    archived: string; // archive/old: a repo for the ignore globs
    nodeModulesRepo: string; // tools/node_modules/pkg: repo-looking, must be skipped
    loop: string; // links/loop -> .. (the root)
    selfLink: string; // links/self -> .
    linkedOutside: string; // links/ext -> outside/ext-repo (found only when following links)
    outsideRepo: string;
    locked: string; // locked/ (chmod 000) holding locked/hidden
    lockedRepo: string;
    fleetGit: string; // states/fleet-git: enabled by fleet-git (when opts.enable)
    upstream: string; // states/upstream: upstream fleet's hook file
    tracked: string; // states/tracked: a tracked .github/hooks/fleet.json
    lefthook: string; // states/lefthook: enabled, then lefthook displaced the hook (when opts.enable)
  };
  /** True when `locked/` really cannot be read (false when running as root, where chmod 000 does not stop reads). */
  lockedUnreadable: boolean;
  /**
   * Gives `locked/` its permissions back. Must run before the sandbox is removed
   * (rm cannot enter a 000 folder as a user): node:test runs `after` hooks in the
   * order they were registered, so register `after(() => ws.unlock())` before calling sandbox().
   */
  unlock(): void;
}

/** What upstream `fleet hooks install --tools copilot` writes to `.github/hooks/fleet.json` (marked by `claude-code-fleet`). */
export function upstreamFleetJson(clientPath = '/usr/local/lib/node_modules/@dking/claude-code-fleet/src/hook-client.js'): string {
  const entry = { type: 'command', bash: `node ${clientPath} # claude-code-fleet`, timeoutSec: 10 };
  return JSON.stringify({ version: 1, hooks: { sessionStart: [entry], postToolUse: [entry], sessionEnd: [entry] } }, null, 2) + '\n';
}

/** A tracked (committed) fleet.json that is no fleet-git file: the user's own. */
export const TRACKED_FLEET_JSON =
  JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo team hook' }] } }, null, 2) + '\n';

export function buildWorkspace(sb: Sandbox, opts: WorkspaceOptions = {}): Workspace {
  const root = join(sb.dir, 'ws');
  const outside = join(sb.dir, 'outside');
  mkdirSync(root, { recursive: true });
  mkdirSync(outside, { recursive: true });
  const rel = (r: string) => join(root, r);
  const repo = (r: string) => sb.repo(join('ws', r));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };

  const p: Workspace['p'] = {
    solo: repo('solo'),
    app: repo('work/app'),
    appWorktree: rel('work/app-wt'),
    superproject: repo('work/super'),
    submodule: rel('work/super/libs/sub'),
    outer: repo('work/outer'),
    inner: rel('work/outer/vendor/inner'),
    separate: rel('work/separate'),
    separateGitDir: join(outside, 'separate.git'),
    bare: rel('mirrors/tool.git'),
    stale: rel('odd/stale'),
    staleGitDir: rel('odd/gone/worktree'),
    broken: rel('odd/broken'),
    garbage: rel('odd/garbage'),
    archived: repo('archive/old'),
    nodeModulesRepo: rel('tools/node_modules/pkg'),
    loop: rel('links/loop'),
    selfLink: rel('links/self'),
    linkedOutside: rel('links/ext'),
    outsideRepo: sb.repo(join('outside', 'ext-repo')),
    locked: rel('locked'),
    lockedRepo: rel('locked/hidden'),
    fleetGit: repo('states/fleet-git'),
    upstream: repo('states/upstream'),
    tracked: repo('states/tracked'),
    lefthook: repo('states/lefthook'),
  };

  // node_modules inside a repo and a linked worktree beside it.
  write(join(p.app, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
  sb.git(p.app, 'worktree', 'add', '-q', p.appWorktree, '-b', 'wt');

  // A real submodule, from a local origin outside the root.
  const origin = sb.repo(join('outside', 'lib-origin'));
  sb.git(p.superproject, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', origin, 'libs/sub');
  sb.git(p.superproject, 'commit', '-q', '-m', 'add submodule');

  // A repository nested in another's worktree (ignored by the outer one).
  mkdirSync(p.inner, { recursive: true });
  sb.git(p.inner, 'init', '-q', '-b', 'main');
  write(join(p.outer, '.gitignore'), 'vendor/\n');

  // --separate-git-dir: the worktree holds a `.git` file naming a plain git dir elsewhere.
  mkdirSync(p.separate, { recursive: true });
  sb.git(p.separate, 'init', '-q', '-b', 'main', `--separate-git-dir=${p.separateGitDir}`);

  sb.git(root, 'init', '-q', '--bare', p.bare);

  write(join(p.stale, '.git'), 'gitdir: ../gone/worktree\n');
  write(join(p.broken, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  write(join(p.garbage, '.git'), 'this is not a git file\n');

  mkdirSync(p.nodeModulesRepo, { recursive: true });
  sb.git(p.nodeModulesRepo, 'init', '-q', '-b', 'main');

  mkdirSync(rel('links'), { recursive: true });
  symlinkSync('..', p.loop);
  symlinkSync('.', p.selfLink);
  symlinkSync(p.outsideRepo, p.linkedOutside);
  symlinkSync(join(outside, 'nowhere'), rel('links/dangling'));

  mkdirSync(p.lockedRepo, { recursive: true });
  sb.git(p.lockedRepo, 'init', '-q', '-b', 'main');

  // Fleet states, for scan and remove.
  write(join(p.tracked, '.github/hooks/fleet.json'), TRACKED_FLEET_JSON);
  sb.git(p.tracked, 'add', '.github/hooks/fleet.json');
  sb.git(p.tracked, 'commit', '-q', '-m', 'team hooks');
  if (opts.upstream) opts.upstream(p.upstream);
  else write(join(p.upstream, '.github/hooks/fleet.json'), upstreamFleetJson());
  if (opts.enable) {
    opts.enable(p.fleetGit);
    opts.enable(p.lefthook);
    write(join(p.lefthook, 'lefthook.yml'), 'post-checkout:\n  jobs:\n    - run: "true"\n');
    execFileSync(join(ROOT, 'node_modules/.bin/lefthook'), ['install'], { cwd: p.lefthook, env: sb.env, stdio: 'ignore' });
  }

  let lockedUnreadable = false;
  if (opts.locked ?? true) {
    chmodSync(p.locked, 0o000);
    try {
      readdirSync(p.locked);
    } catch {
      lockedUnreadable = true;
    }
  }
  const unlock = () => {
    try {
      chmodSync(p.locked, 0o755);
    } catch {
      /* gone already */
    }
  };
  return { root, outside, p, lockedUnreadable, unlock };
}

/** Every file and folder of the workspace and of its outside folder (git's churn left out), to compare before and after. */
export function workspaceSnapshot(ws: Workspace): Record<string, string> {
  return {
    ...snapshot(ws.root, gitChurn),
    ...Object.fromEntries(Object.entries(snapshot(ws.outside, gitChurn)).map(([k, v]) => [`outside/${k}`, v])),
  };
}

/** `n` empty repositories r0, r1, ... in `parent` (enough for bulk runs' helper threads: 64 at least); their folders. */
export function initRepos(sb: Sandbox, parent: string, n: number): string[] {
  const first = join(parent, 'r0');
  mkdirSync(first, { recursive: true });
  sb.git(first, 'init', '-q');
  const made = listFolder(first); // the others are copies of it: what git init made, without a git process each
  return Array.from({ length: n }, (_, i) => {
    const dir = join(parent, `r${i}`);
    if (i > 0) copyListed(made, dir);
    return dir;
  });
}
