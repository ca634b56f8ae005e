package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
)

// hostileNotifier is a 2025-11-25 stdio server, written against the wire,
// whose "flood" tool sends what a hostile server might while a call
// runs: thousands of log messages, a megabyte-long one, one with an
// undefined level and terminal escapes, updates of a resource nobody
// subscribed to and a thousand of one it did, and a line of garbage; then, after a pause, one last
// message.
const hostileNotifier = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const log = (level, data) => send({ jsonrpc: "2.0", method: "notifications/message", params: { level, logger: "evil\u001b[2J", data } });
rl.on("line", (line) => {
  let m; try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  switch (m.method) {
  case "initialize":
    return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", serverInfo: { name: "hostile", version: "1" },
      capabilities: { tools: {}, logging: {}, resources: { subscribe: true } } } });
  case "tools/list":
    return send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "flood", inputSchema: { type: "object" } }] } });
  case "tools/call":
    for (let i = 0; i < 5000; i++) log("error", "flood " + i);
    log("error", "huge " + "x".repeat(1 << 20));
    log("shouting", "odd level \u001b]0;title\u0007 end");
    log("error", { structured: [1, 2, 3] });
    for (let i = 0; i < 100; i++) send({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///secret" } });
    for (let i = 0; i < 1000; i++) send({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///watched" } });
    process.stdout.write("}}} not json {{{\n");
    setTimeout(() => { log("error", "after the flood"); send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "done" }] } }); }, 400);
    return;
  default:
    return send({ jsonrpc: "2.0", id: m.id, result: {} });
  }
});
`

// TestHostileNotifications: a flood of log messages reaches the caller
// bounded (a burst, then the rate), every message clipped and printable,
// drops counted; updates of unsubscribed resources are dropped; garbage
// does not end the session. Updates of a subscribed resource are bounded
// too.
func TestHostileNotifications(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	script := filepath.Join(t.TempDir(), "hostile.js")
	if err := os.WriteFile(script, []byte(hostileNotifier), 0o600); err != nil {
		t.Fatal(err)
	}
	n := newNotes()
	m, _ := newManager(t, n.config(Config{Servers: []ServerConfig{{Name: "hostile", Command: nodeBin(t), Args: []string{script}}}}))
	tools := mustTools(t, ctx, m)
	if err := m.Subscribe(ctx, "hostile", "file:///watched"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	wantContent(t, call(t, ctx, toolByName(t, tools, "hostile__flood"), `{}`), "done")
	elapsed := time.Since(start)
	var got []ServerLog
	for drained := false; !drained; {
		select {
		case l := <-n.logs:
			got = append(got, l)
		case <-time.After(200 * time.Millisecond):
			drained = true
		}
	}
	// A burst plus the rate over the call's duration, and a little slack.
	limit := logBurst + int(elapsed.Seconds()*logRate) + 2
	if len(got) == 0 || len(got) > limit {
		t.Fatalf("%d log messages delivered, want 1..%d", len(got), limit)
	}
	// Every message is either delivered or counted as dropped.
	const sent = 5000 + 4
	total := len(got)
	for _, l := range got {
		total += l.Dropped
	}
	if last := got[len(got)-1]; last.Text != "after the flood" || last.Dropped == 0 || total != sent {
		t.Errorf("last message %q with %d dropped, %d accounted for; want the last one, drops counted, %d in all", last.Text, last.Dropped, total, sent)
	}
	for _, l := range got {
		if len(l.Text) > maxLogText+len("…") || strings.ContainsFunc(l.Text+l.Logger, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
			t.Fatalf("unsafe message delivered: %q (logger %q)", clip(l.Text, 100), l.Logger)
		}
		if LogLevelRank(l.Level) < 0 {
			t.Errorf("level %q delivered", l.Level)
		}
	}
	// Updates are bounded like log messages, and those of resources nobody subscribed to are dropped.
	updates := 0
	for drained := false; !drained; {
		select {
		case u := <-n.updates:
			if u.URI != "file:///watched" {
				t.Fatalf("an update of an unsubscribed resource was delivered: %+v", u)
			}
			updates++
		default:
			drained = true
		}
	}
	if updates == 0 || updates > limit {
		t.Errorf("%d updates delivered, want 1..%d", updates, limit)
	}
	// The session survived the garbage.
	wantContent(t, call(t, ctx, toolByName(t, tools, "hostile__flood"), `{}`), "done")
}
