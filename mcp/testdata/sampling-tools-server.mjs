// A 2025-11-25 MCP server on the TypeScript SDK v1 (@modelcontextprotocol/sdk)
// for rein's sampling-with-tools interop test (SEP-1577). Its "plan" tool asks
// the client's model, offering a "weather" tool; while the model answers with
// tool_use blocks it runs them and sends tool_result blocks back, at most four
// turns; the tool's result is the model's final text, or an error.
//
//   node sampling-tools-server.mjs      (stdio)
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'rein-sampling-tools-peer', version: '1.0.0' });
const weather = {
  name: 'weather',
  description: 'Weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

server.registerTool('plan', { description: 'Plans with the weather.' }, async () => {
  const messages = [{ role: 'user', content: { type: 'text', text: 'What to wear in Oslo?' } }];
  for (let turn = 0; turn < 4; turn++) {
    const res = await server.server.createMessage({
      messages, maxTokens: 100, tools: [weather], toolChoice: { mode: 'auto' },
    });
    const content = Array.isArray(res.content) ? res.content : [res.content];
    const uses = content.filter((c) => c.type === 'tool_use');
    if (uses.length === 0) {
      const text = content.filter((c) => c.type === 'text').map((c) => c.text).join('');
      return { content: [{ type: 'text', text: `final (${res.stopReason}): ${text}` }] };
    }
    messages.push({ role: 'assistant', content });
    messages.push({
      role: 'user',
      content: uses.map((u) => ({
        type: 'tool_result', toolUseId: u.id,
        content: [{ type: 'text', text: `sunny in ${u.input.city}` }],
      })),
    });
  }
  return { isError: true, content: [{ type: 'text', text: 'the model kept calling tools' }] };
});

await server.connect(new StdioServerTransport());
