// The fleet observer's event: one line on its socket, and the rule for the
// session id that names its session file (see fleet-observer-protocol.md).

type FleetEventName = 'SessionStart' | 'PostToolUse' | 'Stop' | 'Notification';

/** One line on the observer's socket (see fleet-observer-protocol.md). */
export interface FleetEvent {
  event: FleetEventName;
  session_id: string;
  cwd: string | null;
  timestamp: number;
  model: string | null;
  pid: number | null;
  ppid: number | null;
  term_program: string | null;
  iterm_session_id: string | null;
  tool_name: string | null;
  tool_input: Record<string, unknown> | string | null;
  tool_output: string | null;
  last_assistant_message: string | null;
  message: string | null;
  notification_type: string | null;
  _tool: 'copilot';
  tool: 'copilot';
  fleet_model_name?: string;
  /** Only in a `doctor --live` probe (PROBE_VAR set): the folder of the hook file that ran, COPILOT_HOOK_DIR. */
  probe_hook_dir?: string | null;
}

/** A session id that may become a file name: letters, digits, `_`, `-`, inner dots; no `..`. */
export function isPlainId(id: unknown): id is string {
  return typeof id === 'string' && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(id) && !id.includes('..');
}
