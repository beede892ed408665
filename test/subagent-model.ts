// A scripted OpenAI-compatible chat-completions server on loopback (as src/copilot/model-server.ts, which scripts
// one fixed turn) whose conversations each follow a script named in their user messages, `[[script:NAME]]`: the
// session's prompt names the top one, and a `task` tool call's prompt names its subagent's, so one server runs a
// session and its subagents, nested ones included. A step is one or more tool calls (called at once) or the answer;
// which step is read from the request (how many tool-calling answers it carries).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Call {
  tool: string;
  args: Record<string, unknown>;
}
export type Step = { calls: Call[] } | { text: string };
export type Scripts = Record<string, Step[]>;

/** A `bash` call that runs `command`. */
export const bash = (command: string): Call => ({ tool: 'bash', args: { command, description: 'run', mode: 'sync', initial_wait: 30 } });
/** A `task` call: a subagent following the script `script`, described as `description`. */
export const task = (description: string, script: string, more: Record<string, unknown> = {}): Call => ({
  tool: 'task',
  args: { description, prompt: `[[script:${script}]] do it`, agent_type: 'task', name: script, ...more },
});

export interface ScriptedModel {
  baseUrl: string;
  close(): Promise<void>;
}

export function startScriptedModel(scripts: Scripts, model = 'gpt-4.1'): Promise<ScriptedModel> {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const caps = { type: 'chat', supports: { tool_calls: true, streaming: true } };
        return res.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: model, object: 'model', created: 1, owned_by: 'test', name: model, capabilities: caps }],
          }),
        );
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { messages?: unknown[]; tools?: unknown[] };
      const messages = (Array.isArray(body.messages) ? body.messages : []) as Array<{
        role?: string;
        content?: unknown;
        tool_calls?: unknown[];
      }>;
      const users = messages
        .filter((m) => m.role === 'user')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
      const name = /\[\[script:([\w-]+)\]\]/.exec(users.join('\n'))?.[1];
      const script = name !== undefined ? scripts[name] : undefined;
      const done = messages.filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0).length;
      // A request without tools (a title, a summary) or of no script gets a short answer.
      const step: Step =
        script && Array.isArray(body.tools) && body.tools.length > 0 ? script[Math.min(done, script.length - 1)]! : { text: 'ok' };
      const id = `chatcmpl-${++n}`;
      const calls =
        'calls' in step
          ? step.calls.map((c, i) => ({
              index: i,
              id: `call_${n}_${i}`,
              type: 'function',
              function: { name: c.tool, arguments: JSON.stringify(c.args) },
            }))
          : null;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
        );
      if (calls) send({ role: 'assistant', content: null, tool_calls: calls }, null);
      else {
        send({ role: 'assistant', content: '' }, null);
        send({ content: (step as { text: string }).text }, null);
      }
      send({}, calls ? 'tool_calls' : 'stop', { usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } });
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    ),
  );
}
