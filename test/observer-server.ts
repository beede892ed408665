// A stand-in for the fleet observer's socket: fleet-git's own listener
// (src/fleet/listener.ts), which frames exactly as the observer does
// (fleet-observer-protocol.md): buffer what arrives, split on \n, JSON.parse
// each line, silently drop lines that do not parse, never answer.
import { mkdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { basename, dirname } from 'node:path';
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

  get events(): Received[] {
    return this.listener.events;
  }
  get badLines(): string[] {
    return this.listener.badLines;
  }
  get socketPath(): string {
    return this.listener.socketPath;
  }

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

  /**
   * Resolves once everything sent before this call has been read, for a test that
   * proves nothing else arrived (call it after every sender has exited): see
   * connectedLast. Throws after `timeoutMs`.
   */
  async drained(timeoutMs = 10_000): Promise<void> {
    await connectedLast(this.socketPath, '');
    if (!(await this.listener.waitUntil(() => this.listener.openConnections === 0, timeoutMs)))
      throw new Error(`observer: ${this.listener.openConnections} connections still open after ${timeoutMs} ms`);
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}

/**
 * Connects to `socketPath`, sends `text` and ends; resolves once the listener has
 * read that end of file and closed its side. A listening socket hands out
 * connections in the order they came, so every connection made before this one
 * has been taken in by then: once none is open, all they sent has been read.
 */
function connectedLast(socketPath: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = connect(socketPath);
    c.on('error', reject);
    c.on('connect', () => c.end(text));
    c.on('close', () => resolve());
    c.resume();
  });
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

/** What RawObserver.drained sends on its own connection (left out of `ended`). */
const DRAIN_TOKEN = Buffer.from('\0fleet-git-test-drained\0', 'latin1');

/**
 * A listener that keeps the raw bytes of each connection, to check framing
 * itself: `normal` reads at once, `stuck` reads nothing until resume(), `slow`
 * reads a chunk every `slowMs`.
 */
export class RawObserver {
  /** One entry per connection that has ended: everything it sent. */
  readonly ended: Buffer[] = [];
  private readonly open = new Set<Socket>();
  private resumed: boolean;

  private constructor(
    private readonly server: Server,
    private readonly mode: 'normal' | 'stuck' | 'slow',
    private readonly slowMs: number,
  ) {
    this.resumed = mode !== 'stuck';
  }

  static start(socketPath: string, mode: 'normal' | 'stuck' | 'slow' = 'normal', slowMs = 20): Promise<RawObserver> {
    mkdirSync(dirname(socketPath), { recursive: true });
    rmSync(socketPath, { force: true });
    const server = createServer({ pauseOnConnect: true });
    const obs = new RawObserver(server, mode, slowMs);
    server.on('connection', (c) => obs.accept(c));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve(obs));
    });
  }

  private accept(c: Socket): void {
    const chunks: Buffer[] = [];
    this.open.add(c);
    c.on('error', () => {});
    c.on('data', (d: Buffer) => {
      chunks.push(d);
      if (this.mode === 'slow') {
        c.pause();
        setTimeout(() => c.resume(), this.slowMs);
      }
    });
    c.on('close', () => {
      this.open.delete(c);
      const bytes = Buffer.concat(chunks);
      if (!bytes.equals(DRAIN_TOKEN)) this.ended.push(bytes);
    });
    if (this.resumed) c.resume();
  }

  /** A stuck observer starts reading what its connections hold. */
  resume(): void {
    this.resumed = true;
    for (const c of this.open) c.resume();
  }

  /** As TestObserver.drained (a normal or resumed observer): everything sent before this call is in `ended`. */
  async drained(ms = 10_000): Promise<void> {
    await connectedLast(this.server.address() as string, DRAIN_TOKEN.toString('latin1'));
    const deadline = Date.now() + ms;
    while (this.open.size > 0) {
      if (Date.now() > deadline) throw new Error(`observer: ${this.open.size} connections still open after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  close(): Promise<void> {
    for (const c of this.open) c.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The events in one connection's bytes, which must be whole lines of JSON objects (a partial or unparsable line throws, saying what it was). */
export function wholeLines(bytes: Buffer): Received[] {
  const text = bytes.toString('utf8');
  if (text === '') return [];
  if (!text.endsWith('\n'))
    throw new Error(`a partial line: ${bytes.length} bytes without a final newline, starting ${JSON.stringify(text.slice(0, 80))}`);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const v = JSON.parse(line) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`not a JSON object: ${line.slice(0, 80)}`);
      return v as Received;
    });
}

/**
 * A session's events as the order they must arrive in is checked: each PostToolUse as the number N of its
 * `echo step-N` command (the model server's `toolCalls` script), each other event as its name, with `:message`
 * when it has one. A session of `toolCalls` calls has exactly sessionShapeOf(toolCalls).
 */
export function sessionShape(events: Received[]): Array<string | number> {
  return events.map((e) =>
    e.event === 'PostToolUse'
      ? Number(/step-(\d+)/.exec(String((e.tool_input as { command?: string }).command))?.[1])
      : `${e.event}${e.message ? `:${e.message}` : ''}`,
  );
}

/** The shape (sessionShape) of a whole session of `toolCalls` tool calls: each event once, in order. */
export const sessionShapeOf = (toolCalls: number): Array<string | number> => [
  'SessionStart',
  ...Array.from({ length: toolCalls }, (_, i) => i),
  'Stop:end_turn',
  'Stop:complete',
];

/** A card of the observer's, as fleet-observer-protocol.md says it keeps one. */
export interface Card {
  /** Its actions, each as the observer's summary of a PostToolUse (observerSummary), in order. */
  actions: string[];
  /** `idle` after a Stop, `active` after a PostToolUse or a Notification. */
  status: 'idle' | 'active';
  awaitsInput: boolean;
  lastMessage: string | null;
}

/**
 * The cards the observer makes of `events`, by session id, per the protocol: a SessionStart, PostToolUse or
 * Notification on an unknown session makes a card; a Stop on an unknown one is ignored, else marks the card idle and
 * awaiting input with its last message; a PostToolUse appends an action and marks it active; a Notification marks it
 * active. Deliberately not fleet-git's code: it checks what the observer itself would show.
 */
export function cardsOf(events: Received[]): Map<string, Card> {
  const cards = new Map<string, Card>();
  for (const e of events) {
    const sid = String(e.session_id);
    let card = cards.get(sid);
    if (e.event === 'Stop') {
      if (!card) continue;
      card.status = 'idle';
      card.awaitsInput = true;
      if (e.last_assistant_message) card.lastMessage = String(e.last_assistant_message);
      continue;
    }
    if (!card) cards.set(sid, (card = { actions: [], status: 'idle', awaitsInput: false, lastMessage: null }));
    if (e.event === 'PostToolUse') card.actions.push(observerSummary(e.tool_name, e.tool_input));
    if (e.event === 'PostToolUse' || e.event === 'Notification') {
      card.status = 'active';
      card.awaitsInput = false;
    }
  }
  return cards;
}
