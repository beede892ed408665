// The house: layers point one way. Every import in src/ (static, re-export or
// dynamic, types included) goes from a layer to one below it, or stays in its
// own folder:
//
//   entry (main.ts, cli.ts, index.ts)
//   -> commands/
//   -> core/
//   -> git/ | copilot/ | fleet/   (one folder per outside world; none imports another)
//   -> shared helpers (fs/, paths.ts, errors.ts, glob.ts, json5.ts, package-root.ts, code-cache.ts)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { it } from 'node:test';
import { ROOT } from './helpers.js';

const SRC = join(ROOT, 'src');

/** A file's layer (lower ranks import higher ones) and the unit it belongs to (imports within a unit are free). */
function place(rel: string): { rank: number; unit: string } {
  const [top, ...rest] = rel.split('/');
  if (rest.length === 0) {
    if (['main.ts', 'cli.ts', 'index.ts'].includes(top)) return { rank: 0, unit: 'entry' };
    return { rank: 4, unit: 'shared' };
  }
  const ranks: Record<string, number> = { commands: 1, core: 2, git: 3, copilot: 3, fleet: 3, fs: 4 };
  assert.ok(top in ranks, `src/${top}/ has no place in the layers: add it here and to the README's development section`);
  return { rank: ranks[top], unit: top === 'fs' ? 'shared' : top };
}

/** Every import of every .ts file under src/: [from, to], paths relative to src/. */
function imports(): [string, string][] {
  const out: [string, string][] = [];
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const spec = /(?:^|\s)(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  for (const f of files) {
    const text = readFileSync(join(SRC, f), 'utf8');
    for (const m of text.matchAll(spec)) {
      const target = normalize(join(dirname(f), m[1] ?? m[2])).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) continue; // ../package.json
      out.push([f, target]);
    }
  }
  return out;
}

/** Imports that break the layers today, each to go with a move (see issue 13); none may be added. */
const KNOWN: string[] = [
  'copilot/adapter.ts -> core/context.ts',
  'copilot/adapter.ts -> core/created.ts',
  'copilot/adapter.ts -> core/repo-lock.ts',
  'copilot/adapter.ts -> core/exclude.ts',
  'copilot/adapter.ts -> core/hook-file.ts',
  'copilot/adapter.ts -> core/run.ts',
  'copilot/adapter.ts -> core/state.ts',
  'copilot/adapter.ts -> git/repo.ts',
  'copilot/hook-client.ts -> fleet/sessions.ts',
  'copilot/hook-client.ts -> core/hook-mark.ts',
  'copilot/hook-event.ts -> fleet/socket.ts',
  'copilot/hook-event.ts -> core/hook-mark.ts',
  'copilot/hook-event.ts -> fleet/sessions.ts',
  'fleet/sessions.ts -> copilot/normalize.ts',
];

it('every import in src/ points down the layers, or stays in its own folder', () => {
  const all = imports();
  assert.ok(all.length > 100, `the imports were found (${all.length})`);
  const wrong = all
    .filter(([a, b]) => {
      const pa = place(a);
      const pb = place(b);
      return pa.unit !== pb.unit && pb.rank <= pa.rank;
    })
    .map(([a, b]) => `${a} -> ${b}`);
  assert.deepEqual(wrong.filter((w) => !KNOWN.includes(w)), [], 'imports against the layers');
  assert.deepEqual(KNOWN.filter((k) => !wrong.includes(k)), [], 'known exceptions that are gone: take them off the list');
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
