// A small OpenAI-compatible chat-completions server on loopback, enough for
// Copilot CLI to run a whole session offline (COPILOT_OFFLINE=true and the
// COPILOT_PROVIDER_* variables): GET /v1/models, POST /v1/chat/completions,
// streaming (SSE) or not. It scripts one turn: a `bash` tool call, then a
// `view`, then a plain-text answer. Which step to answer is read from the
// request (how many tool results it carries), not from a counter, so extra
// requests Copilot may make do not shift the script. `doctor --live` runs the
// user's Copilot against it; the end-to-end tests run the pinned one.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Script {
  /** The bash tool call's command. */
  command: string;
  /** The path the view tool call reads (a missing one makes it a postToolUseFailure). */
  viewPath: string;
  /** The final answer. */
  finalText: string;
}

export const DEFAULT_SCRIPT: Readonly<Script> = Object.freeze({
  command: 'echo hello-from-tool',
  viewPath: '/nonexistent/file/xyz.txt',
  finalText: 'Done. All finished.',
});

export interface ModelServerOptions {
  model?: string;
  script?: Readonly<Script>;
  /** Wait before the final answer (the transcript lags most when the answer is slow). */
  finalDelayMs?: number;
  /** Instead of the script: this many `bash` tool calls (`echo step-N`), then the final answer. */
  toolCalls?: number;
}

export interface ModelServer {
  /** The base URL to give Copilot as COPILOT_PROVIDER_BASE_URL (ends in /v1). */
  baseUrl: string;
  /** Every chat request received, parsed. */
  requests: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

type Step = { tool: { name: string; args: Record<string, unknown> } } | { text: string };

function stepFor(body: Record<string, unknown>, script: Readonly<Script>, toolCalls: number | undefined): Step {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: string }>) : [];
  const toolResults = messages.filter((m) => m?.role === 'tool').length;
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (toolCalls !== undefined) {
    return hasTools && toolResults < toolCalls
      ? { tool: { name: 'bash', args: { command: `echo step-${toolResults}`, description: 'step', mode: 'sync', initial_wait: 10 } } }
      : { text: script.finalText };
  }
  if (hasTools && toolResults === 0)
    return { tool: { name: 'bash', args: { command: script.command, description: 'Say hello', mode: 'sync', initial_wait: 10 } } };
  if (hasTools && toolResults === 1) return { tool: { name: 'view', args: { path: script.viewPath } } };
  return { text: script.finalText };
}

export function startModelServer(opts: ModelServerOptions = {}): Promise<ModelServer> {
  const model = opts.model ?? 'gpt-4.1';
  const script = opts.script ?? DEFAULT_SCRIPT;
  const requests: Array<Record<string, unknown>> = [];
  let calls = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      return json(res, {
        object: 'list',
        data: [
          {
            id: model,
            object: 'model',
            created: 1700000000,
            owned_by: 'test',
            name: model,
            capabilities: { type: 'chat', supports: { tool_calls: true, streaming: true } },
          },
        ],
      });
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    requests.push(body);
    const step = stepFor(body, script, opts.toolCalls);
    const id = `chatcmpl-${++calls}`;
    if ('text' in step && opts.finalDelayMs) await new Promise((r) => setTimeout(r, opts.finalDelayMs));
    const toolCall =
      'tool' in step
        ? { id: `call_${calls}`, type: 'function', function: { name: step.tool.name, arguments: JSON.stringify(step.tool.args) } }
        : null;
    const finish = toolCall ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    const created = Math.floor(Date.now() / 1000);

    if (!body.stream) {
      return json(res, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: toolCall
              ? { role: 'assistant', content: null, tool_calls: [toolCall] }
              : { role: 'assistant', content: (step as { text: string }).text },
            finish_reason: finish,
          },
        ],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
      );
    if (toolCall) {
      send({ role: 'assistant', content: null, tool_calls: [{ index: 0, ...toolCall }] }, null);
    } else {
      send({ role: 'assistant', content: '' }, null);
      send({ content: (step as { text: string }).text }, null);
    }
    send({}, finish, { usage });
    res.write('data: [DONE]\n\n');
    res.end();
  }

  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        requests,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

function json(res: ServerResponse, value: unknown) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
