package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/tool"
)

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startNode runs a Node program as an HTTP server in its own process group
// and waits until 127.0.0.1:port accepts connections. The loopback shim is
// preloaded so the server cannot listen beyond 127.0.0.1.
func startNode(t testing.TB, port int, env []string, args ...string) {
	t.Helper()
	shim, err := filepath.Abs("testdata/loopback.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodeBin(t), append([]string{"--import", shim}, args...)...)
	cmd.Env = append(os.Environ(), append(env, "PORT="+strconv.Itoa(port))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr tailBuffer
	stderr.max = 8 << 10
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node server on port %d did not start: %s", port, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// modernScript returns the modern peer's script in a directory whose
// node_modules is the interop one (ESM resolves packages next to the
// script, not through NODE_PATH).
func modernScript(t testing.TB) string {
	t.Helper()
	nm := peer(t, "node_modules/@modelcontextprotocol/server/package.json")
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/modern-server.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "modern-server.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(filepath.Dir(filepath.Dir(nm))), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "modern-server.mjs")
}

func mustTools(t testing.TB, ctx context.Context, m *Manager) []tool.Tool {
	t.Helper()
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func wantContent(t testing.TB, res *tool.Result, want string) {
	t.Helper()
	if res.IsError || !strings.Contains(res.Content, want) {
		t.Errorf("result = %+v, want success containing %q", res, want)
	}
}

// checkEverything exercises server-everything through one transport.
func checkEverything(t *testing.T, ctx context.Context, m *Manager, wantTransport Transport) {
	tools := mustTools(t, ctx, m)
	st := m.Status(ctx)[0]
	if st.State != StateConnected || st.Transport != wantTransport || st.Era != Protocol251125 {
		t.Errorf("status = %+v, want connected over %s in the 2025-11-25 era", st, wantTransport)
	}
	wantContent(t, call(t, ctx, toolByName(t, tools, "every__echo"), `{"message":"hello rein"}`), "Echo: hello rein")
	wantContent(t, call(t, ctx, toolByName(t, tools, "every__get-sum"), `{"a":2,"b":40}`), "42")
	wantContent(t, call(t, ctx, toolByName(t, tools, "every__get-tiny-image"), `{}`), "[image image/png, ")
	wantContent(t, call(t, ctx, toolByName(t, tools, "every__get-resource-links"), `{"count":2}`), "[resource link: ")
	sc := call(t, ctx, toolByName(t, tools, "every__get-structured-content"), `{"location":"New York"}`)
	if sc.IsError || len(sc.Structured) == 0 || !json.Valid(sc.Structured) {
		t.Errorf("structured content = %+v", sc)
	}
	spec := toolByName(t, tools, "every__get-sum").Spec()
	if spec.Annotations.ReadOnlyHint == nil || !*spec.Annotations.ReadOnlyHint || spec.Effects.Network {
		t.Errorf("get-sum spec = %+v, want the read-only, closed-world hints mapped", spec)
	}
	if !strings.Contains(string(spec.InputSchema), `"a"`) {
		t.Errorf("input schema not passed through: %s", spec.InputSchema)
	}
	list := call(t, ctx, toolByName(t, tools, "every__list_resources"), `{}`)
	wantContent(t, list, "demo://resource/static/document/")
	wantContent(t, call(t, ctx, toolByName(t, tools, "every__read_resource"), `{"uri":"demo://resource/static/document/architecture.md"}`), "[resource <demo://resource/static/document/architecture.md>")
	prompts, err := m.Prompts(ctx, "every")
	if err != nil || len(prompts) == 0 {
		t.Fatalf("prompts = %v, %v", prompts, err)
	}
	pr, err := m.GetPrompt(ctx, "every", "simple-prompt", nil)
	if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Text != "This is a simple prompt without arguments." {
		t.Errorf("simple-prompt = %+v, %v", pr, err)
	}
}

func TestEverythingStdio(t *testing.T) {
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "every", Command: nodeBin(t), Args: []string{everythingJS(t), "stdio"}}}})
	checkEverything(t, testCtx(t, 60*time.Second), m, TransportStdio)
}

func TestEverythingStreamableHTTP(t *testing.T) {
	port := freePort(t)
	startNode(t, port, nil, everythingJS(t), "streamableHttp")
	var (
		mu       sync.Mutex
		progress []Progress
	)
	m, _ := newManager(t, Config{
		Servers: []ServerConfig{{Name: "every", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}},
		OnProgress: func(_ context.Context, p Progress) {
			mu.Lock()
			progress = append(progress, p)
			mu.Unlock()
		},
	})
	ctx := testCtx(t, 60*time.Second)
	checkEverything(t, ctx, m, TransportStreamable)
	tools := mustTools(t, ctx, m)
	wantContent(t, call(t, ctx, toolByName(t, tools, "every__trigger-long-running-operation"), `{"duration":0.4,"steps":2}`), "Long running operation completed")
	time.Sleep(progressGrace + 100*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != 2 || progress[1].Progress != 2 || progress[1].Total != 2 {
		t.Errorf("progress = %+v, want 2 of 2 steps", progress)
	}
}

func TestEverythingSSE(t *testing.T) {
	port := freePort(t)
	startNode(t, port, nil, everythingJS(t), "sse")
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "every", URL: fmt.Sprintf("http://127.0.0.1:%d/sse", port)}}})
	checkEverything(t, testCtx(t, 60*time.Second), m, TransportSSE)
}

// TestEverythingListChanged: server-everything registers its
// capability-dependent tools after initialization and says so with
// tools/list_changed; the next Tools call has them.
func TestEverythingListChanged(t *testing.T) {
	changed := make(chan string, 4)
	m, _ := newManager(t, Config{
		Servers:        []ServerConfig{{Name: "every", Command: nodeBin(t), Args: []string{everythingJS(t), "stdio"}}},
		Interaction:    Decline{},
		OnToolsChanged: func(s string) { changed <- s },
	})
	ctx := testCtx(t, 60*time.Second)
	mustTools(t, ctx, m)
	select {
	case s := <-changed:
		if s != "every" {
			t.Errorf("changed server = %q", s)
		}
	case <-ctx.Done():
		t.Fatal("no tools/list_changed")
	}
	tools := mustTools(t, ctx, m)
	res := call(t, ctx, toolByName(t, tools, "every__trigger-elicitation-request"), `{}`)
	if res.IsError || !strings.Contains(strings.ToLower(res.Content), "decline") {
		t.Errorf("elicitation under Decline → %+v", res)
	}
}

func TestFilesystemServer(t *testing.T) {
	js := peer(t, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("rein was here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "fs", Command: nodeBin(t), Args: []string{js, dir}}}})
	ctx := testCtx(t, 60*time.Second)
	tools := mustTools(t, ctx, m)
	wantContent(t, call(t, ctx, toolByName(t, tools, "fs__read_text_file"), fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes.txt"))), "rein was here")
	wantContent(t, call(t, ctx, toolByName(t, tools, "fs__write_file"), fmt.Sprintf(`{"path":%q,"content":"new"}`, filepath.Join(dir, "new.txt"))), "Successfully wrote")
	if data, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(data) != "new" {
		t.Errorf("write_file wrote %q, %v", data, err)
	}
	res := call(t, ctx, toolByName(t, tools, "fs__read_text_file"), `{"path":"/etc/passwd"}`)
	if !res.IsError || !strings.Contains(res.Content, "Access denied") {
		t.Errorf("reading outside the allowed directory → %+v, want the server's is_error result", res)
	}
}

func TestMemoryServer(t *testing.T) {
	js := peer(t, "node_modules/@modelcontextprotocol/server-memory/dist/index.js")
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "mem", Command: nodeBin(t), Args: []string{js}, Env: Secrets{"MEMORY_FILE_PATH": file}}}})
	ctx := testCtx(t, 60*time.Second)
	tools := mustTools(t, ctx, m)
	wantContent(t, call(t, ctx, toolByName(t, tools, "mem__create_entities"), `{"entities":[{"name":"rein","entityType":"harness","observations":["runs models safely"]}]}`), "rein")
	wantContent(t, call(t, ctx, toolByName(t, tools, "mem__read_graph"), `{}`), "runs models safely")
}

// checkModern exercises the modern-era TypeScript SDK v2 peer.
func checkModern(t *testing.T, ctx context.Context, cfg ServerConfig, wantTransport Transport) {
	for _, tc := range []struct {
		name    string
		in      Interaction
		confirm string
	}{
		{"headless", Decline{}, "not confirmed deploy"},
		{"answered", confirmAll{}, "confirmed deploy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newManager(t, Config{Servers: []ServerConfig{cfg}, Interaction: tc.in})
			tools := mustTools(t, ctx, m)
			st := m.Status(ctx)[0]
			if st.Era != ProtocolModern || st.Transport != wantTransport || st.ServerName != "rein-modern-peer" {
				t.Errorf("status = %+v, want the 2026-07-28 era over %s", st, wantTransport)
			}
			add := call(t, ctx, toolByName(t, tools, "modern__add"), `{"a":2,"b":3}`)
			if add.IsError || add.Content != "5" || string(add.Structured) != `{"sum":5}` {
				t.Errorf("add = %+v", add)
			}
			if res := call(t, ctx, toolByName(t, tools, "modern__fail"), `{}`); !res.IsError || res.Content != "this tool always fails" {
				t.Errorf("fail = %+v, want is_error", res)
			}
			wantContent(t, call(t, ctx, toolByName(t, tools, "modern__confirm"), `{"action":"deploy"}`), tc.confirm)
			wantContent(t, call(t, ctx, toolByName(t, tools, "modern__read_resource"), `{"uri":"mem://readme"}`), "hello from the modern peer")
			pr, err := m.GetPrompt(ctx, "modern", "greet", map[string]string{"name": "Ada"})
			if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Text != "Please greet Ada." {
				t.Errorf("greet = %+v, %v", pr, err)
			}
		})
	}
}

// confirmAll accepts every elicitation with ok=true.
type confirmAll struct{ Decline }

func (confirmAll) Elicit(context.Context, *Elicitation) (*ElicitationResponse, error) {
	return &ElicitationResponse{Action: "accept", Content: map[string]any{"ok": true}}, nil
}

func TestModernPeerStdio(t *testing.T) {
	script := modernScript(t)
	checkModern(t, testCtx(t, 90*time.Second), ServerConfig{Name: "modern", Command: nodeBin(t), Args: []string{script, "stdio"}}, TransportStdio)
}

func TestModernPeerHTTP(t *testing.T) {
	script := modernScript(t)
	port := freePort(t)
	startNode(t, port, nil, script, "http", strconv.Itoa(port))
	checkModern(t, testCtx(t, 90*time.Second), ServerConfig{Name: "modern", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}, TransportStreamable)
}
