package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as stdio MCP servers: with REIN_MCP_FIXTURE set,
// TestMain runs the named fixture instead of the tests.
//
//   - "raw": a hand-written legacy-era server whose faults are chosen by
//     FIXTURE_* variables (see rawServer); it appends every message it
//     receives to FIXTURE_LOG.
//   - "gosdk": a go-sdk stdio server with an echo tool (the benchmark peer).
//   - "tasks": rein's own server with task tools (see taskPeer).
func TestMain(m *testing.M) {
	switch os.Getenv("REIN_MCP_FIXTURE") {
	case "":
		// Every goroutine a test starts must end with it.
		goleak.VerifyTestMain(m)
	case "raw":
		os.Exit(rawServer())
	case "gosdk":
		os.Exit(goSDKStdioServer())
	case "tasks":
		os.Exit(taskStdioServer())
	default:
		fmt.Fprintln(os.Stderr, "unknown REIN_MCP_FIXTURE")
		os.Exit(2)
	}
}

// fixture returns a ServerConfig that runs the test binary as the raw
// fixture with the given FIXTURE_* settings, logging received messages to
// a file the test can read with fixtureLog.
func fixture(t testing.TB, name string, env map[string]string) (ServerConfig, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := t.TempDir() + "/messages.jsonl"
	e := Secrets{"REIN_MCP_FIXTURE": "raw", "FIXTURE_LOG": log}
	for k, v := range env {
		e[k] = v
	}
	return ServerConfig{Name: name, Command: exe, Args: []string{"-test.run=^$"}, Env: e}, log
}

// fixtureLog returns the methods (and ids) the fixture received, as
// "method" or "method#id" strings.
func fixtureLog(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		switch {
		case m.Method == "notifications/cancelled":
			out = append(out, m.Method+"#"+string(m.Params.RequestID))
		case m.Method != "":
			out = append(out, m.Method)
		default:
			out = append(out, "response#"+string(m.ID))
		}
	}
	return out
}

// rawMessage is what the raw fixture reads.
type rawMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// rawServer is a legacy-era MCP server written against the wire, so that
// it can misbehave in ways no SDK allows:
//
//	FIXTURE_SILENT_DISCOVER=1  never answer server/discover
//	FIXTURE_HANG=1             never answer anything
//	FIXTURE_GARBAGE=1          write garbage to stdout instead of answering
//	FIXTURE_BANNER=1           print a banner line to stdout first
//	FIXTURE_MODERN=1           answer server/discover (2026-07-28) and, like
//	                           the TypeScript SDK's serveStdio, keep the era
//	                           the first message chose: initialize after a
//	                           discover is refused
//	FIXTURE_SLOW_START=DUR     read nothing for DUR after starting
//
// Tools: echo {text}, crash, big {bytes}, slow, progress, elicit, sample,
// whoami (pid and call count), garbage (answers with garbage).
func rawServer() int {
	logf, _ := os.OpenFile(os.Getenv("FIXTURE_LOG"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	var mu sync.Mutex
	send := func(v any) {
		data, _ := json.Marshal(v)
		mu.Lock()
		out.Write(data)
		out.WriteByte('\n')
		out.Flush()
		mu.Unlock()
	}
	fmt.Fprintln(os.Stderr, "fixture: starting")
	if os.Getenv("FIXTURE_BANNER") == "1" {
		fmt.Println("fixture server v1 ready")
	}
	if os.Getenv("FIXTURE_GARBAGE") == "1" {
		fmt.Fprintln(os.Stderr, "fixture: about to print garbage")
		for range 100 {
			fmt.Println("this is not JSON-RPC at all")
		}
		time.Sleep(time.Minute)
		return 0
	}
	var (
		pending sync.Map // id → chan json.RawMessage
		calls   atomic.Int64
		nextID  atomic.Int64
	)
	ask := func(method string, params any) json.RawMessage {
		id := fmt.Sprintf("srv-%d", nextID.Add(1))
		ch := make(chan json.RawMessage, 1)
		pending.Store(id, ch)
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		select {
		case r := <-ch:
			return r
		case <-time.After(20 * time.Second):
			return nil
		}
	}
	if d, err := time.ParseDuration(os.Getenv("FIXTURE_SLOW_START")); err == nil {
		time.Sleep(d)
	}
	modern := os.Getenv("FIXTURE_MODERN") == "1"
	opening := ""           // the first method received, which fixes the era
	cancelled := sync.Map{} // request id → chan struct{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := slices.Clone(sc.Bytes())
		if logf != nil {
			logf.Write(append(line, '\n'))
		}
		var msg rawMessage
		if json.Unmarshal(line, &msg) != nil {
			continue
		}
		if msg.Method == "" { // a response to one of our requests
			var id string
			_ = json.Unmarshal(msg.ID, &id)
			if ch, ok := pending.Load(id); ok {
				ch.(chan json.RawMessage) <- line
			}
			continue
		}
		if os.Getenv("FIXTURE_HANG") == "1" {
			continue
		}
		if opening == "" {
			opening = msg.Method
		}
		reply := func(result any) {
			// A 2026-07-28 result says what it is, unless the test wants
			// a non-conforming server (FIXTURE_NO_RESULT_TYPE).
			if r, ok := result.(map[string]any); ok && modern && opening == "server/discover" &&
				r["resultType"] == nil && os.Getenv("FIXTURE_NO_RESULT_TYPE") != "1" {
				r["resultType"] = "complete"
			}
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		}
		fail := func(code int, text string) {
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": code, "message": text}})
		}
		switch msg.Method {
		case "server/discover":
			switch {
			case modern:
				reply(map[string]any{
					"supportedVersions": []string{ProtocolModern},
					"capabilities":      map[string]any{"tools": map[string]any{}},
					"ttlMs":             0, "cacheScope": "private",
					"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "raw-fixture", "version": "1"}},
				})
			case os.Getenv("FIXTURE_SILENT_DISCOVER") != "1":
				fail(-32601, "Method not found")
			}
		case "initialize":
			if modern && opening == "server/discover" {
				fail(-32022, "this connection speaks 2026-07-28; initialize is not accepted after server/discover")
				continue
			}
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			v := p.ProtocolVersion
			if v != Protocol250618 && v != Protocol251125 && v != Protocol250326 {
				v = Protocol251125
			}
			reply(map[string]any{
				"protocolVersion": v,
				"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":      map[string]any{"name": "raw-fixture", "version": "1"},
			})
		case "ping":
			reply(map[string]any{})
		case "tools/list":
			var tools []map[string]any
			for _, n := range []string{"echo", "crash", "big", "slow", "progress", "elicit", "sample", "whoami", "garbage"} {
				tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
			}
			if os.Getenv("FIXTURE_CRASH_MARK") != "" {
				// crashonce exits on its first call (in any process of
				// this fixture) and answers afterwards; FIXTURE_CRASH_HINT
				// names the annotation it declares, if any.
				t := map[string]any{"name": "crashonce", "inputSchema": map[string]any{"type": "object"}}
				if h := os.Getenv("FIXTURE_CRASH_HINT"); h != "" {
					t["annotations"] = map[string]any{h: true}
				}
				tools = append(tools, t)
			}
			reply(map[string]any{"tools": tools, "ttlMs": 0, "cacheScope": "private"})
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			if ch, ok := cancelled.Load(string(p.RequestID)); ok {
				close(ch.(chan struct{}))
			}
		case "tools/call":
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				Meta      struct {
					ProgressToken any `json:"progressToken"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			n := calls.Add(1)
			text := func(s string) { reply(map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}) }
			switch p.Name {
			case "echo":
				var a struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(p.Arguments, &a)
				text("echo: " + a.Text)
			case "whoami":
				text(fmt.Sprintf("pid %d call %d", os.Getpid(), n))
			case "crashonce":
				var meta struct {
					Meta map[string]any `json:"_meta"`
				}
				_ = json.Unmarshal(msg.Params, &meta)
				mark := os.Getenv("FIXTURE_CRASH_MARK")
				if _, err := os.Stat(mark); err != nil {
					os.WriteFile(mark, []byte("crashed"), 0o644)
					fmt.Fprintln(os.Stderr, "fixture: crashonce crashing")
					os.Exit(4)
				}
				text(fmt.Sprintf("answered by pid %d, key %v", os.Getpid(), meta.Meta[MetaIdempotencyKey]))
			case "crash":
				fmt.Fprintln(os.Stderr, "fixture: simulated crash in the crash tool")
				os.Exit(3)
			case "garbage":
				for range 20 {
					send("garbage instead of an answer")
				}
				mu.Lock()
				os.Stdout.Write([]byte("\x00\x01not json\n"))
				mu.Unlock()
			case "big":
				var a struct {
					Bytes int `json:"bytes"`
				}
				_ = json.Unmarshal(p.Arguments, &a)
				mu.Lock()
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, msg.ID)
				chunk := strings.Repeat("0123456789abcdef", 4096)
				for left := a.Bytes; left > 0; left -= len(chunk) {
					out.WriteString(chunk[:min(left, len(chunk))])
				}
				out.WriteString("\"}]}}\n")
				out.Flush()
				mu.Unlock()
			case "slow":
				ch := make(chan struct{})
				cancelled.Store(string(msg.ID), ch)
				go func() {
					select {
					case <-ch:
						fmt.Fprintln(os.Stderr, "fixture: slow call cancelled")
					case <-time.After(30 * time.Second):
						text("slow done")
					}
				}()
			case "progress":
				for i := 1; i <= 2; i++ {
					send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{
						"progressToken": p.Meta.ProgressToken, "progress": i, "total": 2, "message": "step " + strconv.Itoa(i)}})
				}
				text("progressed")
			case "elicit", "sample":
				go func(id json.RawMessage, name string) {
					var resp json.RawMessage
					if name == "elicit" {
						resp = ask("elicitation/create", map[string]any{"message": "Continue?", "requestedSchema": map[string]any{
							"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
					} else {
						resp = ask("sampling/createMessage", map[string]any{"maxTokens": 10, "messages": []any{
							map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hi"}}}})
					}
					send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
						"content": []any{map[string]any{"type": "text", "text": string(resp)}}}})
				}(msg.ID, p.Name)
			default:
				fail(-32602, "unknown tool "+p.Name)
			}
		default:
			if len(msg.ID) > 0 {
				fail(-32601, "Method not found")
			}
		}
	}
	return 0
}

// goSDKStdioServer serves an echo tool with the go-sdk over stdio.
func goSDKStdioServer() int {
	s := sdk.NewServer(&sdk.Implementation{Name: "gosdk-fixture", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "echo text"}, func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: a.Text}}}, nil, nil
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
