// A 2025-11-25 MCP server on the TypeScript SDK v1 (@modelcontextprotocol/sdk)
// for rein's task status notification interop test. Its "delay" tool must run
// as a task; the task suggests polling every POLL_MS (default 3000) and ends
// after the duration asked, and the SDK then sends notifications/tasks/status.
//
//   POLL_MS=3000 node task-notify-server.mjs      (stdio)
//   POLL_MS=3000 node task-notify-server.mjs http (Streamable HTTP on
//   127.0.0.1, a port the system picks; prints the endpoint's URL)
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

const pollInterval = Number(process.env.POLL_MS ?? 3000);

function newServer() {
  const server = new McpServer(
    { name: 'rein-task-notify-peer', version: '1.0.0' },
    {
      capabilities: { tasks: { requests: { tools: { call: {} } } } },
      taskStore: new InMemoryTaskStore(),
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );

  server.experimental.tasks.registerToolTask('delay', {
    description: 'Ends after duration milliseconds.',
    inputSchema: { duration: z.number().default(200) },
    execution: { taskSupport: 'required' },
  }, {
    async createTask({ duration }, { taskStore, taskRequestedTtl }) {
      const task = await taskStore.createTask({ ttl: taskRequestedTtl, pollInterval });
      setTimeout(() => {
        taskStore.storeTaskResult(task.taskId, 'completed', {
          content: [{ type: 'text', text: `delayed ${duration} ms` }],
        });
      }, duration);
      return { task };
    },
    async getTask(_args, { taskId, taskStore }) {
      return await taskStore.getTask(taskId);
    },
    async getTaskResult(_args, { taskId, taskStore }) {
      return await taskStore.getTaskResult(taskId);
    },
  });

  return server;
}

if (process.argv[2] !== 'http') {
  await newServer().connect(new StdioServerTransport());
} else {
  // One server and transport per session, as the SDK's examples do.
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = id && sessions.get(id);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}
