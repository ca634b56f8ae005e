// An editor played by the official ACP TypeScript SDK: it starts
// `rein acp`, opens a session and runs the flows the Go test judges,
// printing one JSON summary on stdout.
// Usage: node client.mjs MODE REIN_BINARY WORKSPACE MODEL_URL STATE_DIR
// MODE is one of: basic, fs-cancel, permission-cancel, load.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [mode, rein, workspace, modelURL, stateDir] = process.argv.slice(2);
const timer = setTimeout(() => {
  console.error("timed out");
  process.exit(2);
}, 60000);

// startRein starts one `rein acp` process and the NDJSON stream over its
// stdio; exited resolves when the process has gone.
function startRein() {
  const child = spawn(rein, ["acp", "-e", modelURL, "-k", "sk-acp-sdk", "--state-dir", stateDir], {
    cwd: workspace,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, stream, exited };
}

function text(prompt) {
  return [{ type: "text", text: prompt }];
}

// basic: streaming text, an edit shown as a diff, allow-once and reject
// approvals, a mode switch.
async function basic() {
  const { child, stream } = startRein();
  const updates = [];
  const permissions = [];
  const answers = ["allow_once", "reject_once"];
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
      for (const prompt of ["edit the notes", "run a command", "run another"]) {
        const res = await cx.request("session/prompt", { sessionId: session.sessionId, prompt: text(prompt) });
        stops.push(res.stopReason);
      }
      await cx.request("session/set_mode", { sessionId: session.sessionId, modeId: "full" });
      return { init, modes: session.modes, stops };
    });
  child.stdin.end();
  return { ...result, updates, permissions };
}

// fsCancel: the editor offers its fs methods, so rein reads the editor's
// buffer and writes through it; then a streaming turn is cancelled as soon
// as its first chunk shows, and one more prompt runs after it.
async function fsCancel() {
  const { child, stream } = startRein();
  const updates = [];
  const reads = [];
  const writes = [];
  let sawChunk;
  const firstChunk = new Promise((resolve) => (sawChunk = resolve));
  const result = await acp
    .client()
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
      if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content?.text?.includes("partial")) {
        sawChunk();
      }
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      reads.push(params);
      return { content: "unsaved buffer\n" };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      writes.push(params);
      return {};
    })
    .onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }))
    .connectWith(stream, async (cx) => {
      await cx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      });
      const { sessionId } = await cx.request("session/new", { cwd: workspace, mcpServers: [] });
      const stops = [];
      stops.push((await cx.request("session/prompt", { sessionId, prompt: text("read and write") })).stopReason);
      const turn = cx.request("session/prompt", { sessionId, prompt: text("talk") });
      await firstChunk;
      const start = Date.now();
      await cx.notify("session/cancel", { sessionId });
      stops.push((await turn).stopReason);
      // The session outlives the cancelled turn.
      stops.push((await cx.request("session/prompt", { sessionId, prompt: text("again") })).stopReason);
      return { sessionId, stops, cancelMillis: Date.now() - start };
    });
  child.stdin.end();
  return { ...result, updates, reads, writes };
}

// load: one prompt, then the agent is killed with SIGKILL; a new agent
// loads the session, which replays its history, and a prompt continues it.
async function load() {
  const first = startRein();
  const before = await acp
    .client()
    .onNotification("session/update", () => {})
    .connectWith(first.stream, async (cx) => {
      await cx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await cx.request("session/new", { cwd: workspace, mcpServers: [] });
      const res = await cx.request("session/prompt", { sessionId, prompt: text("hello there") });
      return { sessionId, stop: res.stopReason };
    });
  first.child.kill("SIGKILL");
  const killed = await first.exited;

  const second = startRein();
  const replay = [];
  const later = [];
  let loaded = false;
  const after = await acp
    .client()
    .onNotification("session/update", ({ params }) => {
      (loaded ? later : replay).push(params);
    })
    .connectWith(second.stream, async (cx) => {
      const init = await cx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const res = await cx.request("session/load", { sessionId: before.sessionId, cwd: workspace, mcpServers: [] });
      loaded = true;
      const next = await cx.request("session/prompt", { sessionId: before.sessionId, prompt: text("go on") });
      return { loadSession: init.agentCapabilities?.loadSession, modes: res.modes, stop: next.stopReason };
    });
  second.child.stdin.end();
  return { before, killed, after, replay, later };
}

// permissionCancel: the user cancels while rein waits on a permission
// request; as the protocol asks, the client then answers the pending
// request "cancelled". The turn ends cancelled and the session goes on.
async function permissionCancel() {
  const { child, stream } = startRein();
  const updates = [];
  let asked;
  const question = new Promise((resolve) => (asked = resolve));
  const result = await acp
    .client()
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    })
    .onRequest("session/request_permission", ({ params }) => new Promise((answer) => asked({ params, answer })))
    .connectWith(stream, async (cx) => {
      await cx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await cx.request("session/new", { cwd: workspace, mcpServers: [] });
      const turn = cx.request("session/prompt", { sessionId, prompt: text("run it") });
      const { params, answer } = await question;
      await cx.notify("session/cancel", { sessionId });
      answer({ outcome: { outcome: "cancelled" } });
      const stops = [(await turn).stopReason];
      stops.push((await cx.request("session/prompt", { sessionId, prompt: text("again") })).stopReason);
      return { stops, toolCallId: params.toolCall.toolCallId };
    });
  child.stdin.end();
  return { ...result, updates };
}

const flows = { basic, "fs-cancel": fsCancel, "permission-cancel": permissionCancel, load };
if (!flows[mode]) {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
const summary = await flows[mode]();
clearTimeout(timer);
console.log(JSON.stringify(summary));
