// The house: layers point one way. Every import in src/ (static, re-export or
// dynamic, types included) goes from a layer to one below it, or stays in its
// own folder:
//
//   entry (main.ts, cli.ts, index.ts, git-hook.ts)
//   -> commands/
//   -> core/                     (the library's CopilotAdapter included: a face of core),
//                                 itself in folders that point one way:
//      core/*.ts -> core/session/ -> core/bulk/ -> core/setup/ -> core/repo/
//   -> git/ | copilot/           (one folder per outside world; neither imports the other)
//   -> fleet/                    (the observer: its event, socket and session files;
//                                 copilot/ turns Copilot's payloads into its events)
//   -> shared helpers (fs/, paths.ts, errors.ts, glob.ts, json5.ts, package-root.ts, code-cache.ts)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { it } from 'node:test';
import { ROOT } from './helpers.js';

const SRC = join(ROOT, 'src');

/** core's folders, each importing only the ones after it (core/*.ts, the adapter, imports any of them). */
const CORE_FOLDERS = ['session', 'bulk', 'setup', 'repo'];

/** A file's layer (lower ranks import higher ones) and the unit it belongs to (imports within a unit are free). */
function place(rel: string): { rank: number; unit: string } {
  const [top, ...rest] = rel.split('/');
  if (rest.length === 0) {
    if (['main.ts', 'cli.ts', 'index.ts', 'git-hook.ts'].includes(top)) return { rank: 0, unit: 'entry' };
    return { rank: 5, unit: 'helpers' };
  }
  const ranks: Record<string, number> = { commands: 1, core: 2, git: 3, copilot: 3, fleet: 4, fs: 5 };
  assert.ok(top in ranks, `src/${top}/ has no place in the layers: add it here and to docs/how-it-works.md`);
  if (top === 'core' && rest.length > 1) {
    const sub = CORE_FOLDERS.indexOf(rest[0]);
    assert.ok(sub >= 0, `src/core/${rest[0]}/ has no place in core's folders: add it to CORE_FOLDERS`);
    return { rank: 2 + (sub + 1) / 10, unit: `core/${rest[0]}` };
  }
  return { rank: ranks[top], unit: top === 'fs' ? 'helpers' : top };
}

/** Every import of every .ts file under src/: [from, to], paths relative to src/. */
function imports(): [string, string][] {
  const out: [string, string][] = [];
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const spec =
    /(?:^|\s)(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|(?:^|\s)import\s+['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const f of files) {
    const text = readFileSync(join(SRC, f), 'utf8');
    for (const m of text.matchAll(spec)) {
      const target = normalize(join(dirname(f), m[1] ?? m[2] ?? m[3])).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) continue; // ../package.json
      out.push([f, target]);
    }
  }
  return out;
}

/** Imports allowed against the layers, by name (none today); none may be added without a reason. */
const KNOWN: string[] = [];

it('every import in src/ points down the layers, or stays in its own folder (core/ folder by folder)', () => {
  const all = imports();
  assert.ok(all.length > 100, `the imports were found (${all.length})`);
  const wrong = all
    .filter(([a, b]) => {
      const pa = place(a);
      const pb = place(b);
      return pa.unit !== pb.unit && pb.rank <= pa.rank;
    })
    .map(([a, b]) => `${a} -> ${b}`);
  assert.ok(
    all.some(([a, b]) => a.startsWith('core/bulk/') && b.startsWith('core/repo/')),
    'the core folders were told apart',
  );
  assert.deepEqual(
    wrong.filter((w) => !KNOWN.includes(w)),
    [],
    'imports against the layers',
  );
  assert.deepEqual(
    KNOWN.filter((k) => !wrong.includes(k)),
    [],
    'known exceptions that are gone: take them off the list',
  );
});

it('no two modules of core/ import each other, directly or through others', () => {
  const core = imports().filter(([a, b]) => a.startsWith('core/') && b.startsWith('core/'));
  const next = new Map<string, string[]>();
  for (const [a, b] of core) next.set(a, [...(next.get(a) ?? []), b]);
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative('core', p)).join(' -> '));
      return;
    }
    state.set(f, 'open');
    for (const g of next.get(f) ?? []) walk(g, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of next.keys()) walk(f, []);
  assert.deepEqual(cycles, []);
});
