// Symbolic links on the way to a path: fleet-git never writes, creates or
// removes anything through one inside a repository.
import { lstatSync } from 'node:fs';
import { lstatIfPresent, within } from './read.js';

/** What is known of a path without asking again: true a symbolic link, false something else, null nothing there. */
export type LinkFacts = ReadonlyMap<string, boolean | null>;

/** The names firstLink walks for a list of relative paths: each prefix once, in order, with the index of its parent prefix (-1 for none). */
const walks = new WeakMap<readonly string[], { rel: string; parent: number }[]>();
function walkOf(rels: readonly string[]): { rel: string; parent: number }[] {
  let w = walks.get(rels);
  if (w) return w;
  w = [];
  const index = new Map<string, number>();
  for (const rel of rels) {
    let parent = -1;
    let prefix = '';
    for (const name of rel.split('/')) {
      prefix = prefix ? `${prefix}/${name}` : name;
      let i = index.get(prefix);
      if (i === undefined) {
        index.set(prefix, (i = w.length));
        w.push({ rel: prefix, parent });
      }
      parent = i;
    }
  }
  walks.set(rels, w);
  return w;
}

/**
 * The first path, walking each of `rels` (plain relative paths) down from `base`
 * one name at a time, that is a symbolic link; null when none is. A name that
 * does not exist ends that walk (nothing below it exists either). fleet-git
 * checks this before it writes, creates or removes anything under `base`.
 * `known`: what reads made anyway already tell of some of these paths (one lstat less each).
 * `absentTo` gets each path found not to exist, as null (no file: see View).
 * (The walk of a list is worked out once: pass the same array each time.)
 */
export function firstLink(base: string, rels: readonly string[], known?: LinkFacts, absentTo?: Map<string, string | null>): string | null {
  const walk = walkOf(rels);
  const absent: boolean[] = [];
  for (let i = 0; i < walk.length; i++) {
    const { rel, parent } = walk[i];
    if (parent >= 0 && absent[parent]) {
      absent[i] = true;
      continue;
    }
    const p = within(base, rel);
    let link = known?.get(p);
    if (link === undefined) {
      const st = lstatIfPresent(p);
      link = st === undefined ? null : st.isSymbolicLink();
    }
    if (link) return p;
    if (link === null) {
      absent[i] = true;
      absentTo?.set(p, null);
    }
  }
  return null;
}

/** Whether `path` itself is a symbolic link (false when nothing is there). */
export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
