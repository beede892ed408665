// A stand-in for the fleet observer's socket: fleet-git's own listener
// (src/fleet/listener.ts), which frames exactly as the observer does
// (fleet-observer-protocol.md): buffer what arrives, split on \n, JSON.parse
// each line, silently drop lines that do not parse, never answer.
import { basename } from 'node:path';
import { EventListener, type Received } from '../src/fleet/listener.js';

export type { Received };

export interface ObserverOptions {
  /** Accept connections and never read from them (a hung observer). */
  stuck?: boolean;
  /** Called on each parsed event as it arrives (e.g. to check the ppid while the agent runs). */
  onEvent?: (event: Received) => void;
}

export class TestObserver {
  private constructor(private readonly listener: EventListener) {}

  get events(): Received[] { return this.listener.events; }
  get badLines(): string[] { return this.listener.badLines; }
  get socketPath(): string { return this.listener.socketPath; }

  static async start(socketPath: string, opts: ObserverOptions = {}): Promise<TestObserver> {
    return new TestObserver(await EventListener.start(socketPath, { paused: opts.stuck, onEvent: opts.onEvent }));
  }

  /** The first received event matching `pred`, waiting for it up to `timeoutMs`. */
  async waitFor(pred: (e: Received) => boolean, timeoutMs = 10_000): Promise<Received> {
    if (!(await this.listener.waitUntil(() => this.events.some(pred), timeoutMs))) {
      throw new Error(`observer: no matching event within ${timeoutMs} ms; got ${JSON.stringify(this.events.map((e) => e.event))}`);
    }
    return this.events.find(pred)!;
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}

/**
 * The action text the observer shows for a PostToolUse, per the protocol doc:
 * its summarizer knows only Claude names and `file_path`/`command`/`pattern`.
 * Deliberately not our summarizeToolUse: it checks what the observer itself would show.
 */
export function observerSummary(toolName: unknown, toolInput: unknown): string {
  const input = (toolInput && typeof toolInput === 'object' ? toolInput : {}) as Record<string, string | undefined>;
  switch (toolName) {
    case 'Edit':
    case 'Write':
    case 'Read':
      return `${toolName} ${basename(input.file_path || '')}`;
    case 'Bash':
      return `Bash: ${(input.command || '').slice(0, 50)}`;
    case 'Grep':
      return `Grep "${(input.pattern || '').slice(0, 30)}"`;
    case 'Glob':
      return `Glob ${input.pattern || ''}`;
    default:
      return String(toolName);
  }
}
