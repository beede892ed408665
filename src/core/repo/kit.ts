// The data folder's kit: the two scripts the hooks in repositories hand over
// to (hook.sh for Copilot's events, post-checkout.sh for git's checkouts) and
// the node programs they run, one build's set, replaced together.
//
// A repository holds only shims (templates/hook-command.sh in its hook file,
// templates/post-checkout in its git dir), whose text depends on the data
// folder and the hook format alone. The rest lives here:
//
//   <data>/kit/<id>/hook-client.cjs   the hook client of build <id> (a hash of
//                                     the kit's programs and templates)
//   <data>/kit/<id>/git-hook.cjs      the post-checkout hook's node side
//                                     (src/git-hook.ts: provisions a worktree as
//                                     enable does), self-contained
//   <data>/hook.sh                    templates/hook.sh, naming that client
//   <data>/post-checkout.sh           templates/post-checkout.sh, naming git-hook.cjs
//   <data>/kit/stamp                  "<id>\n<previous id>\n<this build's files, as stat tells them>\n"
//   <data>/hook-client.cjs            the same client, which hook files written
//                                     before the shim (0.1.0) run directly
//
// The programs go into their own folder first, then each script is renamed
// into place: a hook reads one whole script, old or new (bash's `.` reads the
// file at once; dash reads on from the file it opened, which a rename leaves
// as it was), and runs the programs that script names, which are there: the
// previous build's folder is kept, older ones are removed.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../../fs/atomic.js';
import { isPresent, readBytes, readText } from '../../fs/read.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { CHECKOUT_SCRIPT, CLIENT_FILE, GIT_HOOK_FILE, HOOK_SCRIPT, KIT_DIR, type UserPaths } from '../../paths.js';
import { HOOK_COMMAND_TEMPLATE, HOOK_FILE_TEMPLATE } from './hook-file.js';
import { readTemplate, render, shInQuotes, templatePath } from './templates.js';

/** The built hook client that enable copies to the per-user data folder. */
export const BUILT_CLIENT = join(PACKAGE_ROOT, 'dist', CLIENT_FILE);
/** The built node side of the post-checkout hook, which the kit carries too. */
export const BUILT_GIT_HOOK = join(PACKAGE_ROOT, 'dist', GIT_HOOK_FILE);
const STAMP = 'stamp';
/** The templates whose text is part of a kit (with its programs): the scripts, and the hook file (git-hook.cjs renders it). */
const KIT_TEMPLATES = [HOOK_SCRIPT, CHECKOUT_SCRIPT, HOOK_FILE_TEMPLATE, HOOK_COMMAND_TEMPLATE] as const;

let built: { id: string; client: Buffer; gitHook: Buffer } | undefined;

/** This build's programs and the id of its kit: a hash of them and the scripts' templates. */
function thisBuild(): { id: string; client: Buffer; gitHook: Buffer } {
  if (built) return built;
  const [client, gitHook] = [BUILT_CLIENT, BUILT_GIT_HOOK].map((p) => {
    const b = readBytes(p);
    if (b === null) throw new Error(`${p} is missing: reinstall fleet-git (npm run build in a checkout)`);
    return b;
  });
  const h = createHash('sha256').update(client).update('\0').update(gitHook);
  for (const t of KIT_TEMPLATES) h.update('\0').update(readTemplate(t));
  return (built = { id: h.digest('hex').slice(0, 16), client, gitHook });
}

/** This build's kit id. */
export function kitId(): string {
  return thisBuild().id;
}

/** The hook client of kit `id` in the data folder. */
export function kitClient(dataDir: string, id: string): string {
  return join(dataDir, KIT_DIR, id, CLIENT_FILE);
}

/** The hook client the data folder's hook.sh runs: its kit's (a data folder of 0.1.0, without a kit: its own). */
export function clientInUse(dataDir: string): string {
  const id = readStamp(dataDir).id;
  return id ? kitClient(dataDir, id) : join(dataDir, CLIENT_FILE);
}

/** The data folder's hook.sh, for the kit whose client is `client`. */
export function renderHookScript(client: string, id: string): string {
  return render(readTemplate(HOOK_SCRIPT), { client: shInQuotes(client), kit: id });
}

/** The node side of the post-checkout hook in kit `id` of the data folder. */
export function kitGitHook(dataDir: string, id: string): string {
  return join(dataDir, KIT_DIR, id, GIT_HOOK_FILE);
}

/** The data folder's post-checkout.sh, for kit `id`. */
export function renderCheckoutScript(dataDir: string, id: string): string {
  return render(readTemplate(CHECKOUT_SCRIPT), { hook: shInQuotes(kitGitHook(dataDir, id)), kit: id });
}

/** The kit the data folder's stamp names, the one before it (null: none), and the build files it was made from (fingerprint). */
export function readStamp(dataDir: string): { id: string | null; previous: string | null; seen: string } {
  const [id, previous, seen] = (readText(join(dataDir, KIT_DIR, STAMP)) ?? '').split('\n');
  const ok = (s: string | undefined) => (s && /^[0-9a-f]{16}$/.test(s) ? s : null);
  return { id: ok(id), previous: ok(previous), seen: seen ?? '' };
}

/**
 * This build's client and templates as stat tells them (inode, size, times of
 * change and of modification): equal to what a stamp recorded, they are the
 * files its kit was made from, so the kit is current without reading or
 * hashing them. An install (npm's included, which gives every file the same
 * modification time) makes new files, whose change time is new.
 */
function fingerprint(): string {
  return [BUILT_CLIENT, BUILT_GIT_HOOK, ...KIT_TEMPLATES.map(templatePath)]
    .map((p) => {
      const st = statSync(p, { bigint: true });
      return `${st.ino}.${st.size}.${st.mtimeNs}.${st.ctimeNs}`;
    })
    .join(' ');
}

function writeStamp(kits: string, id: string, previous: string | null): void {
  writeAtomic(join(kits, STAMP), `${id}\n${previous ?? ''}\n${fingerprint()}\n`, { mode: 0o644, verify: true });
}

/**
 * Puts this build's kit in the data folder (which exists): its client, then
 * the scripts naming it, then the stamp; removes the kits older than the
 * previous one. Returns what changed, in words.
 */
export function installKit(u: UserPaths): string[] {
  const { id, client, gitHook } = thisBuild();
  const changed: string[] = [];
  const kits = join(u.dataDir, KIT_DIR);
  const path = kitClient(u.dataDir, id);
  mkdirSync(join(kits, id), { recursive: true, mode: 0o755 });
  // Each written whole, read back, then renamed into place: a full disk never leaves a truncated script or client.
  let wrote = writeAtomic(path, client, { mode: 0o644, verify: true });
  wrote = writeAtomic(kitGitHook(u.dataDir, id), gitHook, { mode: 0o644, verify: true }) || wrote;
  wrote = writeAtomic(u.hookClient, client, { mode: 0o644, verify: true }) || wrote;
  // post-checkout.sh, then hook.sh: each names the programs now in place.
  wrote = writeAtomic(join(u.dataDir, CHECKOUT_SCRIPT), renderCheckoutScript(u.dataDir, id), { mode: 0o644, verify: true }) || wrote;
  wrote = writeAtomic(join(u.dataDir, HOOK_SCRIPT), renderHookScript(path, id), { mode: 0o644, verify: true }) || wrote;
  if (wrote)
    changed.push(`installed the hook client, the post-checkout program and the scripts the hooks hand over to (kit ${id}) in ${u.dataDir}`);
  const before = readStamp(u.dataDir);
  const previous = before.id === id ? before.previous : before.id;
  writeStamp(kits, id, previous);
  // An event that read the previous hook.sh a moment ago still runs that kit's client: it stays.
  for (const name of readdirSync(kits))
    if (name !== STAMP && name !== id && name !== previous && !name.startsWith('.'))
      rmSync(join(kits, name), { recursive: true, force: true });
  return changed;
}

/** What a fleet-git command found of the data folder's kit (refreshKit). */
export type KitFound =
  | { state: 'none' } // no kit and no hook client: fleet-git was never enabled with this data folder
  | { state: 'current'; id: string }
  | { state: 'refreshed'; id: string; from: string | null; changed: string[] }
  | { state: 'failed'; id: string | null; from: string | null; error: string };

/**
 * Refreshes the data folder's kit when it is another build's (an upgrade of
 * fleet-git): every command that changes things calls it once (not those that
 * only read, nor those on the hooks' path), so an
 * `npm install -g` needs nothing more. When current: the stamp read, and this
 * build's files stat'ed. Never throws: until a refresh works, the old
 * kit keeps delivering events.
 */
export function refreshKit(u: UserPaths): KitFound {
  const stamp = readStamp(u.dataDir);
  if (stamp.id === null && !isPresent(u.hookClient)) return { state: 'none' };
  let id: string | null = null;
  try {
    if (stamp.id !== null && stamp.seen === fingerprint()) return { state: 'current', id: stamp.id };
    id = kitId();
    if (stamp.id === id) {
      // The same files, made again (a build, a copy): this build's kit; the stamp records them, when it can be written.
      try {
        writeStamp(join(u.dataDir, KIT_DIR), id, stamp.previous);
      } catch {
        /* a read-only data folder: the kit is current all the same, found so by its hash next time too */
      }
      return { state: 'current', id };
    }
    return { state: 'refreshed', id, from: stamp.id, changed: installKit(u) };
  } catch (e) {
    return { state: 'failed', id, from: stamp.id, error: (e as Error).message };
  }
}

/** What differs between the data folder's kit and this build's, in words (empty: none). */
export function kitProblems(u: UserPaths): string[] {
  const { id, client, gitHook } = thisBuild();
  const path = kitClient(u.dataDir, id);
  const problems: string[] = [];
  const stamp = readStamp(u.dataDir);
  if (stamp.id !== id) problems.push(`the kit ${join(u.dataDir, KIT_DIR)} is ${stamp.id ? `another build's (${stamp.id})` : 'missing'}`);
  if (!readBytes(path)?.equals(client)) problems.push(`${path} is not this build's hook client`);
  if (!readBytes(kitGitHook(u.dataDir, id))?.equals(gitHook))
    problems.push(`${kitGitHook(u.dataDir, id)} is not this build's post-checkout program`);
  const scripts: [string, string][] = [
    [CHECKOUT_SCRIPT, renderCheckoutScript(u.dataDir, id)],
    [HOOK_SCRIPT, renderHookScript(path, id)],
  ];
  for (const [name, text] of scripts) {
    const now = readText(join(u.dataDir, name));
    if (now !== text) problems.push(`${join(u.dataDir, name)} is ${now === null ? 'missing' : 'not the one this build writes'}`);
  }
  return problems;
}
