// The marked block fleet-git keeps in a repository's info/exclude. Pure text
// functions: the block goes after the user's text when that ends with a newline
// (so that enabling only appends to the file: no new file, which costs a
// third of a millisecond on some disks, and no byte of the user's rewritten),
// else first (so that no byte of the user's text, a missing final newline
// included, ever has to change); either way it comes out whole.
export const HOOK_FILE_PATH = '.github/hooks/fleet.json';
export const EXCLUDE_BEGIN = '# >>> fleet-git: keeps the Copilot hook file out of commits (fleet-git disable removes this block)';
export const EXCLUDE_END = '# <<< fleet-git';
/** A comment line in the block: a folder of the main worktree that enable made (see created.ts). */
const CREATED_MARK = '# fleet-git made this folder: ';

/** The block, recording the folders of the main worktree that the same enable makes. */
export function excludeBlock(created: readonly string[] = []): string {
  return `${EXCLUDE_BEGIN}\n/${HOOK_FILE_PATH}\n${created.map((c) => `${CREATED_MARK}${c}\n`).join('')}${EXCLUDE_END}\n`;
}

export const EXCLUDE_BLOCK = excludeBlock();

/** Where the block stands in the text: [start, end) in characters, or null. */
function findBlock(text: string): [number, number] | null {
  const lines = text.split('\n');
  let pos = 0;
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (start < 0 && line === EXCLUDE_BEGIN) start = pos;
    else if (start >= 0 && line === EXCLUDE_END) {
      const end = pos + line.length + (i < lines.length - 1 ? 1 : 0);
      return [start, end];
    }
    pos += line.length + 1;
  }
  return null;
}

export function hasExcludeBlock(text: string | null): boolean {
  if (text === null || !text.includes(EXCLUDE_BEGIN)) return false;
  const at = findBlock(text);
  return at !== null && text.slice(at[0], at[1]).includes(`\n/${HOOK_FILE_PATH}\n`);
}

/** The text with the block in it (unchanged when a complete block is there), recording `created` when it adds one. */
export function addExcludeBlock(text: string | null, created: readonly string[] = []): string {
  if (hasExcludeBlock(text)) return text as string;
  const user = removeExcludeBlock(text ?? '');
  const block = excludeBlock(created);
  return user === '' || user.endsWith('\n') ? user + block : block + user;
}

/** The folders the block records (none without a block). */
export function blockRecords(text: string | null): string[] {
  if (text === null || !text.includes(CREATED_MARK)) return [];
  const at = findBlock(text);
  if (at === null) return [];
  return text.slice(at[0], at[1]).split('\n').filter((l) => l.startsWith(CREATED_MARK)).map((l) => l.slice(CREATED_MARK.length));
}

/** The text without the block (unchanged when there is none). */
export function removeExcludeBlock(text: string): string {
  let out = text;
  for (let at = findBlock(out); at !== null; at = findBlock(out)) out = out.slice(0, at[0]) + out.slice(at[1]);
  return out;
}
