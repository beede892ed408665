// The marked block fleet-git keeps in a repository's info/exclude. Pure text
// functions: the block goes after the user's text when that ends with a newline
// (so that enabling only appends to the file: no new file, which costs a
// third of a millisecond on some disks, and no byte of the user's rewritten),
// else first (so that no byte of the user's text, a missing final newline
// included, ever has to change); either way it comes out whole.
export const HOOK_FILE_PATH = '.github/hooks/fleet.json';
export const EXCLUDE_BEGIN = '# >>> fleet-git: keeps the Copilot hook file out of commits (fleet-git disable removes this block)';
export const EXCLUDE_END = '# <<< fleet-git';
export const EXCLUDE_BLOCK = `${EXCLUDE_BEGIN}\n/${HOOK_FILE_PATH}\n${EXCLUDE_END}\n`;

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

/** The text with the block in it (unchanged when a complete block is there). */
export function addExcludeBlock(text: string | null): string {
  if (hasExcludeBlock(text)) return text as string;
  const user = removeExcludeBlock(text ?? '');
  return user === '' || user.endsWith('\n') ? user + EXCLUDE_BLOCK : EXCLUDE_BLOCK + user;
}

/** The text without the block (unchanged when there is none). */
export function removeExcludeBlock(text: string): string {
  let out = text;
  for (let at = findBlock(out); at !== null; at = findBlock(out)) out = out.slice(0, at[0]) + out.slice(at[1]);
  return out;
}
