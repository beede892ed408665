// Turns one Copilot CLI hook payload into the fleet observer's normalized event.
// Pure: everything taken from the outside world (environment, process ids, the
// transcript's model or last message, the clock) arrives in `ctx`.
//
// Accepts Copilot's own camelCase payloads (1.0.102: `toolArgs` an object;
// older CLIs: a JSON string) and the snake_case shape (`hook_event_name`,
// `session_id`, ISO timestamps) that VS Code's agent sends when it runs the
// same hook file, and the Copilot CLI sends to PascalCase keys; VS Code's
// tool names (`run_in_terminal`, `read_file`, ...) with their camelCase inputs
// are mapped as the CLI's are.
import { basename } from 'node:path';
import { isPlainId, type FleetEvent } from '../fleet/event.js';

/** The Copilot hook events fleet-git forwards; every other event sends nothing. */
export type CopilotEventName =
  'sessionStart' | 'postToolUse' | 'postToolUseFailure' | 'agentStop' | 'sessionEnd' | 'notification' | 'errorOccurred';

/** Set (to the probe's token) in the environment of a `doctor --live` session: events then say which hook file sent them. */
export const PROBE_VAR = 'FLEET_GIT_PROBE';

export interface NormalizeContext {
  env?: Readonly<Record<string, string | undefined>>;
  /** The hook process. */
  pid?: number | null;
  /** The Copilot process (not a shell that ran the hook). */
  ppid?: number | null;
  /** The session's model when the environment does not name one (the transcript's session.start). */
  transcriptModel?: string | null;
  now?: number;
}

const LAST_MESSAGE_MAX = 500;

/** A Stop's last_assistant_message as the observer gets it: at most LAST_MESSAGE_MAX characters. */
export function lastMessage(text: string | null | undefined): string | null {
  return clipString(text ?? null, LAST_MESSAGE_MAX);
}

/**
 * The most bytes an event from normalizePayload takes as JSON: the 64 KiB line
 * the send path keeps to (src/fleet/socket.ts, LINE_MAX, its newline included)
 * less room for the last message the hook client may add to a Stop afterwards
 * (lastMessage: 500 characters, at most 3,000 bytes as JSON).
 */
export const EVENT_MAX_BYTES = 60 * 1024;

/** How long each part of an event may be, in characters (see clipString). */
interface Limits {
  /** One string inside the tool input; a bare string tool input. */
  string: number;
  /** The whole tool input: its strings and keys together, roughly (the JSON of it a bit more). */
  toolInput: number;
  toolOutput: number;
  message: number;
  /** Names: the model, the tool, the terminal, the fleet profile, a notification's type, a key. */
  name: number;
  /** Paths, clipped at their start: the cwd's end names the observer's card. */
  path: number;
}

const FULL: Limits = { string: 1000, toolInput: 16 * 1024, toolOutput: 2000, message: 500, name: 256, path: 4096 };
const scaled = (f: number): Limits => {
  const out = { ...FULL };
  for (const k of Object.keys(out) as Array<keyof Limits>) out[k] = Math.floor(FULL[k] * f);
  return out;
};
/**
 * The limits normalizePayload tries in turn until the event's JSON fits in
 * EVENT_MAX_BYTES (characters that JSON escapes, such as control characters,
 * take up to six bytes each, others up to three). The last one always fits.
 */
const STEPS: readonly Limits[] = [
  FULL,
  scaled(1 / 4),
  scaled(1 / 16),
  { string: 0, toolInput: 0, toolOutput: 0, message: 0, name: 64, path: 64 },
];

// Every table below is looked up by a string from the payload: Maps, so that a
// name such as `constructor` or `__proto__` finds nothing of Object.prototype.
const EVENT_ALIASES: ReadonlyMap<string, CopilotEventName> = new Map([
  ['sessionstart', 'sessionStart'],
  ['posttooluse', 'postToolUse'],
  ['posttoolusefailure', 'postToolUseFailure'],
  ['agentstop', 'agentStop'],
  ['stop', 'agentStop'],
  ['sessionend', 'sessionEnd'],
  ['notification', 'notification'],
  ['erroroccurred', 'errorOccurred'],
]);

/**
 * The environment variable a hook command sets to name its event for a hook
 * client that passes no event on (fleet's own: `node <client> --tool copilot`).
 */
export const EVENT_ENV = 'FLEET_COPILOT_EVENT';

/**
 * The Copilot event a hook serves (camelCase or PascalCase): the hook command's
 * argument; else the command's hint in `env` (EVENT_ENV); else the payload's
 * `hook_event_name` (Copilot's Claude-compatible shape) or `type`.
 * Null for events fleet-git does not forward (preToolUse, userPromptSubmitted, ...).
 */
export function canonicalEvent(event: unknown, raw?: unknown, env?: Readonly<Record<string, string | undefined>>): CopilotEventName | null {
  let name = typeof event === 'string' && event ? event : env?.[EVENT_ENV] || undefined;
  if (!name && isObject(raw)) {
    const given = raw.hook_event_name ?? raw.type;
    if (typeof given === 'string') name = given;
  }
  if (!name) return null;
  // A subagent's events (VS Code's SubagentStart and SubagentStop) are not the session's: its Stop is not the turn's end.
  if (isObject(raw) && typeof raw.hook_event_name === 'string' && raw.hook_event_name.toLowerCase().startsWith('subagent')) return null;
  return EVENT_ALIASES.get(name.toLowerCase()) ?? null;
}

/** The terminal program fleet's observer knows as VS Code's: its card shows `VSCode`, and its focus key opens VS Code at the card's folder. */
export const VSCODE_TERM_PROGRAM = 'vscode';

/**
 * Whether a payload comes from VS Code's agent: the snake_case shape
 * (`hook_event_name` and `session_id`), its transcript under VS Code's
 * `GitHub.copilot-chat` folder or no COPILOT_HOOK_DIR in the hook's
 * environment (the Copilot CLI sets it for every hook it runs, and sends this
 * shape only to PascalCase keys, which fleet-git's hook file has none of).
 * VS Code names no variable of its own that a hook could rely on, and a hook
 * it runs inherits the TERM_PROGRAM VS Code was started with (iTerm's, say):
 * the shape decides.
 */
export function isVsCodePayload(raw: unknown, env: Readonly<Record<string, string | undefined>> = {}): boolean {
  if (!isObject(raw) || typeof raw.hook_event_name !== 'string' || typeof raw.session_id !== 'string') return false;
  const transcript = raw.transcript_path;
  return (typeof transcript === 'string' && transcript.includes('/GitHub.copilot-chat/')) || !env.COPILOT_HOOK_DIR;
}

/**
 * Copilot's tool names, the CLI's (lowercase: `bash`, `view`, ...) and VS Code
 * agent's (`run_in_terminal`, `read_file`, ...), as the Claude names the
 * observer's summarizer knows, and for those whose input keeps the summary's
 * target under another key, where it is. Unknown names (MCP tools, VS Code's
 * `semantic_search`, ...) pass through unchanged and show bare.
 */
interface ToolEntry {
  as: string;
  /** The key the summary reads and its value, for an input that keeps it elsewhere. */
  target?: (input: Record<string, unknown>) => [string, unknown];
}
const TOOLS: ReadonlyMap<string, ToolEntry> = new Map<string, ToolEntry>([
  ['bash', { as: 'Bash' }],
  ['view', { as: 'Read' }],
  ['edit', { as: 'Edit' }],
  ['create', { as: 'Write' }],
  ['grep', { as: 'Grep' }],
  ['glob', { as: 'Glob' }],
  ['web_fetch', { as: 'WebFetch' }],
  ['run_in_terminal', { as: 'Bash' }],
  ['read_file', { as: 'Read' }],
  ['list_dir', { as: 'Read' }],
  ['replace_string_in_file', { as: 'Edit' }],
  ['insert_edit_into_file', { as: 'Edit' }],
  ['multi_replace_string_in_file', { as: 'Edit', target: (i) => ['file_path', firstReplacedFile(i.replacements)] }],
  ['apply_patch', { as: 'Edit', target: (i) => ['file_path', patchedFile(i.input)] }],
  ['create_file', { as: 'Write' }],
  ['grep_search', { as: 'Grep', target: (i) => ['pattern', i.query] }],
  ['file_search', { as: 'Glob', target: (i) => ['pattern', i.query] }],
  ['fetch_webpage', { as: 'WebFetch' }],
]);

/** The tools that hand work to a subagent: the CLI's `task`, VS Code's `runSubagent`. */
const DELEGATING = new Set(['task', 'runSubagent']);
const DELEGATION_MAX = 60;

/**
 * A delegating tool's name as the card shows it, `Task <its description>` (`Task` when it has none): the
 * observer's summarizer shows an unknown name as it is, split at its first space into tool and target. Null for
 * any other tool. `input` is the tool's arguments (an object, or their JSON).
 */
export function delegation(toolName: string, input: unknown): string | null {
  if (!DELEGATING.has(toolName)) return null;
  let args = input;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      args = null;
    }
  }
  const description = isObject(args) && typeof args.description === 'string' ? args.description.replace(/\s+/g, ' ').trim() : '';
  return description ? `Task ${description.slice(0, DELEGATION_MAX)}` : 'Task';
}

/** The Claude-style name for a Copilot or VS Code tool; unknown names pass through unchanged. */
export function mapToolName(toolName: string): string {
  return TOOLS.get(toolName)?.as ?? toolName;
}

/** The first file of VS Code's multi_replace_string_in_file (`replacements[].filePath`). */
function firstReplacedFile(replacements: unknown): unknown {
  return Array.isArray(replacements) && isObject(replacements[0]) ? replacements[0].filePath : undefined;
}

/** The first file a patch of VS Code's apply_patch names (`*** Update File: <path>`, or Add, or Delete). */
function patchedFile(patch: unknown): string | undefined {
  if (typeof patch !== 'string') return undefined;
  return /^\*\*\* (?:Update|Add|Delete) File: (.+)$/m.exec(patch.slice(0, 64 * 1024))?.[1]?.trim();
}

// The tool input keys the observer reads with string methods (a non-string
// there throws inside it), and the keys its file path or pattern comes from
// (`path` the CLI's, `filePath` and `query` VS Code's): copied first, before
// anything else spends the tool input's budget.
const OBSERVER_KEYS = ['file_path', 'command', 'pattern'];
const FIRST_KEYS = ['file_path', 'path', 'filePath', 'command', 'pattern', 'query'];

/**
 * The tool input as the observer's summarizer reads it: an object parsed from a
 * JSON string when needed, `file_path` added from `path` or `filePath` (or what
 * the tool's entry in TOOLS names), clipped within `lim`, and the keys the
 * observer calls string methods on kept only when they are strings.
 */
function mapToolInput(toolName: string, toolInput: unknown, lim: Limits): Record<string, unknown> | string | null {
  let input: unknown = toolInput;
  if (typeof toolInput === 'string') {
    try {
      input = JSON.parse(toolInput);
    } catch {
      return clipString(toolInput, lim.string);
    }
  }
  if (!isObject(input)) return typeof input === 'string' ? clipString(input, lim.string) : null;
  const target = TOOLS.get(toolName)?.target?.(input);
  const out = clipObject(input, 0, { left: lim.toolInput }, lim, FIRST_KEYS);
  if (target && typeof target[1] === 'string' && !Object.hasOwn(out, target[0])) out[target[0]] = clipPath(target[1], lim.path);
  if (!Object.hasOwn(out, 'file_path')) {
    const path = typeof out.path === 'string' ? out.path : typeof out.filePath === 'string' ? out.filePath : null;
    if (path !== null) out.file_path = path;
  }
  for (const k of OBSERVER_KEYS) if (Object.hasOwn(out, k) && typeof out[k] !== 'string') delete out[k];
  return out;
}

/**
 * The action text the observer shows for a tool call, for the CLI's, VS
 * Code's and Claude names alike: `Bash: npm test`, `Read index.ts`, `Edit app.ts`,
 * `Grep "TODO"`, `Glob src/**`; any other tool shows its bare name.
 */
export function summarizeToolUse(toolName: string, toolInput: unknown): string {
  const given = delegation(String(toolName ?? ''), toolInput);
  if (given !== null) return given;
  const name = mapToolName(String(toolName ?? ''));
  const mapped = mapToolInput(String(toolName ?? ''), toolInput, FULL);
  const input: Record<string, unknown> = isObject(mapped) ? mapped : {};
  const str = (k: string) => (typeof input[k] === 'string' ? (input[k] as string) : '');
  switch (name) {
    case 'Read':
    case 'Edit':
    case 'Write':
      return `${name} ${basename(str('file_path'))}`;
    case 'Bash':
      return `Bash: ${str('command').slice(0, 50)}`;
    case 'Grep':
      return `Grep "${str('pattern').slice(0, 30)}"`;
    case 'Glob':
      return `Glob ${str('pattern')}`;
    default:
      return name;
  }
}

/**
 * The observer's event for one hook payload, or null when nothing must be sent:
 * an event fleet-git does not forward, a payload that is not a JSON object, or
 * a session id that is missing or not a plain id (the observer turns it into a file name).
 */
export function normalizePayload(rawInput: unknown, event: unknown, ctx: NormalizeContext = {}): FleetEvent | null {
  if (!isObject(rawInput)) return null;
  const kind = canonicalEvent(event, rawInput, ctx.env);
  if (!kind) return null;
  const sessionId = pick(rawInput, 'sessionId', 'session_id');
  if (!isPlainId(sessionId)) return null;
  // Clipped before it is sent, never cut while sending: tighter limits until the line fits.
  let out: FleetEvent | undefined;
  for (const lim of STEPS) {
    out = buildEvent(rawInput, kind, sessionId, ctx, lim);
    if (Buffer.byteLength(JSON.stringify(out)) <= EVENT_MAX_BYTES) break;
  }
  return out!;
}

function buildEvent(
  raw: Record<string, unknown>,
  kind: CopilotEventName,
  sessionId: string,
  ctx: NormalizeContext,
  lim: Limits,
): FleetEvent {
  const now = ctx.now ?? Date.now();
  const name = (v: unknown) => clipString(str(v), lim.name);
  // A VS Code session: its terminal, model and fleet profile are never the environment's (the
  // terminal VS Code was started from, a Copilot CLI's variables), and its card is VS Code's.
  const vscode = isVsCodePayload(raw, ctx.env);
  const env = vscode ? {} : (ctx.env ?? {});

  const out: FleetEvent = {
    event: 'Stop',
    session_id: sessionId,
    cwd: clipPath(str(raw.cwd), lim.path),
    timestamp: timestampOf(raw.timestamp, now),
    model: null,
    pid: null,
    ppid: null,
    term_program: null,
    iterm_session_id: null,
    tool_name: null,
    tool_input: null,
    tool_output: null,
    last_assistant_message: null,
    message: null,
    notification_type: null,
    _tool: 'copilot',
    tool: 'copilot',
  };
  if (env.FLEET_MODEL_NAME) out.fleet_model_name = name(env.FLEET_MODEL_NAME)!;
  if (env[PROBE_VAR]) out.probe_hook_dir = clipPath(str(env.COPILOT_HOOK_DIR), lim.path);

  switch (kind) {
    case 'sessionStart':
      out.event = 'SessionStart';
      out.model = name(str(raw.model) ?? str(env.COPILOT_MODEL) ?? ctx.transcriptModel);
      out.pid = ctx.pid ?? null;
      out.ppid = ctx.ppid ?? null;
      out.term_program = vscode ? VSCODE_TERM_PROGRAM : name(env.TERM_PROGRAM);
      out.iterm_session_id = name(env.ITERM_SESSION_ID);
      break;
    case 'postToolUse':
    case 'postToolUseFailure': {
      out.event = 'PostToolUse';
      const rawName = pick(raw, 'toolName', 'tool_name');
      // The observer splits the summary of tool_name: it must be a non-empty string.
      const toolName = name(rawName) ?? 'unknown';
      const args = pick(raw, 'toolArgs', 'tool_input');
      out.tool_name = name(delegation(toolName, args)) ?? mapToolName(toolName);
      out.tool_input = mapToolInput(toolName, args, lim);
      out.tool_output = clipString(kind === 'postToolUse' ? toolOutputOf(raw) : failureOf(raw), lim.toolOutput);
      break;
    }
    case 'agentStop':
      out.event = 'Stop';
      out.last_assistant_message = clipString(lastMessage(str(raw.last_assistant_message)), lim.message);
      out.message = clipString(str(pick(raw, 'stopReason', 'stop_reason')), lim.message);
      break;
    case 'sessionEnd':
      out.event = 'Stop';
      out.message = clipString(str(raw.reason), lim.message);
      break;
    case 'notification':
      out.event = 'Notification';
      out.message = clipString(str(raw.message) ?? str(raw.title), lim.message);
      out.notification_type = name(pick(raw, 'notification_type', 'notificationType'));
      break;
    case 'errorOccurred':
      out.event = 'Notification';
      out.message = clipString(errorMessage(raw), lim.message);
      out.notification_type = 'error';
      break;
  }
  return out;
}

function toolOutputOf(raw: Record<string, unknown>): string | null {
  const result = pick(raw, 'toolResult', 'tool_result', 'tool_response');
  if (typeof result === 'string') return result;
  if (!isObject(result)) return null;
  // `text_result_for_llm`: the Copilot CLI's snake_case payloads (PascalCase keys).
  for (const k of ['textResultForLlm', 'text_result_for_llm', 'output', 'stdout', 'content']) {
    if (typeof result[k] === 'string') return result[k] as string;
  }
  return null;
}

/** A payload's `error`: the string itself, or an object's `message`; null otherwise. */
function errorText(raw: Record<string, unknown>): string | null {
  const e = raw.error;
  return typeof e === 'string' ? e : isObject(e) && typeof e.message === 'string' ? e.message : null;
}

function failureOf(raw: Record<string, unknown>): string | null {
  const e = errorText(raw);
  return e ?? toolOutputOf(raw);
}

const CONTEXT_LABELS: ReadonlyMap<string, string> = new Map([
  ['model_call', 'model call'],
  ['tool_execution', 'tool execution'],
  ['system', 'system'],
  ['user_input', 'user input'],
]);

/** `Copilot error (model call): bad request test`: where it failed and why. */
function errorMessage(raw: Record<string, unknown>): string {
  const context = str(pick(raw, 'errorContext', 'error_context'));
  let why = errorText(raw) ?? '';
  // Provider errors arrive as a JSON document in `message`: show its own message.
  if (why.startsWith('{')) {
    try {
      const inner = JSON.parse(why);
      if (isObject(inner) && typeof inner.message === 'string') why = inner.message;
      else if (isObject(inner) && isObject(inner.error) && typeof inner.error.message === 'string') why = inner.error.message;
    } catch {
      /* keep the text */
    }
  }
  const where = context ? ` (${CONTEXT_LABELS.get(context) ?? context})` : '';
  return `Copilot error${where}${why ? `: ${why}` : ''}`;
}

function timestampOf(value: unknown, now: number): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value === 'string') {
    const t = Date.parse(value);
    if (Number.isFinite(t)) return t;
  }
  return now;
}

function pick(raw: Record<string, unknown>, ...keys: string[]): unknown {
  for (const k of keys) if (raw[k] !== undefined && raw[k] !== null) return raw[k];
  return undefined;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function clipString<T extends string | null>(s: T, max: number): T {
  if (s === null || s.length <= max) return s;
  // Not half a character: a UTF-16 pair cut after its first half would reach the observer as U+FFFD.
  return s.slice(0, isHighSurrogate(s.charCodeAt(max - 1)) ? max - 1 : max) as T;
}

/** A path's last `max` characters: its end (the basename) is what the observer shows. */
function clipPath(s: string | null, max: number): string | null {
  if (s === null || s.length <= max) return s;
  const from = s.length - max;
  return s.slice(isHighSurrogate(s.charCodeAt(from - 1)) ? from + 1 : from);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

// A bounded copy of a tool input: strings clipped, at most 4 levels and 50
// entries a level, and a budget for the whole (`left`, in characters) that
// every string, key and value spends, so that no shape of input, however
// wide or deep, becomes a long line.
function clipValue(value: unknown, depth: number, budget: { left: number }, lim: Limits): unknown {
  if (typeof value === 'string') {
    const s = clipString(value, Math.max(0, Math.min(lim.string, budget.left)));
    budget.left -= s.length + 2;
    return s;
  }
  budget.left -= 8;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object') return null; // not JSON (a library caller's undefined, function, bigint)
  if (depth >= 4 || budget.left <= 0) return Array.isArray(value) ? [] : {};
  if (!Array.isArray(value)) return clipObject(value as Record<string, unknown>, depth, budget, lim, []);
  const out: unknown[] = [];
  for (const v of value) {
    if (out.length >= 50 || budget.left <= 0) break;
    out.push(clipValue(v, depth + 1, budget, lim));
  }
  return out;
}

function clipObject(
  value: Record<string, unknown>,
  depth: number,
  budget: { left: number },
  lim: Limits,
  first: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  const copy = (k: string) => {
    const key = clipString(k, lim.name);
    budget.left -= key.length + 4;
    // Defined, not assigned: a `__proto__` key stays a key, not out's prototype.
    Object.defineProperty(out, key, {
      value: clipValue(value[k], depth + 1, budget, lim),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    n++;
  };
  for (const k of first) if (Object.hasOwn(value, k)) copy(k);
  for (const k in value) {
    if (n >= 50 || budget.left <= 0) break;
    if (Object.hasOwn(value, k) && !first.includes(k)) copy(k);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
