package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a misbehaving language server when
// REIN_LSP_FAKE is set: "crash" exits on the first didOpen, "hang" never
// answers initialize.
func TestMain(m *testing.M) {
	if mode := os.Getenv("REIN_LSP_FAKE"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) {
	r := bufio.NewReader(os.Stdin)
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		var m message
		_ = json.Unmarshal(body, &m)
		switch {
		case mode == "hang":
			continue
		case m.Method == "initialize":
			resp, _ := json.Marshal(message{JSONRPC: "2.0", ID: m.ID, Result: json.RawMessage(`{"capabilities":{}}`)})
			_ = writeFrame(os.Stdout, resp)
		case m.Method == "textDocument/didOpen":
			os.Stderr.WriteString("fake server: segmentation fault\n")
			os.Exit(3)
		}
	}
}

func fakeManager(t *testing.T, mode string) *Manager {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(root+"/a.go", []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Name: "fake", Command: exe, Extensions: []string{".go"}, Env: map[string]string{"REIN_LSP_FAKE": mode}}
	m := NewManager(root, []Config{cfg}, os.Environ(), nil)
	t.Cleanup(m.Close)
	return m
}

func TestCrashedServerRestartsWithBackoff(t *testing.T) {
	defer func(b time.Duration) { restartBase = b }(restartBase)
	restartBase = 300 * time.Millisecond
	m := fakeManager(t, "crash")
	ctx := context.Background()
	srv, err := m.For(ctx, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.Diagnostics(ctx, []string{"a.go"}, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "segmentation fault") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("diagnostics from a crashing server: %v", err)
	}
	if _, err := m.For(ctx, "a.go"); err == nil || !strings.Contains(err.Error(), "restarting after a crash") {
		t.Fatalf("immediately after the crash: %v", err)
	}
	time.Sleep(restartBase + 100*time.Millisecond)
	srv2, err := m.For(ctx, "a.go")
	if err != nil || srv2 == srv || !srv2.Alive() {
		t.Fatalf("after the backoff: %v", err)
	}
}

func TestHangingServerTimesOut(t *testing.T) {
	defer func(d time.Duration) { startTimeout = d }(startTimeout)
	startTimeout = 500 * time.Millisecond
	m := fakeManager(t, "hang")
	start := time.Now()
	_, err := m.For(context.Background(), "a.go")
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("start of a hanging server: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	if _, err := m.For(context.Background(), "a.go"); err == nil || !strings.Contains(err.Error(), "restarting") {
		t.Fatalf("second try right away: %v", err)
	}
}
