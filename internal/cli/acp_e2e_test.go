package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// acpPeer drives `rein acp` with raw JSON-RPC lines, as an editor would.
type acpPeer struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan map[string]any
	// seen are the messages read while waiting for something else.
	seen []map[string]any
}

func startACP(t *testing.T, e *env, url string, extra ...string) *acpPeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	args := append([]string{"acp", "-e", url, "-k", "sk-acp-test", "--state-dir", filepath.Join(e.home, "state")}, extra...)
	cmd := exec.CommandContext(ctx, reinBinary(t), args...)
	cmd.Dir = e.workspace
	cmd.Env = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &acpPeer{t: t, cmd: cmd, stdin: stdin, lines: make(chan map[string]any, 256)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()} // stdout must carry protocol only
			}
			p.lines <- m
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("rein acp stderr:\n%s", stderr.String())
		}
	})
	return p
}

func (p *acpPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing to rein acp: %v", err)
	}
}

// next returns the next message matching ok, keeping the others in seen.
func (p *acpPeer) next(what string, ok func(map[string]any) bool) map[string]any {
	p.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, open := <-p.lines:
			if !open {
				p.t.Fatalf("rein acp ended waiting for %s", what)
			}
			if _, bad := m["unparsable"]; bad {
				p.t.Fatalf("stdout carried a non-JSON line: %v", m["unparsable"])
			}
			if ok(m) {
				return m
			}
			p.seen = append(p.seen, m)
		case <-timeout:
			p.t.Fatalf("no %s within 30s; seen %v", what, p.seen)
		}
	}
}

func (p *acpPeer) response(id float64) map[string]any {
	p.t.Helper()
	return p.next("the response to request "+jsonString(id), func(m map[string]any) bool { return m["id"] == id && m["method"] == nil })
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }

// call sends a request and returns its result, failing on an error.
func (p *acpPeer) call(id float64, method string, params any) map[string]any {
	p.t.Helper()
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
	m := p.response(id)
	if m["error"] != nil {
		p.t.Fatalf("%s: error %v", method, m["error"])
	}
	res, _ := m["result"].(map[string]any)
	return res
}

func (p *acpPeer) initialize() {
	p.t.Helper()
	res := p.call(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}}})
	if res["protocolVersion"] != float64(1) {
		p.t.Fatalf("initialize: %v", res)
	}
}

// updates returns the session/update kinds seen so far, with their updates.
func (p *acpPeer) updates() []map[string]any {
	var out []map[string]any
	for _, m := range p.seen {
		if m["method"] == "session/update" {
			params, _ := m["params"].(map[string]any)
			u, _ := params["update"].(map[string]any)
			out = append(out, u)
		}
	}
	return out
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestACPHostileInput(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t)
	p := startACP(t, e, srv.URL)
	p.send("this is not json")
	if m := p.next("a parse error", func(m map[string]any) bool { return m["error"] != nil }); errorCode(m) != -32700 || m["id"] != nil {
		t.Fatalf("garbage: %v", m)
	}
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`)
	if m := p.next("a batch error", func(m map[string]any) bool { return m["error"] != nil }); errorCode(m) != -32600 {
		t.Fatalf("batch: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	if m := p.response(2); errorCode(m) != -32600 || !strings.Contains(jsonString(m), "initialize") {
		t.Fatalf("before initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"one"}}`)
	if m := p.response(3); errorCode(m) != -32602 {
		t.Fatalf("wrong type: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":0}}`)
	if m := p.response(4); errorCode(m) != -32602 || !strings.Contains(jsonString(m), "version 1") {
		t.Fatalf("old version: %v", m)
	}
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":5,"method":"no/such","params":{}}`)
	if m := p.response(5); errorCode(m) != -32601 {
		t.Fatalf("unknown method: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`)
	if m := p.response(6); errorCode(m) != -32602 {
		t.Fatalf("unknown session: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`)
	if m := p.response(7); errorCode(m) != -32602 {
		t.Fatalf("relative cwd: %v", m)
	}
	// Still in step after all that.
	res := p.call(8, "session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}})
	if res["sessionId"] == "" || res["sessionId"] == nil {
		t.Fatalf("session/new: %v", res)
	}
}

func TestACPPromptStreamsAndEditsWithDiff(t *testing.T) {
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("old line\n"), 0o644)
	srv := modeltest.NewServer(t,
		sse(toolBody("call_1", "write_file", `{"path":"notes.txt","content":"new line\n"}`)),
		sse(textBody("Edited ", "the file.")))
	p := startACP(t, e, srv.URL)
	p.initialize()
	res := p.call(1, "session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}})
	id := res["sessionId"].(string)
	modes, _ := res["modes"].(map[string]any)
	if modes["currentModeId"] != "editor" || len(modes["availableModes"].([]any)) != 3 {
		t.Fatalf("modes: %v", modes)
	}
	out := p.call(2, "session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "edit notes"}}})
	if out["stopReason"] != "end_turn" {
		t.Fatalf("stopReason: %v", out)
	}
	var text strings.Builder
	var sawCall, sawDiff, sawThought bool
	for _, u := range p.updates() {
		switch u["sessionUpdate"] {
		case "agent_message_chunk":
			text.WriteString(u["content"].(map[string]any)["text"].(string))
		case "agent_thought_chunk":
			sawThought = true
		case "tool_call":
			sawCall = u["toolCallId"] == "call_1" && u["kind"] == "edit" && u["status"] == "pending" &&
				strings.HasSuffix(jsonString(u["locations"]), `notes.txt"}]`)
		case "tool_call_update":
			for _, c := range asList(u["content"]) {
				if c["type"] == "diff" && c["oldText"] == "old line\n" && c["newText"] == "new line\n" && u["status"] == "completed" {
					sawDiff = true
				}
			}
		}
	}
	if text.String() != "Edited the file." || !sawCall || !sawDiff || !sawThought {
		t.Fatalf("text %q call %v diff %v thought %v; updates %v", text.String(), sawCall, sawDiff, sawThought, p.updates())
	}
	if data, _ := os.ReadFile(filepath.Join(e.workspace, "notes.txt")); string(data) != "new line\n" {
		t.Fatalf("file: %q", data)
	}
}

func asList(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
