// A client on the TypeScript SDK v2 (@modelcontextprotocol/client 2.4),
// used as a real peer of rein's MCP server:
//
//   node ts-client.mjs ERA stdio COMMAND [ARGS...]
//   node ts-client.mjs ERA http URL
//
// ERA is legacy (the initialize handshake), modern (pinned to 2026-07-28:
// server/discover and per-request _meta) or auto (probe, then fall back).
// It lists the tools, calls echo (allowed) and run (which the server's
// policy refuses), and prints one JSON line describing what it saw.
//
// Run it with the Node 22 binary from testdata/interop, from a directory
// whose node_modules is the interop one (ESM resolves packages next to the
// script).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [era, kind, ...rest] = process.argv.slice(2);
const modes = { legacy: 'legacy', auto: 'auto', modern: { pin: '2026-07-28' } };
if (!(era in modes) || !['stdio', 'http'].includes(kind) || rest.length === 0) {
  console.error('usage: ts-client.mjs legacy|modern|auto stdio COMMAND [ARGS...] | http URL');
  process.exit(2);
}

const client = new Client(
  { name: 'rein-ts-peer', version: '1.0.0' },
  { versionNegotiation: { mode: modes[era], probe: { timeoutMs: 5000 } } },
);
const transport =
  kind === 'stdio'
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: { ...process.env }, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(rest[0]));

const text = (res) => (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

const timer = setTimeout(() => {
  console.error('ts-client: timed out');
  process.exit(3);
}, 30000);

try {
  await client.connect(transport);
  const listed = await client.listTools();
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello from the TypeScript SDK' } });
  const denied = await client.callTool({ name: 'run', arguments: { command: 'make deploy' } });
  console.log(
    JSON.stringify({
      era: client.getProtocolEra(),
      version: client.getNegotiatedProtocolVersion() ?? null,
      server: client.getServerVersion()?.name ?? null,
      capabilities: Object.keys(client.getServerCapabilities() ?? {}).sort(),
      tools: listed.tools
        .map((t) => ({
          name: t.name,
          readOnly: t.annotations?.readOnlyHint ?? null,
          destructive: t.annotations?.destructiveHint ?? null,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      cacheScope: listed.cacheScope ?? null,
      echo: { isError: echo.isError === true, text: text(echo) },
      denied: { isError: denied.isError === true, text: text(denied) },
    }),
  );
  await client.close();
  clearTimeout(timer);
} catch (err) {
  console.error('ts-client:', err?.stack ?? err);
  process.exit(1);
}
