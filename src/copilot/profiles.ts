// fleet's model profiles ($HOME/.config/claude-code-fleet/models.json, see
// fleet-observer-protocol.md): reading the Copilot ones, and the arguments and
// environment fleet's Copilot adapter launches `copilot` with. An API key is a
// secret: nothing here ever puts one in a message.
import { readFileSync } from 'node:fs';
import { unreadableReason, UsageError } from '../errors.js';

/** One entry of models.json as the observer's adapters take it: only the name is sure. */
export interface ProfileEntry {
  name: string;
  tool?: string;
  model?: string | null;
  apiKey?: string | null;
  apiBaseUrl?: string | null;
  proxy?: string | null;
  env?: Record<string, unknown> | null;
  args?: readonly string[] | null;
}

/** An entry as parseProfiles gives it: every field there, checked. */
export interface ModelProfile extends ProfileEntry {
  /** 'claude' when the file gives none. */
  tool: string;
  model: string | null;
  apiKey: string | null;
  apiBaseUrl: string | null;
  proxy: string | null;
  env: Record<string, string>;
  args: string[];
}

/** models.json cannot be used: the message is one line, with no secret in it. */
export class ProfilesError extends UsageError {}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Parses the text of models.json; throws ProfilesError naming the file and what is wrong. */
function parseProfiles(text: string, file: string): ModelProfile[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // JSON.parse's message may quote the text around the error, which may hold a key.
    const at = /position (\d+)/.exec(String((e as Error).message))?.[1];
    throw new ProfilesError(`${file} is not valid JSON${at ? ` (at character ${at})` : ''}`);
  }
  const models = (doc as { models?: unknown } | null)?.models;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || !Array.isArray(models)) {
    throw new ProfilesError(`${file} has no "models" list`);
  }
  const out: ModelProfile[] = [];
  models.forEach((m, i) => {
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw new ProfilesError(`${file}: models[${i}] is not an object`);
    const e = m as Record<string, unknown>;
    const name = str(e.name);
    if (!name) throw new ProfilesError(`${file}: models[${i}] has no name`);
    const env: Record<string, string> = {};
    if (e.env !== undefined && e.env !== null) {
      if (typeof e.env !== 'object' || Array.isArray(e.env))
        throw new ProfilesError(`${file}: the env of profile '${name}' is not an object`);
      for (const [k, v] of Object.entries(e.env as Record<string, unknown>)) {
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') env[k] = String(v);
      }
    }
    let args: string[] = [];
    if (e.args !== undefined && e.args !== null) {
      if (!Array.isArray(e.args) || !e.args.every((a) => typeof a === 'string'))
        throw new ProfilesError(`${file}: the args of profile '${name}' are not a list of strings`);
      args = e.args as string[];
    }
    out.push({
      name,
      tool: str(e.tool) ?? 'claude',
      model: str(e.model),
      apiKey: str(e.apiKey),
      apiBaseUrl: str(e.apiBaseUrl),
      proxy: str(e.proxy),
      env,
      args,
    });
  });
  return out;
}

/** Every profile in the file; none when the file does not exist. */
export function readProfiles(file: string): ModelProfile[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new ProfilesError(`${file} ${unreadableReason(file, e)}`);
  }
  return parseProfiles(text, file);
}

export function copilotProfiles(all: ModelProfile[]): ModelProfile[] {
  return all.filter((p) => p.tool === 'copilot');
}
