// Glob matching with picomatch (a dependency of its own, left to node_modules
// by the bundle), loaded on first use: most runs match no glob at all.
import { createRequire } from 'node:module';

type Matcher = (s: string) => boolean;
type Picomatch = (glob: string | string[], opts?: Record<string, unknown>) => Matcher;

let picomatchFn: Picomatch | undefined;

/** Gives the module picomatch itself: a bundle that carries it (dist/git-hook.cjs, which runs outside fleet-git's folder). */
export function providePicomatch(p: Picomatch): void {
  picomatchFn = p;
}

export function loadPicomatch(): Picomatch {
  picomatchFn ??= createRequire(import.meta.url)('picomatch') as Picomatch;
  return picomatchFn;
}
