// Copilot's folder trust: `trustedFolders` in $COPILOT_HOME/config.json. In
// `copilot -p` mode repository hooks of an untrusted folder are skipped with
// nothing said, so `fleet-git enable --trust` lists the repository root there.
// The file is Copilot's: every other key and value stays as it was, the write
// is atomic, and fleet-git records the entries it added (trusted-folders in its
// data folder) so that disable takes out those and no others.
import { mkdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import JSON5 from 'json5';
import { readTextIfExists, writeAtomic } from '../fs/atomic.js';
import type { UserPaths } from '../paths.js';

export const TRUST_RECORD = 'trusted-folders';

export function copilotConfigFile(paths: UserPaths): string {
  return join(paths.copilotHome, 'config.json');
}

/** config.json cannot be read as JSON: fleet-git will not rewrite it. */
export class CopilotConfigError extends Error {}

interface ConfigDoc {
  doc: Record<string, unknown> | null;
  /** The comment lines Copilot writes above the JSON ("// This file is managed automatically."), kept as they are. */
  header: string;
}

function readConfig(file: string): ConfigDoc {
  const text = readTextIfExists(file);
  if (text === null || text.trim() === '') return { doc: null, header: '' };
  const header = /^(?:[ \t]*(?:\/\/[^\n]*)?\r?\n)*/.exec(text)?.[0] ?? '';
  let doc: unknown;
  try {
    doc = JSON.parse(text.slice(header.length));
  } catch {
    try {
      doc = JSON5.parse(text); // comments elsewhere: their keys and values are kept, those comments are not
    } catch {
      throw new CopilotConfigError(`${file} is not valid JSON: fleet-git leaves it alone (fix it, then run this again)`);
    }
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new CopilotConfigError(`${file} does not hold a JSON object: fleet-git leaves it alone`);
  return { doc: doc as Record<string, unknown>, header };
}

function writeConfig(file: string, doc: Record<string, unknown>, header: string): void {
  writeAtomic(file, `${header}${JSON.stringify(doc, null, 2)}\n`);
}

/** The folders Copilot trusts (empty when the file or the key is missing or unreadable). */
export function trustedFolders(paths: UserPaths): string[] {
  let doc: Record<string, unknown> | null;
  try {
    doc = readConfig(copilotConfigFile(paths)).doc;
  } catch {
    return [];
  }
  const list = doc?.trustedFolders;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
}

function covers(folder: string, path: string): boolean {
  const f = folder.length > 1 && folder.endsWith(sep) ? folder.slice(0, -1) : folder;
  return path === f || path.startsWith(f === sep ? f : f + sep);
}

/** The listed folder that covers `path` (itself or a parent), or null. */
export function trustedBy(paths: UserPaths, path: string): string | null {
  return trustedFolders(paths).find((f) => covers(f, path)) ?? null;
}

function recordFile(paths: UserPaths): string {
  return join(paths.dataDir, TRUST_RECORD);
}

export function readTrustRecord(paths: UserPaths): string[] {
  return (readTextIfExists(recordFile(paths)) ?? '').split('\n').filter(Boolean);
}

function writeTrustRecord(paths: UserPaths, entries: string[]): void {
  mkdirSync(paths.dataDir, { recursive: true });
  writeAtomic(recordFile(paths), entries.length ? `${entries.join('\n')}\n` : '');
}

/**
 * Lists `root` in trustedFolders unless it is covered already. Returns what
 * changed, in words, or null. The file keeps its other keys, its key order
 * and (for a new key) gets trustedFolders at the end.
 */
export function trustFolder(paths: UserPaths, root: string): string | null {
  const file = copilotConfigFile(paths);
  const { doc: found, header } = readConfig(file);
  const doc = found ?? {};
  const list = Array.isArray(doc.trustedFolders) ? [...doc.trustedFolders] : [];
  if (list.some((f) => typeof f === 'string' && covers(f, root))) return null;
  if (doc.trustedFolders !== undefined && !Array.isArray(doc.trustedFolders)) {
    throw new CopilotConfigError(`${file}: trustedFolders is not a list: fleet-git leaves it alone`);
  }
  list.push(root);
  doc.trustedFolders = list;
  mkdirSync(dirname(file), { recursive: true });
  writeConfig(file, doc, header);
  const record = readTrustRecord(paths);
  if (!record.includes(root)) writeTrustRecord(paths, [...record, root]);
  return `Copilot now trusts ${root} (added to trustedFolders in ${file})`;
}

/** Takes `root` out of trustedFolders if fleet-git put it there. Returns what changed, or null. */
export function untrustFolder(paths: UserPaths, root: string): string | null {
  const record = readTrustRecord(paths);
  if (!record.includes(root)) return null;
  const file = copilotConfigFile(paths);
  const { doc, header } = readConfig(file);
  writeTrustRecord(paths, record.filter((r) => r !== root));
  if (!doc || !Array.isArray(doc.trustedFolders) || !doc.trustedFolders.includes(root)) return null;
  doc.trustedFolders = doc.trustedFolders.filter((f) => f !== root);
  writeConfig(file, doc, header);
  return `removed ${root} from trustedFolders in ${file} (fleet-git had added it)`;
}

/** The status line on trust, and what it means. */
export function trustLine(paths: UserPaths, root: string, userLevel: boolean): string {
  const by = trustedBy(paths, root);
  if (by) return `Copilot trusts this folder (${by === root ? 'listed' : `through ${by}`} in ${copilotConfigFile(paths)}): its repository hooks run in interactive and copilot -p sessions`;
  const then = userLevel ? 'the user-level fleet hooks report them anyway' : 'fleet-git enable --trust lists it';
  return `Copilot does not trust this folder: interactive sessions ask once, but copilot -p sessions silently skip its repository hooks (${then})`;
}
