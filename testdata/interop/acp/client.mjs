// An editor played by the official ACP TypeScript SDK: it starts
// `rein acp`, opens a session and runs the flows the Go test judges,
// printing one JSON summary on stdout.
// Usage: node client.mjs REIN_BINARY WORKSPACE MODEL_URL STATE_DIR
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [rein, workspace, modelURL, stateDir] = process.argv.slice(2);
const child = spawn(rein, ["acp", "-e", modelURL, "-k", "sk-acp-sdk", "--state-dir", stateDir], {
  cwd: workspace,
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const updates = [];
const permissions = [];
const answers = ["allow_once", "reject_once"];
const timer = setTimeout(() => {
  console.error("timed out");
  process.exit(2);
}, 60000);

const result = await acp
  .client()
  .onNotification("session/update", ({ params }) => {
    updates.push(params.update);
  })
  .onRequest("session/request_permission", ({ params: req }) => {
    permissions.push({ toolCallId: req.toolCall.toolCallId, options: req.options.map((o) => o.kind) });
    return { outcome: { outcome: "selected", optionId: answers.shift() ?? "reject_once" } };
  })
  .connectWith(stream, async (cx) => {
    const init = await cx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
    });
    const session = await cx.request("session/new", { cwd: workspace, mcpServers: [] });
    const stops = [];
    for (const text of ["edit the notes", "run a command", "run another"]) {
      const res = await cx.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] });
      stops.push(res.stopReason);
    }
    await cx.request("session/set_mode", { sessionId: session.sessionId, modeId: "full" });
    return { init, modes: session.modes, stops };
  });
clearTimeout(timer);
child.stdin.end();
console.log(JSON.stringify({ ...result, updates, permissions }));
