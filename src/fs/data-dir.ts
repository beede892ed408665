// fleet-git's data folder (${XDG_DATA_HOME:-~/.local/share}/fleet-git), made on
// first use. When making it made folders above it too (a home with no
// ~/.local/share yet), the topmost of those is recorded inside it, so that
// `fleet-git uninstall`, which removes the folder, removes them too when
// nothing else is in them: the home is left as it was.
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { removeEmptyUpTo, writeAtomic } from './atomic.js';
import { readText } from './read.js';

const MADE_ABOVE = 'made-folders-above';
/** The record of the repositories fleet-git enabled (core/repo/record.ts), a folder in the data folder. */
export const RECORD_DIR = 'repos';

/**
 * Makes the data folder when it is missing, with its (empty) record folder: a
 * data folder without one was made by a fleet-git that kept no record.
 */
export function makeDataDir(dataDir: string): void {
  const first = mkdirSync(dataDir, { recursive: true });
  if (first === undefined) return;
  mkdirSync(join(dataDir, RECORD_DIR), { recursive: true });
  if (first !== dataDir) writeAtomic(join(dataDir, MADE_ABOVE), `${first}\n`);
}

/** Removes the data folder and everything in it, and the folders above it that makeDataDir made, when empty. */
export function removeDataDir(dataDir: string): void {
  const top = readText(join(dataDir, MADE_ABOVE))?.trim();
  rmSync(dataDir, { recursive: true, force: true });
  if (top) removeEmptyUpTo(dirname(dataDir), top);
}
