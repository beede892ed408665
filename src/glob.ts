// Glob matching (picomatch, the matcher fast-glob brings), loaded on first use:
// most runs match no glob at all.
import { createRequire } from 'node:module';

type Matcher = (s: string) => boolean;
type Picomatch = (glob: string | string[], opts?: Record<string, unknown>) => Matcher;

let picomatchFn: Picomatch | undefined;

export function loadPicomatch(): Picomatch {
  if (!picomatchFn) {
    // Resolved from fast-glob, so the copy is the one fast-glob brings, wherever npm placed it.
    const req = createRequire(import.meta.url);
    let fromFg: NodeJS.Require = req;
    try { fromFg = createRequire(req.resolve('fast-glob')); } catch { /* fall back to our own resolution */ }
    picomatchFn = fromFg('picomatch') as Picomatch;
  }
  return picomatchFn;
}
