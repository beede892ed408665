// A stand-in for the fleet observer's socket, framing exactly as the observer
// does (fleet-observer-protocol.md): buffer what arrives, split on \n, JSON.parse
// each line, silently drop lines that do not parse, never answer.
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { basename, dirname } from 'node:path';

export type Received = Record<string, unknown>;

export interface ObserverOptions {
  /** Accept connections and never read from them (a hung observer). */
  stuck?: boolean;
  /** Called on each parsed event as it arrives (e.g. to check the ppid while the agent runs). */
  onEvent?: (event: Received) => void;
}

export class TestObserver {
  readonly events: Received[] = [];
  readonly badLines: string[] = [];
  private readonly sockets = new Set<Socket>();
  private waiters: Array<() => void> = [];

  private constructor(readonly socketPath: string, private readonly server: Server, private readonly opts: ObserverOptions) {}

  static start(socketPath: string, opts: ObserverOptions = {}): Promise<TestObserver> {
    mkdirSync(dirname(socketPath), { recursive: true });
    rmSync(socketPath, { force: true }); // as the observer does: a new one takes over
    const server = createServer({ pauseOnConnect: !!opts.stuck });
    const obs = new TestObserver(socketPath, server, opts);
    server.on('connection', (c) => obs.accept(c));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve(obs));
    });
  }

  private accept(conn: Socket): void {
    this.sockets.add(conn);
    conn.on('close', () => this.sockets.delete(conn));
    conn.on('error', () => {});
    if (this.opts.stuck) return;
    let buffer = '';
    conn.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        if (!line.trim()) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          this.badLines.push(line);
          continue;
        }
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
          this.opts.onEvent?.(parsed as Received);
          this.events.push(parsed as Received);
        } else {
          this.badLines.push(line);
        }
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
    });
  }

  /** The first received event matching `pred`, waiting for it up to `timeoutMs`. */
  async waitFor(pred: (e: Received) => boolean, timeoutMs = 10_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(pred);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`observer: no matching event within ${timeoutMs} ms; got ${JSON.stringify(this.events.map((e) => e.event))}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
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
