package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveApp is an in-process `rein mcp serve` with a hermetic home and
// workspace.
type serveApp struct {
	app        *App
	workspace  string
	interrupts chan os.Signal
}

func newServeApp(t *testing.T, stdin io.Reader, stdout, stderr io.Writer) *serveApp {
	t.Helper()
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	for _, d := range []string{home, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(root, "state")}
	sigs := make(chan os.Signal, 2)
	return &serveApp{
		app: &App{
			Stdin: stdin, Stdout: stdout, Stderr: stderr,
			Getenv:     func(k string) string { return env[k] },
			Getwd:      func() (string, error) { return ws, nil },
			Interrupts: sigs,
		},
		workspace:  ws,
		interrupts: sigs,
	}
}

// exec runs the command with args, mapping errors to exit codes as
// App.Run does.
func (s *serveApp) exec(ctx context.Context, args ...string) (int, string) {
	cmd := NewMCPServeCommand(s.app)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(ctx)
	var (
		ee *exitError
		ue *usageError
	)
	switch {
	case err == nil:
		return ExitOK, ""
	case errors.As(err, &ee):
		return ee.code, ""
	case errors.As(err, &ue):
		return ExitUsage, ue.msg
	}
	return ExitUsage, err.Error()
}

// serveStderr is a bytes.Buffer safe for a writer and a reader on
// different goroutines.
type serveStderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *serveStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *serveStderr) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func serveCall(t *testing.T, cs *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func serveToolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// TestMCPServeStdio serves the built-in tools on stdio to a go-sdk client:
// the tools are listed, a read runs in the workspace, a command the editor
// preset asks about is denied (and the denial shown on stderr), and the
// command exits 0 when the client hangs up.
func TestMCPServeStdio(t *testing.T) {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	stderr := &serveStderr{}
	s := newServeApp(t, serverIn, serverOut, stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code, msg := s.exec(ctx)
		if msg != "" {
			t.Errorf("rein mcp serve: %s", msg)
		}
		serverOut.Close()
		done <- code
	}()

	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "rein" {
		t.Errorf("server name %q", got)
	}
	names := serveToolNames(t, cs)
	for _, want := range []string{"read_file", "write_file", "run_command", "calculator", "now"} {
		if !serveHasName(names, want) {
			t.Errorf("tool %s is not served; got %v", want, names)
		}
	}
	for _, loopOnly := range []string{"task", "todo_write"} {
		if serveHasName(names, loopOnly) {
			t.Errorf("%s is offered to MCP clients; it belongs to rein's own agent loop (got %v)", loopOnly, names)
		}
	}
	if text, isErr := serveCall(t, cs, "read_file", map[string]any{"path": "notes.txt"}); isErr || !strings.Contains(text, "hello notes") {
		t.Errorf("read_file: isError=%v %q", isErr, text)
	}
	text, isErr := serveCall(t, cs, "run_command", map[string]any{"command": "touch made.txt"})
	if !isErr || !strings.Contains(text, "denied") || !strings.Contains(text, "--approve auto") {
		t.Errorf("run_command under the editor preset: isError=%v %q; want a denial naming --approve auto", isErr, text)
	}
	cs.Close()
	clientOut.Close()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit %d after the client hung up, want 0 (stderr: %s)", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("rein mcp serve did not exit after stdin closed")
	}
	errs := stderr.String()
	if !strings.Contains(errs, "on stdio") || !strings.Contains(errs, "preset editor, approve never") {
		t.Errorf("stderr does not announce the server: %q", errs)
	}
	if !strings.Contains(errs, "✗ run_command denied:") {
		t.Errorf("stderr does not show the denial: %q", errs)
	}
}

func serveHasName(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

var serveURLLine = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)

// TestMCPServeHTTP serves a subset over HTTP with --approve auto to both
// eras, then stops on an interrupt with exit 130.
func TestMCPServeHTTP(t *testing.T) {
	stderrR, stderrW := io.Pipe()
	s := newServeApp(t, strings.NewReader(""), io.Discard, stderrW)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code, msg := s.exec(ctx, "--http", "127.0.0.1:0", "--tools", "calculator, run_command", "--approve", "auto")
		if msg != "" {
			t.Errorf("rein mcp serve: %s", msg)
		}
		stderrW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(stderrR)
	var url string
	for url == "" && lines.Scan() {
		if m := serveURLLine.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatal("rein mcp serve did not announce its URL")
	}
	go io.Copy(io.Discard, stderrR) // keep stderr flowing

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect %s: %v", version, err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Errorf("negotiated %s, want %s", got, version)
		}
		if diff := cmp.Diff([]string{"calculator", "run_command"}, serveToolNames(t, cs)); diff != "" {
			t.Errorf("--tools subset (-want +got):\n%s", diff)
		}
		if text, isErr := serveCall(t, cs, "calculator", map[string]any{"expression": "6*7"}); isErr || !strings.Contains(text, "42") {
			t.Errorf("calculator over %s: isError=%v %q", version, isErr, text)
		}
		if text, isErr := serveCall(t, cs, "run_command", map[string]any{"command": "ls"}); isErr || !strings.Contains(text, "notes.txt") {
			t.Errorf("run_command with --approve auto over %s: isError=%v %q", version, isErr, text)
		}
		cs.Close()
	}
	s.interrupts <- os.Interrupt
	select {
	case code := <-done:
		if code != ExitInterrupted {
			t.Errorf("exit %d after an interrupt, want %d", code, ExitInterrupted)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("rein mcp serve did not stop on an interrupt")
	}
}

func TestMCPServeUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown tool", []string{"--tools", "calculator,teleport"}, `unknown tool "teleport"`},
		{"empty tool list", []string{"--tools", " , "}, "names no tool"},
		{"agent-loop tool task", []string{"--tools", "read_file,task"}, "task is not served over MCP"},
		{"agent-loop tool todo_write", []string{"--tools", "todo_write"}, "todo_write is not served over MCP"},
		{"beyond loopback", []string{"--http", "0.0.0.0:0"}, "not a loopback address"},
		{"bad address", []string{"--http", "nonsense"}, "host:port"},
		{"bad origin", []string{"--allowed-origin", "example.com"}, "not an origin"},
		{"bad approve", []string{"--approve", "sometimes"}, "--approve must be"},
		{"bad preset", []string{"--preset", "lax"}, "--preset must be"},
		{"arguments", []string{"extra"}, "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServeApp(t, strings.NewReader(""), io.Discard, io.Discard)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			code, msg := s.exec(ctx, tt.args...)
			if code != ExitUsage || !strings.Contains(msg, tt.want) {
				t.Fatalf("got exit %d %q; want %d containing %q", code, msg, ExitUsage, tt.want)
			}
		})
	}
}
