package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	langserver "github.com/reinharness/rein/lsp"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

func goTools(t *testing.T) (map[string]tool.Tool, string) {
	t.Helper()
	gopls := os.Getenv("REIN_GOPLS")
	if gopls == "" {
		p, err := exec.LookPath("gopls")
		if err != nil {
			if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
				t.Fatal("gopls not found: set REIN_GOPLS or put gopls on PATH")
			}
			t.Skip("gopls not found: set REIN_GOPLS or put gopls on PATH")
		}
		gopls = p
	}
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "main.go", "sum.go"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "lsp", "go", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := langserver.Defaults[0]
	cfg.Command = gopls
	m := langserver.NewManager(ws.Dir(), []langserver.Config{cfg}, os.Environ(), nil)
	t.Cleanup(m.Close)
	out := map[string]tool.Tool{}
	for _, tl := range Tools(ws, m, Options{}) {
		out[tl.Spec().Name] = tl
	}
	return out, dir
}

func call(t *testing.T, tl tool.Tool, args map[string]any) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Call(context.Background(), raw)
	if err != nil {
		return err.Error(), true
	}
	return res.Content, res.IsError
}

func TestToolsWithGopls(t *testing.T) {
	tools, dir := goTools(t)
	if len(tools) != 5 {
		t.Fatalf("tools: %d", len(tools))
	}
	for name, tl := range tools {
		if a := tl.Spec().Annotations; a.ReadOnlyHint == nil || !*a.ReadOnlyHint || tl.Spec().Effects.WritesFiles {
			t.Errorf("%s is not declared read-only", name)
		}
	}
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"diagnostics", map[string]any{"path": "main.go"}, "no problems reported"},
		{"definition", map[string]any{"path": "main.go", "line": 6, "column": 12}, "sum.go:4:6"},
		{"definition", map[string]any{"symbol": "Sum"}, "sum.go:4:6 function "},
		{"references", map[string]any{"path": "sum.go", "line": 4, "column": 6}, "main.go:6:11"},
		{"hover", map[string]any{"path": "main.go", "line": 6, "column": 12}, "Sum adds two numbers"},
		{"symbols", map[string]any{"path": "sum.go"}, "sum.go:4:6 function Sum"},
		{"symbols", map[string]any{"query": "Sum"}, "sum.go:4:6 function "},
	}
	for _, c := range cases {
		out, isErr := call(t, tools[c.tool], c.args)
		if isErr || !strings.Contains(out, c.want) {
			t.Errorf("%s %v = %q (error %v), want %q", c.tool, c.args, out, isErr, c.want)
		}
	}
	if out, _ := call(t, tools["symbols"], map[string]any{"query": "Sum"}); strings.Contains(out, "/usr") || strings.Count(out, "\n") != 1 {
		t.Errorf("symbols outside the workspace shown: %q", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "sum.go"), []byte("package main\n\nfunc Sum(a, b int) int {\n\treturn a + \"x\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := call(t, tools["diagnostics"], map[string]any{"path": "sum.go"})
	if !strings.HasPrefix(out, "sum.go:4:") || !strings.Contains(out, "error") {
		t.Errorf("diagnostics after a type error = %q", out)
	}
	for _, bad := range []map[string]any{{"path": "../x.go", "line": 1, "column": 1}, {"path": "a.txt", "line": 1, "column": 1}, {"path": "main.go"}} {
		if out, isErr := call(t, tools["definition"], bad); !isErr {
			t.Errorf("definition %v accepted: %q", bad, out)
		}
	}
}
