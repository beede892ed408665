// Copilot's folder trust: `trustedFolders` in $COPILOT_HOME/config.json. In
// `copilot -p` mode repository hooks of an untrusted folder are skipped with
// nothing said, so `fleet-git enable --trust` lists the repository root there.
// The file is Copilot's: every other key and value stays as it was, the write
// is atomic, and fleet-git records the entries it added (trusted-folders in its
// data folder) so that disable takes out those and no others, and a key it
// created goes with its last entry.
import { mkdirSync, realpathSync, unlinkSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import * as jsonc from 'jsonc-parser';
import { removeEmptyUpTo, writeAtomic } from '../fs/atomic.js';
import { readText } from '../fs/read.js';
import { makeDataDir } from '../fs/data-dir.js';
import { acquireLock, LockBusyError } from '../fs/lock.js';
import { isUnder, type UserPaths } from '../paths.js';

const TRUST_RECORD = 'trusted-folders';
/**
 * The lock that trust edits take turns on, beside the record in fleet-git's
 * data folder (Copilot's folder is not fleet-git's to put files in): two
 * fleet-git runs editing config.json at once would each write what they read
 * plus their own entries, and one's would be lost.
 */
export const TRUST_LOCK = 'trusted-folders.lock';
/** How long a save waits for another fleet-git's trust edit (each holds the lock for one read and one write). */
const TRUST_LOCK_WAIT_MS = 10_000;
/** Records that fleet-git created the trustedFolders key: the config file, then `key` or `file` (it created the whole file). */
const CREATED_KEY_MARK = 'created-trusted-folders-key';

export function copilotConfigFile(paths: UserPaths): string {
  return join(paths.copilotHome, 'config.json');
}

/** config.json cannot be read as JSON, or its trustedFolders is not a list: fleet-git will not rewrite it. */
export class CopilotConfigError extends Error {
  constructor(
    readonly file: string,
    /** What is wrong with it, in words: "is not valid JSON", ... */
    readonly reason: string,
  ) {
    super(`${file} ${reason}: fleet-git leaves it alone (fix it, then run this again)`);
  }
}

interface ConfigDoc {
  doc: Record<string, unknown> | null;
  /** The file as it was read ('' when absent): edits are made to this text, so every comment and all formatting not edited stay. */
  text: string;
}

function readConfig(file: string): ConfigDoc {
  const text = readText(file);
  if (text === null || text.trim() === '') return { doc: null, text: text ?? '' };
  // Comments anywhere and trailing commas are read (JSONC); the text is edited, never re-serialized.
  const errors: jsonc.ParseError[] = [];
  const doc: unknown = jsonc.parse(text, errors, { allowTrailingComma: true });
  if (errors.length) throw new CopilotConfigError(file, 'is not valid JSON');
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new CopilotConfigError(file, 'does not hold a JSON object');
  if ((doc as Record<string, unknown>).trustedFolders !== undefined && !Array.isArray((doc as Record<string, unknown>).trustedFolders))
    throw new CopilotConfigError(file, 'has a trustedFolders that is not a list');
  return { doc: doc as Record<string, unknown>, text };
}

/** Where the white space that ends at `i` begins. */
function spaceBefore(text: string, i: number): number {
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return i;
}

/** Past the white space, one comma and the white space after it, from `i` (only past the white space when no comma follows). */
function pastComma(text: string, i: number): number {
  const skip = (j: number) => {
    while (j < text.length && /\s/.test(text[j])) j++;
    return j;
  };
  const j = skip(i);
  return text[j] === ',' ? skip(j + 1) : i;
}

/**
 * The text with `items` (JSON texts: entries, or a `"key": value`) added after
 * the last child of an array or object node, each after a comma and the white
 * space that comes before that child (so a one-line list stays on one line and
 * an indented one keeps its indent); in an empty one, right after its bracket.
 * dropChildren takes them out again byte for byte.
 */
function appendChildren(text: string, node: jsonc.Node, items: string[]): string {
  const last = node.children?.at(-1);
  if (!last) return `${text.slice(0, node.offset + 1)}${items.join(', ')}${text.slice(node.offset + 1)}`;
  const ws = text.slice(spaceBefore(text, last.offset), last.offset);
  const at = last.offset + last.length;
  return `${text.slice(0, at)}${items.map((x) => `,${ws}${x}`).join('')}${text.slice(at)}`;
}

/**
 * The text with the children at the indexes `drop` taken out of an array or
 * object node: one that another follows with the comma and white space after
 * it; the last ones with the comma before them. Comments stay (but those
 * between two children that both go).
 */
function dropChildren(text: string, node: jsonc.Node, drop: ReadonlySet<number>): string {
  const children = node.children ?? [];
  let kept = children.length - 1;
  while (kept >= 0 && drop.has(kept)) kept--;
  const ranges: [number, number][] = [];
  for (let i = 0; i < children.length; i++) {
    if (!drop.has(i)) continue;
    const c = children[i];
    if (i < kept || (kept < 0 && i < children.length - 1)) ranges.push([c.offset, pastComma(text, c.offset + c.length)]);
    else if (kept < 0) ranges.push([c.offset, c.offset + c.length]);
    else {
      // The last ones, after the last child kept: from the comma that follows it.
      const k = children[kept];
      const scan = jsonc.createScanner(text, false); // the comma after it, past any comment (which may hold a comma)
      scan.setPosition(k.offset + k.length);
      for (let t = scan.scan(); t !== jsonc.SyntaxKind.CommaToken && t !== jsonc.SyntaxKind.EOF; t = scan.scan());
      const comma = scan.getTokenOffset();
      const last = children.at(-1)!;
      ranges.push([comma, last.offset + last.length]);
      break;
    }
  }
  let out = '';
  let from = 0;
  for (const [a, b] of ranges) {
    out += text.slice(from, a);
    from = b;
  }
  return out + text.slice(from);
}

/**
 * The text with trustedFolders changed from `before` to `after` (null: the key
 * goes): entries taken out and added (at the end) as text, never formatted, so
 * that every other byte of the file stays and taking out what was added gives
 * back the file as it was, whatever its layout. A file with no text yet gets
 * the key on lines of its own.
 *
 * Not jsonc-parser's modify, which does the same job but not this one
 * (measured with 3.3.1): it takes the last entry out of a one-line list as
 * `["/a", "/b"]` → `["/a""]`, adds one as `,"/c"` (or, asked to format,
 * lays the whole line out anew, a one-line file included), and taking out
 * the last entry of an indented list drops the comment after the one before.
 */
function editList(text: string, before: unknown[] | null, after: unknown[] | null): string {
  if (text.trim() === '') return after === null ? text : `${JSON.stringify({ trustedFolders: after }, null, 2)}\n`;
  const parse = (t: string) => {
    const root = jsonc.parseTree(t, [], { allowTrailingComma: true })!;
    let at = (root.children ?? []).length - 1; // the last one, as JSON.parse reads a key given twice
    while (at >= 0 && root.children![at].children?.[0]?.value !== 'trustedFolders') at--;
    return { root, at, list: at < 0 ? null : root.children![at].children![1] };
  };
  const first = parse(text);
  const { root, at } = first;
  let { list } = first;
  if (after === null) return at < 0 ? text : dropChildren(text, root, new Set([at]));
  if (before === null || !list) {
    // The new key laid out as the key before it: on lines of its own, indented as it is, in a file of several lines.
    const last = root.children?.at(-1);
    const indent = last ? /\n([ \t]*)$/.exec(text.slice(spaceBefore(text, last.offset), last.offset))?.[1] : undefined;
    const value = indent === undefined ? JSON.stringify(after) : JSON.stringify(after, null, 2).replace(/\n/g, `\n${indent}`);
    return appendChildren(text, root, [`"trustedFolders": ${value}`]);
  }
  const kept = new Set(after);
  const drop = new Set(before.flatMap((f, i) => (kept.has(f) ? [] : [i])));
  if (drop.size) {
    text = dropChildren(text, list, drop);
    ({ list } = parse(text));
  }
  const had = new Set(before);
  const added = after.filter((f) => !had.has(f)).map((f) => JSON.stringify(f));
  return added.length ? appendChildren(text, list!, added) : text;
}

/**
 * The folders Copilot trusts (none when the file or the key is missing or
 * unreadable), and what keeps fleet-git from listing more there: config.json
 * it will not rewrite (not valid JSON, ...), which then fails `enable --trust`.
 */
export function readTrust(paths: UserPaths): { folders: string[]; problem: CopilotConfigError | null } {
  let doc: Record<string, unknown> | null;
  try {
    doc = readConfig(copilotConfigFile(paths)).doc;
  } catch (e) {
    if (e instanceof CopilotConfigError) return { folders: [], problem: e };
    return { folders: [], problem: null }; // unreadable: enable --trust says why when it reads it
  }
  const list = doc?.trustedFolders;
  return { folders: Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [], problem: null };
}

/** The folders Copilot trusts (empty when the file or the key is missing or unreadable). */
export function trustedFolders(paths: UserPaths): string[] {
  return readTrust(paths).folders;
}

/** What to do about a config.json that enable --trust would refuse: fix the file, which `how` can then list folders in. */
export function fixFirst(problem: CopilotConfigError, how = 'fleet-git enable --trust'): string {
  return `fix ${problem.file} first: it ${problem.reason}, so ${how} would refuse to change it`;
}

/**
 * The listed folders, indexed once: a lookup walks the path's parents, so a
 * scan of thousands of repositories against thousands of entries stays fast.
 */
export class FolderIndex {
  private readonly byPath = new Map<string, string>();
  /** Entries whose real path is not indexed yet (read at the first lookup they may decide). */
  private unresolved: string[] = [];

  constructor(folders: Iterable<string> = []) {
    for (const f of folders) this.add(f);
  }

  add(folder: string): void {
    const key = folder.length > 1 && folder.endsWith(sep) ? folder.slice(0, -1) : folder;
    if (!this.byPath.has(key)) {
      this.byPath.set(key, folder);
      this.unresolved.push(key);
    }
  }

  /**
   * The listed folder that covers `path` (itself or a parent; physical, as git
   * gives a repository's root), or null. An entry through a symbolic link
   * (/tmp/x on a Mac, where /tmp is /private/tmp) covers its real path too, as
   * Copilot has it (measured with Copilot 1.0.102: such an entry is trusted
   * whether the session starts there by the link or the real path).
   */
  by(path: string): string | null {
    if (this.byPath.size === 0) return null;
    const hit = this.lookup(path);
    if (hit !== null || this.unresolved.length === 0) return hit;
    for (const key of this.unresolved.splice(0)) {
      let real: string;
      try {
        real = realpathSync.native(key);
      } catch {
        continue; // not there: it covers nothing more
      }
      if (real !== key && !this.byPath.has(real)) this.byPath.set(real, this.byPath.get(key)!);
    }
    return this.lookup(path);
  }

  private lookup(path: string): string | null {
    for (let p = path; ; p = dirname(p)) {
      const hit = this.byPath.get(p);
      if (hit !== undefined) return hit;
      if (p === dirname(p)) return null;
    }
  }
}

function recordFile(paths: UserPaths): string {
  return join(paths.dataDir, TRUST_RECORD);
}

export function readTrustRecord(paths: UserPaths): string[] {
  return (readText(recordFile(paths)) ?? '').split('\n').filter(Boolean);
}

function writeTrustRecord(paths: UserPaths, entries: string[]): void {
  if (entries.length === 0) {
    try {
      unlinkSync(recordFile(paths));
    } catch {
      /* none */
    }
    return;
  }
  makeDataDir(paths.dataDir);
  writeAtomic(recordFile(paths), `${entries.join('\n')}\n`);
}

interface Loaded {
  doc: Record<string, unknown>;
  text: string;
  /** trustedFolders as it was read, then with the entries added. */
  list: unknown[];
  index: FolderIndex;
  /** Entries to take out at save. */
  removing: Set<string>;
  existed: boolean;
  hadKey: boolean;
}

interface CreatedKey {
  what: 'key' | 'file';
  made?: string;
}

/**
 * One edit of trustedFolders for a whole run, however many repositories:
 * config.json is read at most once (and only when a change may be needed),
 * written at most once, atomically, by save(). fleet-git records the entries it
 * adds (trusted-folders in its data folder) and whether it created the key
 * (and the file), so that taking its entries out removes those and no others,
 * and a trustedFolders key it created goes once it is empty.
 */
export class TrustEdit {
  readonly file: string;
  private loaded: Loaded | null = null;
  private record: Set<string>;
  private recordChanged = false;
  private dirty = false;
  /** What this edit changes, to be made again under the lock on the files as they are then (save). */
  private readonly adding: string[] = [];
  private readonly recordAdds = new Set<string>();
  private readonly recordDrops = new Set<string>();

  constructor(private readonly paths: UserPaths) {
    this.file = copilotConfigFile(paths);
    this.record = new Set(readTrustRecord(paths));
  }

  /** Reads config.json now (throws CopilotConfigError for one fleet-git will not rewrite). */
  load(): Loaded {
    if (this.loaded) return this.loaded;
    const { doc, text } = readConfig(this.file);
    const d = doc ?? {};
    const list = Array.isArray(d.trustedFolders) ? [...(d.trustedFolders as unknown[])] : [];
    const index = new FolderIndex(list.filter((f): f is string => typeof f === 'string'));
    this.loaded = { doc: d, text, list, index, removing: new Set(), existed: doc !== null, hadKey: d.trustedFolders !== undefined };
    return this.loaded;
  }

  /** Lists `root` unless a listed folder covers it already. True when it was added. */
  add(root: string): boolean {
    const c = this.load();
    if (c.index.by(root) !== null) return false;
    c.list.push(root);
    c.index.add(root);
    this.adding.push(root);
    if (!this.record.has(root)) {
      this.record.add(root);
      this.recordAdds.add(root);
      this.recordDrops.delete(root);
      this.recordChanged = true;
    }
    this.dirty = true;
    return true;
  }

  /** Whether fleet-git listed `root` (from its record: config.json is not read). */
  listed(root: string): boolean {
    return this.record.has(root);
  }

  /** Every folder fleet-git listed (its record). */
  recorded(): string[] {
    return [...this.record];
  }

  /** Takes `root` out if fleet-git listed it (config.json is read only then). True when it was taken out. */
  remove(root: string): boolean {
    if (!this.record.has(root)) return false;
    const c = this.load();
    this.record.delete(root);
    this.recordDrops.add(root);
    this.recordAdds.delete(root);
    this.recordChanged = true;
    if (c.removing.has(root) || !c.list.includes(root)) return false;
    c.removing.add(root);
    this.dirty = true;
    return true;
  }

  /**
   * Writes config.json (once) and fleet-git's record, when anything changed:
   * under the trust lock, both read again and this edit's additions and
   * removals made on them as they are now, so that another fleet-git's
   * entries, saved meanwhile, stay.
   */
  save(): void {
    if (!this.dirty && !this.recordChanged) return;
    makeDataDir(this.paths.dataDir);
    const lock = join(this.paths.dataDir, TRUST_LOCK);
    let release: () => void;
    try {
      release = acquireLock(lock, { waitMs: TRUST_LOCK_WAIT_MS });
    } catch (e) {
      if (e instanceof LockBusyError)
        throw new Error(`another fleet-git is editing it (${lock} is held): try again once it is done`, { cause: e });
      throw e;
    }
    try {
      this.saveLocked();
    } finally {
      release();
    }
  }

  private saveLocked(): void {
    const record = new Set(readTrustRecord(this.paths));
    for (const r of this.recordAdds) record.add(r);
    for (const r of this.recordDrops) record.delete(r);
    this.record = record;
    if (this.dirty) {
      const removing = this.loaded?.removing ?? new Set<string>();
      this.loaded = null;
      const c = this.load(); // as it is now
      let added = 0;
      for (const root of this.adding)
        if (c.index.by(root) === null) {
          c.list.push(root);
          c.index.add(root);
          added++;
        }
      const list = removing.size ? c.list.filter((f) => !(typeof f === 'string' && removing.has(f))) : c.list;
      if (added > 0 || list.length !== c.list.length) this.write(c, list);
      this.loaded = null; // read again if this edit goes on
      this.dirty = false;
    }
    this.adding.length = 0;
    if (this.recordChanged) writeTrustRecord(this.paths, [...this.record]);
    this.recordChanged = false;
    this.recordAdds.clear();
    this.recordDrops.clear();
  }

  /** Writes config.json with trustedFolders `list` (read as `c`). */
  private write(c: Loaded, list: unknown[]): void {
    // Creating the key now: recorded (and known) without reading the record back.
    // A config.json fleet-git creates may need its folder made too: recorded, to go with the file.
    const creating = !c.hadKey && list.length > 0;
    const created = creating
      ? this.recordCreatedKey(c.existed ? 'key' : 'file', c.existed ? undefined : mkdirSync(dirname(this.file), { recursive: true }))
      : this.createdKey();
    const before = c.hadKey ? (c.doc.trustedFolders as unknown[]) : null;
    const dropKey = list.length === 0 && created !== null; // fleet-git created the key: with its last entry gone, the key goes too
    if (dropKey) this.forgetCreatedKey();
    let text = editList(c.text.trim() === '' ? '{}' : c.text, before, dropKey ? null : list);
    if (c.text.trim() === '') text = `${text}\n`;
    if (created?.what === 'file' && text.replace(/\s/g, '') === '{}') {
      unlinkSync(this.file); // and the file, when fleet-git created that and nothing else is in it
      if (created.made) removeEmptyUpTo(dirname(this.file), created.made); // and the folders it made for it
    } else {
      mkdirSync(dirname(this.file), { recursive: true });
      writeAtomic(this.file, text);
    }
  }

  /** The topmost folder fleet-git made for the config.json it created, if it made one. */
  madeFolder(): string | null {
    return this.createdKey()?.made ?? null;
  }

  private markFile(): string {
    return join(this.paths.dataDir, CREATED_KEY_MARK);
  }

  /**
   * What fleet-git created of this config.json: the trustedFolders key, or the
   * whole file (and `made`, the topmost folder it made for it); else null.
   */
  private createdKey(): CreatedKey | null {
    const [file, what, made] = (readText(this.markFile()) ?? '').split('\n');
    return file === this.file ? { what: what === 'file' ? 'file' : 'key', made: made || undefined } : null;
  }

  private recordCreatedKey(what: CreatedKey['what'], made: string | undefined): CreatedKey {
    makeDataDir(this.paths.dataDir);
    writeAtomic(this.markFile(), `${this.file}\n${what}\n${made ? `${made}\n` : ''}`);
    return { what, made };
  }

  private forgetCreatedKey(): void {
    try {
      unlinkSync(this.markFile());
    } catch {
      /* none */
    }
  }
}

/**
 * The folders Copilot must trust for a repository's sessions: its root, and
 * each linked worktree outside it (trust covers the folders below a listed one).
 */
export function trustRoots(s: { path: string; worktrees: readonly { path: string }[] }): string[] {
  return [s.path, ...s.worktrees.map((w) => w.path).filter((p) => !isUnder(p, s.path))];
}

/**
 * Lists the folders in the edit's trustedFolders unless covered already, and
 * says what it added, in words; the caller saves the edit once, after all of them.
 */
export function trustFolders(edit: TrustEdit, roots: string[]): string[] {
  return roots.filter((r) => edit.add(r)).map((r) => `Copilot now trusts ${r} (added to trustedFolders in ${edit.file})`);
}

/** The status line on trust, and what it means (`configProblem`: config.json as enable --trust would refuse it). */
export function trustLine(
  v: { configFile: string; trusted: FolderIndex; userLevel: boolean; configProblem: CopilotConfigError | null },
  root: string,
): string {
  const by = v.trusted.by(root);
  if (by)
    return `Copilot trusts this folder (${by === root ? 'listed' : `through ${by}`} in ${v.configFile}): its repository hooks run in interactive and copilot -p sessions`;
  const then = v.userLevel
    ? 'the user-level fleet hooks report them anyway'
    : v.configProblem
      ? fixFirst(v.configProblem)
      : 'fleet-git enable --trust lists it';
  return `Copilot does not trust this folder: interactive sessions ask once, but copilot -p sessions silently skip its repository hooks (${then})`;
}
