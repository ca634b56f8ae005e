package cli_test

import (
	"fmt"
	"github.com/google/go-cmp/cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

func TestACPClientFileSystem(t *testing.T) {
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.workspace, "a.txt"), []byte("on disk\n"), 0o644)
	srv := modeltest.NewServer(t,
		sse(toolBody("r1", "read_file", `{"path":"a.txt"}`)),
		sse(toolBody("w1", "write_file", `{"path":"b.txt","content":"written\n"}`)),
		sse(textBody("done")))
	p := startACP(t, e, srv.URL)
	res := p.call(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}})
	if res["protocolVersion"] != float64(1) {
		t.Fatalf("initialize: %v", res)
	}
	id := p.call(1, "session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}})["sessionId"].(string)
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": promptParams(id, "read and write")}))
	read := p.next("fs/read_text_file", func(m map[string]any) bool { return m["method"] == "fs/read_text_file" })
	if params := read["params"].(map[string]any); params["path"] != filepath.Join(e.workspace, "a.txt") || params["sessionId"] != id {
		t.Fatalf("read request: %v", read)
	}
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": read["id"], "result": map[string]any{"content": "unsaved buffer\n"}}))
	write := p.next("fs/write_text_file", func(m map[string]any) bool { return m["method"] == "fs/write_text_file" })
	if params := write["params"].(map[string]any); params["path"] != filepath.Join(e.workspace, "b.txt") || params["content"] != "written\n" {
		t.Fatalf("write request: %v", write)
	}
	p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": write["id"], "result": nil}))
	if m := p.response(2); jsonString(m["result"]) != `{"stopReason":"end_turn"}` {
		t.Fatalf("prompt: %v", m)
	}
	reqs := srv.Requests()
	if body := string(reqs[1].Body); !strings.Contains(body, "unsaved buffer") || strings.Contains(body, "on disk") {
		t.Fatalf("the model did not see the editor's buffer: %s", body)
	}
	// rein wrote and journaled the file itself as well.
	if data, _ := os.ReadFile(filepath.Join(e.workspace, "b.txt")); string(data) != "written\n" {
		t.Fatalf("b.txt: %q", data)
	}
}

func TestACPPlanFromTodoWrite(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		sse(toolBody("p1", "todo_write", `{"todos":[{"content":"Read the code","status":"completed"},{"content":"Fix the bug","status":"in_progress"}]}`)),
		sse(textBody("planned")))
	p, id := newACPSession(t, e, srv)
	p.call(2, "session/prompt", promptParams(id, "plan it"))
	want := `{"entries":[{"content":"Read the code","priority":"medium","status":"completed"},{"content":"Fix the bug","priority":"medium","status":"in_progress"}],"sessionUpdate":"plan"}`
	if !strings.Contains(jsonString(p.updates()), want) {
		t.Fatalf("no plan update %s in %s", want, jsonString(p.updates()))
	}
}

func TestACPEditorMCPServer(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	p := startACP(t, e, srv.URL)
	p.initialize()
	server := map[string]any{"name": "editorside", "command": reinBinary(t), "args": []any{"mcp", "serve"}, "env": []any{map[string]any{"name": "HOME", "value": e.home}}}
	id := p.call(1, "session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{server}})["sessionId"].(string)
	p.call(2, "session/prompt", promptParams(id, "which tools?"))
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, "editorside") {
		t.Fatalf("the editor's MCP server's tools were not offered: %.3000s", body)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"` + e.workspace + `","mcpServers":[{"name":"x","type":"sse","url":"http://127.0.0.1:1/"}]}}`)
	if m := p.response(3); errorCode(m) != -32602 {
		t.Fatalf("an sse server: %v", m)
	}
}

func TestACPCustomCommands(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.workspace, ".rein", "commands")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "greet.md"), []byte("---\ndescription: Greet someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS politely.\n"), 0o644)
	srv := modeltest.NewServer(t, sse(textBody("Hello Bob")))
	p, id := newACPSession(t, e, srv)
	update := p.next("the available commands", func(m map[string]any) bool {
		return strings.Contains(jsonString(m), `"sessionUpdate":"available_commands_update"`)
	})
	if s := jsonString(update); !strings.Contains(s, `{"description":"Greet someone","input":{"hint":"NAME"},"name":"greet"}`) || !strings.Contains(s, id) {
		t.Fatalf("available commands: %s", s)
	}
	p.call(2, "session/prompt", promptParams(id, "/greet Bob"))
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, "Say hello to Bob politely.") {
		t.Fatalf("the command was not expanded: %.2000s", body)
	}
}

func TestACPCommandOutputStreams(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t,
		sse(toolBody("x1", "run_command", `{"command":"echo first-line && sleep 1 && echo second-line"}`)),
		sse(textBody("ran")))
	p := startACP(t, e, srv.URL, "--approve", "auto")
	p.initialize()
	id := p.call(1, "session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}})["sessionId"].(string)
	p.call(2, "session/prompt", promptParams(id, "run"))
	live, final := false, false
	for _, u := range p.updates() {
		if u["sessionUpdate"] != "tool_call_update" || u["toolCallId"] != "x1" {
			continue
		}
		s := jsonString(u["content"])
		switch u["status"] {
		case "in_progress":
			live = live || (strings.Contains(s, "first-line") && !strings.Contains(s, "second-line"))
		case "completed":
			final = strings.Contains(s, "second-line")
		}
	}
	if !live || !final {
		t.Fatalf("live %v final %v: %s", live, final, jsonString(p.updates()))
	}
}

// TestACPSkills: the skills are offered as commands (a custom command of
// the same name shadows one), and "/NAME ARGS" runs ARGS with the skill
// active: its body reaches the model and its allowed-tools narrow the
// turn's tools.
func TestACPSkills(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, filepath.Join(e.workspace, ".claude", "skills"), map[string]string{
		"reader/SKILL.md": "---\nname: reader\ndescription: Reads things.\nallowed-tools: Read Grep\n---\nOnly read, carefully-skill-body.\n",
		"greet/SKILL.md":  "---\nname: greet\ndescription: A skill the command hides.\n---\nbody\n",
	})
	writeFiles(t, filepath.Join(e.workspace, ".rein", "commands"), map[string]string{
		"greet.md": "---\ndescription: Greet someone\n---\nSay hello.\n",
	})
	srv := modeltest.NewServer(t, sse(textBody("read it")))
	p, id := newACPSession(t, e, srv)
	update := p.next("the available commands", func(m map[string]any) bool {
		return strings.Contains(jsonString(m), `"sessionUpdate":"available_commands_update"`)
	})
	s := jsonString(update)
	if !strings.Contains(s, `"description":"skill: Reads things.","input":{"hint":"what to do with the skill"},"name":"reader"`) {
		t.Errorf("the skill is not offered: %s", s)
	}
	if strings.Contains(s, "A skill the command hides") || !strings.Contains(s, `"name":"greet"`) {
		t.Errorf("the custom command does not shadow the skill of its name: %s", s)
	}
	p.call(2, "session/prompt", promptParams(id, "/reader the notes"))
	body := srv.Requests()[0].Body
	if !strings.Contains(string(body), "carefully-skill-body") || !strings.Contains(string(body), "the notes") {
		t.Errorf("the skill was not active for the turn: %.3000s", body)
	}
	if diff := cmp.Diff([]string{"grep", "read_file"}, offeredTools(t, body)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestACPElicitationThroughTheEditor: an MCP server's form question is put
// to the editor's user with elicitation/create when the editor offers
// forms, and the answer reaches the server; an editor that does not offer
// them is never asked, and the server hears a decline.
func TestACPElicitationThroughTheEditor(t *testing.T) {
	node := interopPeer(t, "node_modules/.bin/node")
	js := interopPeer(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	for _, offered := range []bool{true, false} {
		t.Run(fmt.Sprintf("offered=%v", offered), func(t *testing.T) {
			e := newEnv(t)
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "everything__trigger-elicitation-request", `{}`)),
				sse(textBody("asked")))
			p := startACP(t, e, srv.URL, "--approve", "auto")
			caps := map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}}
			if offered {
				caps["elicitation"] = map[string]any{"form": map[string]any{}}
			}
			p.call(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps})
			server := map[string]any{"name": "everything", "command": node, "args": []any{js, "stdio"}}
			id := p.call(1, "session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{server}})["sessionId"].(string)
			p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": promptParams(id, "ask me")}))
			if offered {
				q := p.next("the elicitation", func(m map[string]any) bool { return m["method"] == "elicitation/create" })
				params, _ := q["params"].(map[string]any)
				if params["sessionId"] != id || params["mode"] != "form" || params["requestedSchema"] == nil || params["message"] == "" {
					t.Fatalf("elicitation/create: %v", q)
				}
				p.send(jsonString(map[string]any{"jsonrpc": "2.0", "id": q["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"name": "Ann Example", "check": true, "email": "ann@example.com", "integer": 7}}}))
			}
			p.response(2)
			got := toolResults(t, srv.Requests()[1].Body)["c1"]
			for _, m := range p.seen {
				if !offered && m["method"] == "elicitation/create" {
					t.Fatalf("an editor without forms was asked: %v", m)
				}
			}
			if offered && !strings.Contains(got, "Ann Example") {
				t.Errorf("the editor's answer did not reach the server: %q", got)
			}
			if !offered && !strings.Contains(strings.ToLower(got), "decline") {
				t.Errorf("the server did not hear a decline: %q", got)
			}
		})
	}
}
