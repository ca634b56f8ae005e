package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// newWS opens a workspace over a fresh directory holding files.
func newWS(t *testing.T, files map[string]string) (*workspace.Workspace, string) {
	return newWSB(t, files)
}

// newWSB is newWS for tests and benchmarks alike.
func newWSB(t testing.TB, files map[string]string) (*workspace.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, ws.Dir()
}

// findTool returns the named tool from the full file toolset.
func findTool(t *testing.T, ws *workspace.Workspace, opts Options, name string) tool.Tool {
	t.Helper()
	for _, tl := range Tools(ws, opts) {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// call invokes a tool with args marshalled to JSON.
func call(t *testing.T, tl tool.Tool, args any) *tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithIdempotencyKey(context.Background(), "call-test")
	res, err := tl.Call(ctx, raw)
	if err != nil {
		t.Fatalf("%s: Call returned an error (tools report failures as results): %v", tl.Spec().Name, err)
	}
	return res
}

// run invokes a tool by name and fails the test on an is_error result.
func run(t *testing.T, ws *workspace.Workspace, name string, args any) string {
	t.Helper()
	res := call(t, findTool(t, ws, Options{}, name), args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, res.Content)
	}
	return res.Content
}

// runErr invokes a tool by name and fails the test unless it errs.
func runErr(t *testing.T, ws *workspace.Workspace, name string, args any) string {
	t.Helper()
	res := call(t, findTool(t, ws, Options{}, name), args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded; want an error. Result:\n%s", name, args, res.Content)
	}
	return res.Content
}

func readHost(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openWith opens dir as a workspace with a whole-file read cap.
func openWith(t *testing.T, dir string, maxRead int64) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(dir, workspace.Options{MaxReadBytes: maxRead})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}
