// A scripted OpenAI-compatible chat-completions server on loopback for the
// session benchmark (the tests' test/fake-model-server.ts scripts one fixed
// turn; this one answers with `calls` bash tool calls, then a plain answer).
// Which step to answer is read from the request (how many tool results it
// carries), so extra requests Copilot may make do not shift the script.
import { createServer } from 'node:http';

/** Starts the server; `calls(body)`: how many tool calls this session gets (read per request). */
export function startFakeModel({ model = 'gpt-4.1', calls }) {
  let n = 0;
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          object: 'list',
          data: [
            {
              id: model,
              object: 'model',
              created: 1700000000,
              owned_by: 'bench',
              name: model,
              capabilities: { type: 'chat', supports: { tool_calls: true, streaming: true } },
            },
          ],
        }),
      );
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404);
      return res.end();
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const done = messages.filter((m) => m?.role === 'tool').length;
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const id = `chatcmpl-${++n}`;
    const tool =
      hasTools && done < calls(body)
        ? {
            id: `call_${n}`,
            type: 'function',
            function: {
              name: 'bash',
              arguments: JSON.stringify({ command: `echo step-${done}`, description: 'step', mode: 'sync', initial_wait: 10 }),
            },
          }
        : null;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          usage,
          choices: [
            {
              index: 0,
              finish_reason: tool ? 'tool_calls' : 'stop',
              message: tool ? { role: 'assistant', content: null, tool_calls: [tool] } : { role: 'assistant', content: 'Done.' },
            },
          ],
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (delta, finish, extra = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
      );
    if (tool) send({ role: 'assistant', content: null, tool_calls: [{ index: 0, ...tool }] }, null);
    else {
      send({ role: 'assistant', content: '' }, null);
      send({ content: 'Done.' }, null);
    }
    send({}, tool ? 'tool_calls' : 'stop', { usage });
    res.write('data: [DONE]\n\n');
    res.end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    ),
  );
}
