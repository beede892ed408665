// The marked block fleet-git keeps in a repository's info/exclude. Pure text
// functions: the block goes after the user's text when that ends with a newline
// (so that enabling only appends to the file: no new file, which costs a
// third of a millisecond on some disks, and no byte of the user's rewritten),
// else first (so that no byte of the user's text, a missing final newline
// included, ever has to change); either way it comes out whole.
import { HOOK_FILE_PATH } from './hook-file.js';

export const EXCLUDE_BEGIN = '# >>> fleet-git: keeps the Copilot hook file out of commits (fleet-git disable removes this block)';
export const EXCLUDE_END = '# <<< fleet-git';
/** The start of a comment line in the block that records a folder of the main worktree enable made (see created.ts). */
const MADE_FOLDER_PREFIX = '# fleet-git made this folder: ';

/** The block, recording the folders of the main worktree that the same enable makes. */
export function excludeBlock(created: readonly string[] = []): string {
  return `${EXCLUDE_BEGIN}\n/${HOOK_FILE_PATH}\n${created.map((c) => `${MADE_FOLDER_PREFIX}${c}\n`).join('')}${EXCLUDE_END}\n`;
}

export const EXCLUDE_BLOCK = excludeBlock();

/**
 * Where the blocks stand in the text: [start, end) in characters, each from the
 * BEGIN line nearest its END line (a BEGIN line alone, above, is the user's).
 */
function findBlocks(text: string): [number, number][] {
  const found: [number, number][] = [];
  const lines = text.split('\n');
  let pos = 0;
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === EXCLUDE_BEGIN) start = pos;
    else if (start >= 0 && line === EXCLUDE_END) {
      found.push([start, pos + line.length + (i < lines.length - 1 ? 1 : 0)]);
      start = -1;
    }
    pos += line.length + 1;
  }
  return found;
}

/** Whether a complete block excludes the hook file. */
export function hasExcludeBlock(text: string | null): boolean {
  if (text === null) return false;
  const last = text.lastIndexOf(EXCLUDE_BEGIN);
  if (last < 0) return false;
  // The common case without splitting the file into lines: the last BEGIN line, the pattern line after it, an END line later (no BEGIN between, it is the last).
  if ((last === 0 || text[last - 1] === '\n') && text.startsWith(PATTERN_LINE, last + EXCLUDE_BEGIN.length)) {
    const end = text.indexOf(END_LINE, last);
    if (end >= 0 && (end + END_LINE.length === text.length || text[end + END_LINE.length] === '\n')) return true;
  }
  return findBlocks(text).some(([a, b]) => text.slice(a, b).includes(PATTERN_LINE));
}
const PATTERN_LINE = `\n/${HOOK_FILE_PATH}\n`;
const END_LINE = `\n${EXCLUDE_END}`;

/**
 * The text with the block in it: unchanged when a complete block is there, else
 * the block added after the text when it ends with a newline, or before it
 * (no byte of the text changes either way), recording `created`.
 */
export function addExcludeBlock(text: string | null, created: readonly string[] = []): string {
  if (hasExcludeBlock(text)) return text as string;
  const user = text ?? '';
  const block = excludeBlock(created);
  return user === '' || user.endsWith('\n') ? user + block : block + user;
}

/** The folders the block records (none without a block). */
export function blockRecords(text: string | null): string[] {
  if (text === null || !text.includes(MADE_FOLDER_PREFIX)) return [];
  return findBlocks(text).flatMap(([a, b]) =>
    text
      .slice(a, b)
      .split('\n')
      .filter((l) => l.startsWith(MADE_FOLDER_PREFIX))
      .map((l) => l.slice(MADE_FOLDER_PREFIX.length)),
  );
}

/** The text without the block (unchanged when there is none). */
export function removeExcludeBlock(text: string): string {
  let out = text;
  for (const [a, b] of findBlocks(text).reverse()) out = out.slice(0, a) + out.slice(b);
  return out;
}
