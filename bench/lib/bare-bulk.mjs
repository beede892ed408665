// The floor for the bulk benchmarks: a bare script that makes the file-system
// changes `enable --under` makes (per repository: `.github` and
// `.github/hooks`, the hook file, the post-checkout hook, the exclude block
// appended, its entry in the record of repositories (one small file in one
// folder, here LIST.records); per linked worktree: the two folders and the hook file), or, with
// `undo`, what `remove` makes (the same taken out, the block cut off by one
// truncation), and nothing else: no state read (but info/exclude, to find the
// block), no lock, no temporary file. Its time is what the kernel and the disk
// cost for that work. A repository whose .git is a file gets what a worktree gets.
//
//   node bench/lib/bare-bulk.mjs do|undo LIST    LIST: one `<kind>\t<path>` a line (repo or worktree)
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmdirSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [mode, list] = process.argv.slice(2);
const MARK = '# >>> fleet-git';
const hookFile = readFileSync(new URL('../../templates/fleet.json', import.meta.url));
const gitHook = readFileSync(new URL('../../templates/post-checkout', import.meta.url));
const block = `${MARK}: keeps the Copilot hook file out of commits (fleet-git disable removes this block)\n/.github/hooks/fleet.json\n# <<< fleet-git\n`;
const records = `${list}.records`;
mkdirSync(records, { recursive: true });
const entry = (path) => join(records, createHash('sha256').update(join(path, '.git')).digest('hex').slice(0, 32));
const ignore = (f) => {
  try {
    f();
  } catch {
    /* as it is */
  }
};
for (const line of readFileSync(list, 'utf8').split('\n')) {
  const [kind, path] = line.split('\t');
  if (!path) continue;
  const hooks = join(path, '.github', 'hooks');
  if (mode === 'do') {
    ignore(() => mkdirSync(join(path, '.github')));
    ignore(() => mkdirSync(hooks));
    writeFileSync(join(hooks, 'fleet.json'), hookFile);
    if (kind !== 'repo') continue;
    writeFileSync(join(path, '.git', 'hooks', 'post-checkout'), gitHook, { mode: 0o755 });
    appendFileSync(join(path, '.git', 'info', 'exclude'), block);
    writeFileSync(entry(path), `${JSON.stringify({ path, commonDir: join(path, '.git') })}\n`);
  } else {
    ignore(() => unlinkSync(join(hooks, 'fleet.json')));
    ignore(() => rmdirSync(hooks));
    ignore(() => rmdirSync(join(path, '.github')));
    if (kind !== 'repo') continue;
    ignore(() => unlinkSync(join(path, '.git', 'hooks', 'post-checkout')));
    ignore(() => unlinkSync(entry(path)));
    const exclude = join(path, '.git', 'info', 'exclude');
    ignore(() => {
      const text = readFileSync(exclude, 'utf8');
      const at = text.indexOf(MARK);
      if (at >= 0) truncateSync(exclude, Buffer.byteLength(text.slice(0, at)));
    });
  }
}
