// A 2026-07-28-era MCP peer for rein's interoperability tests, built on the
// TypeScript SDK v2 (@modelcontextprotocol/server 2.4). It serves one set of
// tools, resources and prompts to both eras:
//
//   node modern-server.mjs stdio         serveStdio (era chosen by the opening)
//   node modern-server.mjs http PORT     createMcpHandler on 127.0.0.1:PORT/mcp
//
// Run it from testdata/interop (or with NODE_PATH pointing at its
// node_modules) with the Node 22 binary installed there.
import http from 'node:http';
import { McpServer, createMcpHandler, inputRequired, acceptedContent } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

function build() {
  const server = new McpServer(
    { name: 'rein-modern-peer', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
      cacheHints: { 'tools/list': { ttlMs: 60000, cacheScope: 'private' } },
    },
  );

  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Add two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    'fail',
    { description: 'Always fails.', inputSchema: z.object({}) },
    async () => ({ isError: true, content: [{ type: 'text', text: 'this tool always fails' }] }),
  );

  server.registerTool(
    'confirm',
    { description: 'Asks the user to confirm (input_required in the 2026 era).', inputSchema: z.object({ action: z.string() }) },
    async ({ action }, ctx) => {
      const schema = z.object({ ok: z.boolean() });
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', schema);
      if (answer === undefined && !ctx.mcpReq.inputResponses?.confirm) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Really ${action}?`, requestedSchema: schema }) },
        });
      }
      return { content: [{ type: 'text', text: answer?.ok ? `confirmed ${action}` : `not confirmed ${action}` }] };
    },
  );

  server.registerResource(
    'readme',
    'mem://readme',
    { title: 'Read me', mimeType: 'text/plain', description: 'A text resource.' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from the modern peer' }] }),
  );

  server.registerPrompt(
    'greet',
    { description: 'Greets someone.', argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }] }),
  );
  return server;
}

const [mode = 'stdio', port = '0'] = process.argv.slice(2);
if (mode === 'stdio') {
  serveStdio(() => build());
  console.error('modern peer: serving stdio');
} else if (mode === 'http') {
  const handler = createMcpHandler(() => build());
  const srv = http.createServer(async (req, res) => {
    try {
      if (!req.url.startsWith('/mcp')) {
        res.writeHead(404).end();
        return;
      }
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
        else if (v !== undefined) headers.set(k, v);
      }
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) {
        res.end();
        return;
      }
      const reader = response.body.getReader();
      req.on('close', () => reader.cancel().catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (err) {
      console.error('modern peer:', err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  srv.listen(Number(port), '127.0.0.1', () => console.error(`modern peer: listening on 127.0.0.1:${srv.address().port}`));
} else {
  console.error(`usage: modern-server.mjs stdio | http PORT`);
  process.exit(2);
}
