// A TypeScript SDK v1 client (@modelcontextprotocol/sdk) for rein's task
// status notification interop test: it starts the server given as arguments
// over stdio, calls its "slow" tool as a 2025-11-25 task, and prints one JSON
// line: the notifications/tasks/status it received for that task (each parsed
// by the SDK's TaskStatusNotificationSchema) once one says the task ended.
//
//   node task-notify-client.mjs COMMAND [ARGS...]
//   node task-notify-client.mjs http://127.0.0.1:PORT/mcp   (Streamable HTTP)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const transport = command.startsWith('http://')
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'rein-task-notify-client', version: '1.0.0' }, { capabilities: {} });
const seen = [];
let ended;
const done = new Promise((resolve) => { ended = resolve; });
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
  seen.push(n.params);
  if (['completed', 'failed', 'cancelled'].includes(n.params.status)) ended();
});
await client.connect(transport);
const created = await client.request(
  { method: 'tools/call', params: { name: 'slow', arguments: { text: 'ts' }, task: { ttl: 60000 } } },
  CreateTaskResultSchema,
);
const timeout = setTimeout(() => ended(), 10000);
await done;
clearTimeout(timeout);
process.stdout.write(JSON.stringify({ taskId: created.task.taskId, seen }) + '\n');
await client.close();
