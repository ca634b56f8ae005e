package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// newACPSession starts rein acp on srv and opens a session in e's workspace.
func newACPSession(t *testing.T, e *env, srv *modeltest.Server) (*acpPeer, string) {
	t.Helper()
	p := startACP(t, e, srv.URL)
	p.initialize()
	res := p.call(1, "session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}})
	return p, res["sessionId"].(string)
}

func promptParams(id, text string) map[string]any {
	return map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// answerPermission waits for a permission request and answers it with
// option, returning the request's params.
func (p *acpPeer) answerPermission(option string) map[string]any {
	p.t.Helper()
	req := p.next("a permission request", func(m map[string]any) bool { return m["method"] == "session/request_permission" })
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}}))
	params, _ := req["params"].(map[string]any)
	return params
}

func TestACPApprovalAllowOnceAndReject(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"touch allowed.txt"}`)),
		sse(textBody("ran it")),
		sse(toolBody("c2", "run_command", `{"command":"touch rejected.txt"}`)),
		sse(textBody("did not")))
	p, id := newACPSession(t, e, srv)
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": promptParams(id, "run it")}))
	params := p.answerPermission("allow_once")
	kinds := map[string]bool{}
	for _, o := range asList(params["options"]) {
		kinds[o["kind"].(string)] = true
	}
	tc, _ := params["toolCall"].(map[string]any)
	if !kinds["allow_once"] || !kinds["reject_once"] || !kinds["reject_always"] || tc["toolCallId"] != "c1" || tc["kind"] != "execute" {
		t.Fatalf("permission request: %v", params)
	}
	if m := p.response(2); jsonString(m["result"]) != `{"stopReason":"end_turn"}` {
		t.Fatalf("prompt: %v", m)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "allowed.txt")); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": promptParams(id, "run another")}))
	p.answerPermission("reject_once")
	if m := p.response(3); jsonString(m["result"]) != `{"stopReason":"end_turn"}` {
		t.Fatalf("prompt: %v", m)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "rejected.txt")); err == nil {
		t.Fatal("the rejected command ran")
	}
	failed := false
	for _, u := range p.updates() {
		if u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == "c2" && u["status"] == "failed" {
			failed = true
		}
	}
	if !failed {
		t.Fatalf("the rejected call was not reported failed: %v", p.updates())
	}
}

func TestACPCancelBusyAndClientGone(t *testing.T) {
	e := newEnv(t)
	body := textBody("partial ", "never shown")
	cut := strings.Index(body, "never")
	srv := modeltest.NewServer(t,
		modeltest.Stall(body, cut-20, time.Minute),
		modeltest.Stall(body, cut-20, time.Minute))
	p, id := newACPSession(t, e, srv)
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": promptParams(id, "talk")}))
	p.next("the first chunk", func(m map[string]any) bool { return strings.Contains(jsonString(m), "partial") })
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": promptParams(id, "again")}))
	if m := p.response(3); errorCode(m) != -32600 {
		t.Fatalf("a second prompt while one runs: %v", m)
	}
	start := time.Now()
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": id}}))
	if m := p.response(2); jsonString(m["result"]) != `{"stopReason":"cancelled"}` || time.Since(start) > 10*time.Second {
		t.Fatalf("cancel: %v after %v", m, time.Since(start))
	}
	// The editor goes away in the middle of a turn: rein ends cleanly.
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": promptParams(id, "once more")}))
	p.next("the second turn's chunk", func(m map[string]any) bool { return strings.Contains(jsonString(m), "partial") })
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("rein acp exited with %v after the client left", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("rein acp did not exit after the client left")
	}
}

func TestACPLoadAfterKillAndSetMode(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t, sse(textBody("first answer")), sse(textBody("second answer")))
	p, id := newACPSession(t, e, srv)
	p.call(2, "session/prompt", promptParams(id, "hello there"))
	p.cmd.Process.Kill()
	p.cmd.Wait()

	q := startACP(t, e, srv.URL)
	q.initialize()
	res := q.call(1, "session/load", map[string]any{"sessionId": id, "cwd": e.workspace, "mcpServers": []any{}})
	if res["modes"] == nil {
		t.Fatalf("session/load: %v", res)
	}
	replay := jsonString(q.updates())
	if !strings.Contains(replay, `"sessionUpdate":"user_message_chunk"`) || !strings.Contains(replay, "hello there") || !strings.Contains(replay, "first answer") {
		t.Fatalf("replay: %s", replay)
	}
	q.call(2, "session/set_mode", map[string]any{"sessionId": id, "modeId": "read-only"})
	if !strings.Contains(jsonString(q.updates()), `"currentModeId":"read-only","sessionUpdate":"current_mode_update"`) {
		t.Fatalf("no mode update: %v", q.updates())
	}
	q.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/set_mode", "params": map[string]any{"sessionId": id, "modeId": "yolo"}}))
	if m := q.response(3); errorCode(m) != -32602 {
		t.Fatalf("unknown mode: %v", m)
	}
	if out := q.call(4, "session/prompt", promptParams(id, "go on")); out["stopReason"] != "end_turn" {
		t.Fatalf("prompt after load: %v", out)
	}
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "first answer") || !strings.Contains(last, "go on") {
		t.Fatalf("the continued session did not carry its history: %s", last)
	}
}

func TestACPUnansweredPermissionCancels(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"touch never.txt"}`)),
		sse(textBody("unused")))
	p, id := newACPSession(t, e, srv)
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": promptParams(id, "run it")}))
	req := p.next("a permission request", func(m map[string]any) bool { return m["method"] == "session/request_permission" })
	// The editor never answers; the user cancels the turn.
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": id}}))
	if m := p.response(2); jsonString(m["result"]) != `{"stopReason":"cancelled"}` {
		t.Fatalf("cancel during a permission request: %v", m)
	}
	// A late answer to the withdrawn request is ignored, and nothing ran.
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}}))
	p.call(3, "session/set_mode", map[string]any{"sessionId": id, "modeId": "full"})
	if _, err := os.Stat(filepath.Join(e.workspace, "never.txt")); err == nil {
		t.Fatal("the command ran without an answer")
	}
}

func TestACPApprovalAlwaysAndRejectAlways(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		sse(toolBody("a1", "run_command", `{"command":"touch one.txt"}`)),
		sse(textBody("1")),
		sse(toolBody("a2", "run_command", `{"command":"touch one.txt"}`)),
		sse(textBody("2")),
		sse(toolBody("b1", "run_command", `{"command":"touch two.txt"}`)),
		sse(textBody("3")),
		sse(toolBody("b2", "run_command", `{"command":"touch two.txt"}`)),
		sse(textBody("4")))
	p, id := newACPSession(t, e, srv)
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": promptParams(id, "1")}))
	params := p.answerPermission("allow_always")
	if !strings.Contains(jsonString(params["options"]), `"kind":"allow_always"`) {
		t.Fatalf("no allow_always offered: %v", params)
	}
	p.response(2)
	os.Remove(filepath.Join(e.workspace, "one.txt"))
	// Allowed always: the same command runs without a question.
	p.call(3, "session/prompt", promptParams(id, "2"))
	if _, err := os.Stat(filepath.Join(e.workspace, "one.txt")); err != nil {
		t.Fatalf("the command allowed always did not run again: %v", err)
	}
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": promptParams(id, "3")}))
	p.answerPermission("reject_always")
	p.response(4)
	// Rejected always: the same command is denied without a question.
	p.call(5, "session/prompt", promptParams(id, "4"))
	asked := 0
	for _, m := range p.seen {
		if m["method"] == "session/request_permission" {
			asked++
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "two.txt")); err == nil || asked != 0 {
		t.Fatalf("reject always: ran=%v, questions left unread %d", err == nil, asked)
	}
	// Stored as a refusal in rein's permission store (never the
	// repository), listed as one, and honoured by a new rein acp.
	res := e.run(t, "permissions", "list", "--state-dir", filepath.Join(e.home, "state"))
	if !strings.Contains(res.stdout, "refused: command touch two.txt (exactly)") || !strings.Contains(res.stdout, "command touch one.txt (exactly)") {
		t.Fatalf("rein permissions list:\n%s%s", res.stdout, res.stderr)
	}
	p2, id2 := newACPSession(t, e, modeltest.NewServer(t, sse(toolBody("c1", "run_command", `{"command":"touch two.txt"}`)), sse(textBody("5"))))
	p2.call(2, "session/prompt", promptParams(id2, "5"))
	for _, m := range p2.seen {
		if m["method"] == "session/request_permission" {
			t.Fatalf("a refused command was asked about again: %v", m)
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "two.txt")); err == nil {
		t.Fatal("a command refused always ran in a new session")
	}
}
