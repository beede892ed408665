// fleet-git setup: new clones get fleet-git through git's template mechanism
// (init.templateDir), or the global config's hook entry (git 2.54 and later).
// The template's hooks/post-checkout is templates/post-checkout in clone mode:
// it provisions only the clones that the user config includes (checkout-hook.ts).
//
// Everything needed to undo it lives in the data folder: setup.json records the
// global config file's bytes before (and after) setup, which template folder was
// used and what fleet-git created in it; a user's own post-checkout stays in
// their template folder as post-checkout.fleet-git-prev (the convention enable
// uses), run first by fleet-git's hook and renamed back by undo.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { removeIfEmpty, writeAtomic } from '../../fs/atomic.js';
import { isPresent, readBytes, readText } from '../../fs/read.js';
import { ConfigReader, type ConfigValue } from '../../git/config.js';
import { gitConfigGlobal, gitDefaultTemplateDir, globalConfigFile } from '../../git/global-config.js';
import { expandHome, userPaths, type Env, type UserPaths } from '../../paths.js';
import type { KitFound } from '../repo/kit.js';
import { ensureUserFiles, runContext, type RunContext } from '../repo/context.js';
import { CLONE_HOOK, CLONE_HOOK_ENTRY, cloneEntry, configHookCommand } from '../repo/config-hook.js';
import {
  HOOK_NAME,
  LEGACY_SUFFIX,
  TEMPLATE_HOOK_MARK,
  gitHookFormat,
  hookSpot,
  isExecutable,
  isOurGitHook,
  keepPrevHook,
  renderGitHook,
  takeOutGitHook,
} from '../repo/git-hook.js';
import { notAsWritten } from '../repo/state.js';
import { shQuote } from '../repo/templates.js';
import { loadUserConfig } from './user-config.js';

export const SETUP_RECORD = 'setup.json';
export const OWN_TEMPLATE = 'template';
/** Files older fleet-gits kept in the data folder for setup (the clone rules compiled to sh, the CLI's path): setup and its undo remove them. */
const LEGACY_FILES = ['clone-rules.sh', 'cli'];

/** git's info/exclude text, when git's own template folder cannot be found. */
export const DEFAULT_EXCLUDE = `# git ls-files --others --exclude-from=.git/info/exclude
# Lines that start with '#' are comments.
# For a project mostly in C, the following would be a good set of
# exclude patterns (uncomment them if you want to use them):
# *.[oa]
# *~
`;

interface SetupRecord {
  version: 1;
  /** Set up through the global config's hook entry (config-hook.ts: git 2.54 and later) instead of a template folder (templateDir is then ''). */
  config?: boolean;
  /** The template folder fleet-git's hook is in. */
  templateDir: string;
  /** fleet-git made the folder and pointed init.templateDir at it. */
  own: boolean;
  globalFile: string;
  /** The global config file's bytes (base64) before and right after setup; null: no file. */
  globalBefore: string | null;
  globalAfter: string | null;
  /** Folders fleet-git created in a user's template folder (relative, deepest last). */
  created: string[];
  /** In fleet-git's own folder: each file it copied there (relative path: SHA-256 of its bytes), so that undo removes those only. */
  files?: Record<string, string>;
}

export interface SetupOutcome {
  changes: string[];
  info: string[];
  /** Why setup could not do its work (exit code 1). */
  notes: string[];
}

function recordPath(u: UserPaths): string {
  return join(u.dataDir, SETUP_RECORD);
}

function writeRecord(u: UserPaths, record: SetupRecord): void {
  writeAtomic(recordPath(u), `${JSON.stringify(record, null, 2)}\n`);
}

function readRecord(u: UserPaths): SetupRecord | null {
  const t = readText(recordPath(u));
  if (t === null) return null;
  try {
    const r = JSON.parse(t) as SetupRecord;
    return r && r.version === 1 && typeof r.templateDir === 'string' ? r : null;
  } catch {
    return null;
  }
}

function b64(buf: Buffer | null): string | null {
  return buf === null ? null : buf.toString('base64');
}

function templateDirValue(v: ConfigValue | null, home: string): string | null {
  if (!v || v.value === '') return null;
  const p = expandHome(v.value, home);
  return isAbsolute(p) ? p : resolve(home, p);
}

function globalHooksPath(config: ConfigReader): ConfigValue | null {
  const v = config.get('core', 'hooksPath', null);
  return v && (v.scope === 'global' || v.scope === 'system') ? v : null;
}

/** The data-folder files the template hook relies on: the kit (ensureUserFiles). */
function writeDataFiles(env: Env, home: string, out: SetupOutcome, kit?: KitFound): RunContext {
  const ctx = runContext(env, home);
  for (const c of ensureUserFiles(ctx, kit)) out.changes.push(c);
  removeDataFiles(ctx.user, LEGACY_FILES);
  return ctx;
}

/** Removes these files of the data folder; returns those it removed (the others were not there). */
function removeDataFiles(u: UserPaths, names: string[]): string[] {
  return names
    .map((f) => join(u.dataDir, f))
    .filter((p) => {
      try {
        unlinkSync(p);
        return true;
      } catch {
        return false;
      }
    });
}

/** Copies git's default template into `dir`; returns what it copied, in words, and each file's SHA-256 (see SetupRecord.files). */
function copyGitTemplate(dir: string, env: Env, home: string): { what: string; files: Record<string, string> } {
  const src = gitDefaultTemplateDir(env, home);
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {};
  if (src) {
    cpSync(src, dir, { recursive: true });
    Object.assign(files, fileHashes(src));
  }
  if (!existsSync(join(dir, 'info', 'exclude'))) {
    mkdirSync(join(dir, 'info'), { recursive: true });
    writeAtomic(join(dir, 'info', 'exclude'), DEFAULT_EXCLUDE, { mode: 0o644 });
    files['info/exclude'] = sha256(Buffer.from(DEFAULT_EXCLUDE));
  }
  return { what: src ? `a copy of git's default template ${src}` : "git's usual info/exclude", files };
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Every file under `dir` (relative path: SHA-256); symbolic links and what cannot be read are left out. */
function fileHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    let entries;
    try {
      entries = readdirSync(rel ? join(dir, rel) : dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) {
        const b = readBytes(join(dir, r));
        if (b !== null) out[r] = sha256(b);
      }
    }
  };
  walk('');
  return out;
}

/**
 * What is wrong with fleet-git's hook in a template folder's hooks, in words,
 * or null: the check status and doctor show (setupState), and setup repairs.
 */
function templateHookProblem(dir: string, expected: string): { problem: string; outdated: boolean } | null {
  const hooks = join(dir, 'hooks');
  const inPlace = readText(join(hooks, HOOK_NAME));
  const spot = hookSpot(hooks, inPlace);
  const text = spot === join(hooks, HOOK_NAME) ? inPlace : readText(spot);
  if (!text?.includes(TEMPLATE_HOOK_MARK) || !isExecutable(spot)) {
    if (inPlace !== null && !isOurGitHook(inPlace)) {
      const whose =
        spot === join(hooks, HOOK_NAME)
          ? 'another tool'
          : "pre-commit's (pre-commit init-templatedir overwrites the post-checkout hook there)";
      return { problem: `fleet-git's ${HOOK_NAME} hook in ${hooks} was replaced by ${whose}`, outdated: false };
    }
    return { problem: `fleet-git's hook is missing from ${hooks}`, outdated: false };
  }
  if (text !== expected)
    return {
      problem: `the template hook in ${hooks} ${notAsWritten(gitHookFormat(text), 'edited, or for another data folder')}`,
      outdated: true,
    };
  return null;
}

/**
 * Puts fleet-git's template hook in `dir`/hooks, keeping a user's post-checkout
 * as the one to run first; behind pre-commit's hook, as post-checkout.legacy
 * (hookSpot), which pre-commit's hook runs first.
 */
function installTemplateHook(dir: string, script: string, created: string[], out: SetupOutcome): void {
  const hooks = join(dir, 'hooks');
  for (const [rel, p] of [
    ['.', dir],
    ['hooks', hooks],
  ] as const) {
    if (!existsSync(p)) {
      mkdirSync(p);
      if (!created.includes(rel)) created.push(rel);
    }
  }
  const spot = hookSpot(hooks, readText(join(hooks, HOOK_NAME)));
  const text = readText(spot);
  if (text !== null && !isOurGitHook(text)) {
    const prev = keepPrevHook(spot, 'setup');
    out.changes.push(`kept your template's ${basename(spot)} hook, which new clones run first (it is now ${prev})`);
  }
  const as = spot.endsWith(LEGACY_SUFFIX) ? ` as ${basename(spot)}, which pre-commit's hook there runs first` : '';
  if (writeAtomic(spot, script, { mode: 0o755, current: text, verify: true }))
    out.changes.push(`${text !== null && isOurGitHook(text) ? 'updated' : 'installed'} fleet-git's ${HOOK_NAME} hook in ${hooks}${as}`);
}

/**
 * Setup through the global config (git 2.54 and later): the data folder's
 * clone-hook (the template hook, in clone mode) named in a hook entry of the
 * global config file, which git runs on every clone, whatever core.hooksPath
 * and init.templateDir say. The file's bytes before and after are recorded, as
 * for init.templateDir, so that undo puts it back as it was.
 */
function setupThroughConfig(env: Env, home: string, u: UserPaths, config: ConfigReader, script: string, out: SetupOutcome): void {
  const clone = join(u.dataDir, CLONE_HOOK);
  if (writeAtomic(clone, script, { mode: 0o755, verify: true })) out.changes.push(`wrote ${clone}`);
  const record = readRecord(u);
  if (cloneEntry(config, u.dataDir).current && record?.config) return;
  const globalFile = globalConfigFile(env, home);
  const rec: SetupRecord = record?.config
    ? record
    : {
        version: 1,
        config: true,
        templateDir: '',
        own: false,
        globalFile,
        globalBefore: b64(readBytes(globalFile)),
        globalAfter: null,
        created: [],
      };
  writeRecord(u, rec); // first: if git config fails, undo still knows the bytes to restore
  gitConfigGlobal(env, home, '--replace-all', `hook.${CLONE_HOOK_ENTRY}.event`, HOOK_NAME);
  gitConfigGlobal(env, home, '--replace-all', `hook.${CLONE_HOOK_ENTRY}.command`, configHookCommand(clone));
  rec.globalAfter = b64(readBytes(globalFile));
  writeRecord(u, rec);
  out.changes.push(`set hook.${CLONE_HOOK_ENTRY}.event and .command in ${globalFile}: git runs ${clone} on every clone`);
}

/** Sets up (or repairs) fleet-git for new clones (`kit`: see ensureUserFiles). */
export function setup(env: Env, home: string, kit?: KitFound): SetupOutcome {
  const loaded = loadUserConfig(env, home); // an invalid config file stops here, with its one line
  const out = setupWith(env, home, kit);
  // What a setup that changed something means without a config file.
  if (!loaded.exists && out.changes.length && !out.notes.length)
    out.changes.push(`with no config file (${loaded.file}), every new clone gets fleet-git`);
  return out;
}

function setupWith(env: Env, home: string, kit?: KitFound): SetupOutcome {
  const out: SetupOutcome = { changes: [], info: [], notes: [] };
  const u = userPaths(env, home);
  const config = new ConfigReader(env);
  const hp = globalHooksPath(config);
  const ctx = writeDataFiles(env, home, out, kit);
  const script = renderGitHook(u.dataDir, true);
  const record = readRecord(u);
  if (ctx.configHooks && (!record || record.config)) {
    setupThroughConfig(env, home, u, config, script, out);
    return out;
  }
  if (record?.config) {
    out.notes.push(
      `setup was done through the global git config, which this git (older than 2.54) does not read: run fleet-git setup --undo first, then fleet-git setup`,
    );
    return out;
  }
  if (hp) {
    if (writeAtomic(join(u.dataDir, CLONE_HOOK), script, { mode: 0o755, verify: true }))
      out.changes.push(`wrote ${join(u.dataDir, CLONE_HOOK)}`);
    out.notes.push(
      `core.hooksPath=${hp.value} is set in your ${hp.scope} git config (${hp.file}): git then runs hooks only from there, never from a template, so setup would change nothing for new clones and did not touch your git configuration.`,
      `Either add this line to ${join(expandHome(hp.value, home), HOOK_NAME)} (new clones and worktrees that the config includes then get fleet-git): ${shQuote(join(u.dataDir, CLONE_HOOK))} "$@" || true`,
      'or run `fleet-git enable` in each new clone (fleet-git scan finds clones that are not enabled).',
    );
    return out;
  }
  if (env.GIT_TEMPLATE_DIR)
    out.info.push(
      `GIT_TEMPLATE_DIR=${env.GIT_TEMPLATE_DIR} is set in this environment and overrides init.templateDir: clones made with it set do not get fleet-git`,
    );
  const current = templateDirValue(config.get('init', 'templateDir', null), home);
  const ownDir = join(u.dataDir, OWN_TEMPLATE);
  const globalFile = globalConfigFile(env, home);

  if (record && current !== null && resolve(current) === resolve(record.templateDir)) {
    // Already set up: repair what is missing or stale.
    const found = templateHookProblem(record.templateDir, script);
    if (found) out.info.push(`found: ${found.problem}`);
    if (record.own && !existsSync(join(ownDir, 'info', 'exclude')))
      out.changes.push(`restored ${copyGitTemplate(ownDir, env, home).what} in ${ownDir}`);
    const created = [...record.created];
    installTemplateHook(record.templateDir, script, created, out);
    if (created.length !== record.created.length) writeRecord(u, { ...record, created });
    return out;
  }
  if (record) {
    out.notes.push(
      `setup was done with the template folder ${record.templateDir}, but init.templateDir is now ${current ?? 'unset'}: run fleet-git setup --undo first, then fleet-git setup`,
    );
    return out;
  }
  if (current === null) {
    const before = readBytes(globalFile);
    // A folder left there (by an undo that kept other tools' files in it) is copied over, never removed.
    const { what, files } = copyGitTemplate(ownDir, env, home);
    const created: string[] = [];
    installTemplateHook(ownDir, script, created, out);
    out.changes.push(`made the template folder ${ownDir} (${what} and fleet-git's ${HOOK_NAME} hook)`);
    // The record first: if git config fails, undo still knows the bytes to restore.
    const rec: SetupRecord = {
      version: 1,
      templateDir: ownDir,
      own: true,
      globalFile,
      globalBefore: b64(before),
      globalAfter: null,
      created: [],
      files,
    };
    writeRecord(u, rec);
    gitConfigGlobal(env, home, 'init.templateDir', ownDir);
    rec.globalAfter = b64(readBytes(globalFile));
    writeRecord(u, rec);
    out.changes.push(`set init.templateDir=${ownDir} in ${globalFile}`);
    return out;
  }
  // The user's own template folder: add the hook to it, keep the setting.
  const created: string[] = [];
  const rec: SetupRecord = { version: 1, templateDir: current, own: false, globalFile, globalBefore: null, globalAfter: null, created };
  writeRecord(u, rec);
  try {
    installTemplateHook(current, script, created, out);
  } finally {
    writeRecord(u, rec);
  }
  out.info.push(`kept your template folder ${current} (init.templateDir); fleet-git's hook was added to it`);
  return out;
}

/**
 * Whether setup is in effect as its hook sees it, from the data folder alone (no git config read: the
 * git hook asks it): setup's record, or the clone-hook it leaves for a core.hooksPath; undoSetup removes both.
 */
export function setupFilesThere(dataDir: string): boolean {
  return isPresent(join(dataDir, SETUP_RECORD)) || isPresent(join(dataDir, CLONE_HOOK));
}

/** Puts the global git config and the template folder back as they were before setup. */
export function undoSetup(env: Env, home: string): SetupOutcome {
  const out: SetupOutcome = { changes: [], info: [], notes: [] };
  const u = userPaths(env, home);
  const record = readRecord(u);
  if (!record) {
    // Setup met a global core.hooksPath: only its data files are there.
    for (const p of removeDataFiles(u, [CLONE_HOOK, ...LEGACY_FILES])) out.changes.push(`removed ${p}`);
    if (!out.changes.length) out.info.push('setup is not in effect: nothing to undo');
    return out;
  }
  if (record.config) undoConfigSetup(env, home, u, record, out);
  else undoTemplateSetup(env, home, u, record, out);
  removeDataFiles(u, [...LEGACY_FILES, CLONE_HOOK, SETUP_RECORD]);
  out.info.push('repositories already enabled stay enabled (fleet-git disable takes it out of one)');
  // git copied the template's hook into every repository it made meanwhile; fleet-git knows only those it enabled.
  if (!record.config)
    out.info.push(
      `repositories git made while setup was in effect that fleet-git did not enable (a git init, a clone your config left out) keep its ${HOOK_NAME} hook from the template: it runs the hook that was there before and does nothing else without fleet-git (fleet-git remove FOLDER takes it out of the repositories there)`,
    );
  return out;
}

/**
 * Puts the global config file back as it was before setup when nothing else
 * changed it since (so byte for byte); returns false, changing nothing, when
 * something did.
 */
function restoreGlobal(record: SetupRecord, out: SetupOutcome): boolean {
  const now = readBytes(record.globalFile);
  if (!(b64(now) === record.globalAfter || (record.globalAfter === null && b64(now) === record.globalBefore))) return false;
  if (record.globalBefore === null) {
    if (now !== null) unlinkSync(record.globalFile);
  } else writeAtomic(record.globalFile, Buffer.from(record.globalBefore, 'base64'));
  if (b64(now) !== record.globalBefore) out.changes.push(`put ${record.globalFile} back as it was before setup`);
  return true;
}

/** undoSetup where setup went through a template folder. */
function undoTemplateSetup(env: Env, home: string, u: UserPaths, record: SetupRecord, out: SetupOutcome): void {
  const ownDir = join(u.dataDir, OWN_TEMPLATE);
  // fleet-git's own folder: its files go; what other tools put there (pre-commit
  // init-templatedir writes hooks into the folder init.templateDir names) stays,
  // and then so do the folder and init.templateDir, which those need.
  const hadOwn = record.own && existsSync(ownDir);
  const kept = hadOwn ? clearOwnTemplate(ownDir, record, env, home) : [];
  if (kept.length) {
    out.info.push(
      `kept ${ownDir} and init.templateDir: other tools put files there (${kept.join(', ')}); fleet-git took out only its own (move those elsewhere and unset init.templateDir if you do not want them)`,
    );
  } else if (record.own) {
    if (!restoreGlobal(record, out)) {
      // Changed since setup: take out only fleet-git's setting, keep the rest.
      const v = new ConfigReader({ ...env, GIT_CONFIG_GLOBAL: record.globalFile, GIT_CONFIG_NOSYSTEM: '1' }).get(
        'init',
        'templateDir',
        null,
      );
      if (v && resolve(templateDirValue(v, home) ?? '') === resolve(ownDir)) {
        gitConfigGlobal({ ...env, GIT_CONFIG_GLOBAL: record.globalFile }, home, '--unset', 'init.templateDir');
        out.changes.push(
          `removed init.templateDir from ${record.globalFile} (the file changed since setup, so the rest of it stays as it is now)`,
        );
      }
    }
    if (hadOwn) out.changes.push(`removed the template folder ${ownDir}`);
  } else {
    for (const did of takeOutGitHook(join(record.templateDir, 'hooks'))) out.changes.push(`${did} in ${join(record.templateDir, 'hooks')}`);
    for (const rel of [...record.created].reverse()) {
      if (removeIfEmpty(rel === '.' ? record.templateDir : join(record.templateDir, rel)) === 'removed')
        out.changes.push(`removed the empty folder ${rel === '.' ? record.templateDir : join(record.templateDir, rel)} it had created`);
    }
  }
}

/**
 * Takes setup's hook entry out of the global config: the file put back as it
 * was before setup when nothing else changed it since (so byte for byte), else
 * only the entry's section removed, by git.
 */
function undoConfigSetup(env: Env, home: string, u: UserPaths, record: SetupRecord, out: SetupOutcome): void {
  if (restoreGlobal(record, out)) return;
  const file = new ConfigReader({ ...env, GIT_CONFIG_GLOBAL: record.globalFile, GIT_CONFIG_NOSYSTEM: '1' });
  if (!cloneEntry(file, u.dataDir).present) return;
  gitConfigGlobal({ ...env, GIT_CONFIG_GLOBAL: record.globalFile }, home, '--remove-section', `hook.${CLONE_HOOK_ENTRY}`);
  out.changes.push(
    `removed hook.${CLONE_HOOK_ENTRY} from ${record.globalFile} (the file changed since setup, so the rest of it stays as it is now)`,
  );
}

/**
 * Empties fleet-git's own template folder of what fleet-git put there: its
 * hook wherever it stands, and each file it copied, when its bytes are still
 * those (recorded at setup, or those of git's default template); then the
 * folders left empty. Returns the files it kept (someone else's).
 */
function clearOwnTemplate(dir: string, record: SetupRecord, env: Env, home: string): string[] {
  takeOutGitHook(join(dir, 'hooks'));
  const src = gitDefaultTemplateDir(env, home);
  const git = src ? fileHashes(src) : {};
  const kept: string[] = [];
  for (const [rel, hash] of Object.entries(fileHashes(dir))) {
    const ours =
      record.files?.[rel] === hash || git[rel] === hash || (rel === 'info/exclude' && hash === sha256(Buffer.from(DEFAULT_EXCLUDE)));
    if (ours) unlinkSync(join(dir, rel));
    else kept.push(rel);
  }
  const prune = (p: string): void => {
    let entries;
    try {
      entries = readdirSync(p, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory()) prune(join(p, e.name));
    removeIfEmpty(p);
  };
  prune(dir);
  if (existsSync(dir) && kept.length === 0) kept.push('entries that are not files');
  return kept;
}

export type SetupStateKind = 'on' | 'off' | 'broken' | 'hooks-path';

export interface SetupState {
  state: SetupStateKind;
  /** The template folder holding fleet-git's hook, when setup was done. */
  templateDir: string | null;
  /** One line for status and doctor. */
  message: string;
}

/** Whether `fleet-git setup` is in effect: new clones get fleet-git. */
export function setupState(env: Env, home: string): SetupState {
  const u = userPaths(env, home);
  const record = readRecord(u);
  const config = new ConfigReader(env);
  const hp = globalHooksPath(config);
  if (!record && hp && existsSync(join(u.dataDir, CLONE_HOOK))) {
    return {
      state: 'hooks-path',
      templateDir: null,
      message: `through ${join(u.dataDir, CLONE_HOOK)} only if your core.hooksPath hook (${hp.value}) calls it, as fleet-git setup suggested: git runs no template hooks with a global core.hooksPath`,
    };
  }
  if (!record) {
    return { state: 'off', templateDir: null, message: 'not in effect: new clones do not get fleet-git (fleet-git setup changes that)' };
  }
  if (record.config) return configSetupState(env, home, u, config);
  const dir = record.templateDir;
  if (hp)
    return {
      state: 'hooks-path',
      templateDir: dir,
      message: `not in effect: core.hooksPath=${hp.value} (${hp.scope} config) keeps git from running template hooks (fleet-git setup explains the alternatives)`,
    };
  const current = templateDirValue(config.get('init', 'templateDir', null), home);
  if (current === null || resolve(current) !== resolve(dir))
    return {
      state: 'broken',
      templateDir: dir,
      message: `broken: init.templateDir is ${current ?? 'unset'}, not ${dir} (fleet-git setup --undo, then fleet-git setup)`,
    };
  const found = templateHookProblem(dir, renderGitHook(u.dataDir, true));
  if (found)
    return {
      state: 'broken',
      templateDir: dir,
      message: `${found.outdated ? 'outdated' : 'broken'}: ${found.problem} (run fleet-git setup)`,
    };
  return inEffect(dir, `template ${dir}`);
}

/** setupState where setup went through the global config's hook entry. */
function configSetupState(env: Env, home: string, u: UserPaths, config: ConfigReader): SetupState {
  const entry = `hook.${CLONE_HOOK_ENTRY} in your global git config`;
  if (!runContext(env, home).configHooks)
    return {
      state: 'broken',
      templateDir: null,
      message: `not in effect: setup went through ${entry}, which this git (older than 2.54) does not run (fleet-git setup --undo, then fleet-git setup)`,
    };
  const found = cloneEntry(config, u.dataDir);
  if (!found.current || !isExecutable(join(u.dataDir, CLONE_HOOK)))
    return {
      state: 'broken',
      templateDir: null,
      message: `${found.present ? 'outdated' : 'broken'}: ${found.present ? `${entry} is not as this fleet-git writes it` : `${entry} is missing`}, or ${join(u.dataDir, CLONE_HOOK)} is (run fleet-git setup)`,
    };
  return inEffect(null, `through ${entry}`);
}

/** setupState when setup is in effect (`how`: through what). */
function inEffect(templateDir: string | null, how: string): SetupState {
  return { state: 'on', templateDir, message: `in effect: new clones that the config includes get fleet-git (${how})` };
}
