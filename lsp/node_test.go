package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nodeServer finds an npm-installed server in testdata/interop's
// node_modules (REIN_LSP_NPM_BIN overrides the directory), else skips.
func nodeServer(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("REIN_LSP_NPM_BIN")
	if dir == "" {
		dir = filepath.Join("..", "testdata", "interop", "node_modules", ".bin")
	}
	p, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatalf("%s not installed in %s (npm install in testdata/interop, or set REIN_LSP_NPM_BIN)", name, dir)
		}
		t.Skipf("%s not installed in %s (npm install in testdata/interop, or set REIN_LSP_NPM_BIN)", name, dir)
	}
	return p
}

func TestTypeScriptReferences(t *testing.T) {
	cfg := Defaults[1]
	cfg.Command = nodeServer(t, "typescript-language-server")
	root := fixture(t, "ts")
	m := NewManager(root, []Config{cfg}, os.Environ(), nil)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := m.For(ctx, "greet.ts")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Sync("main.ts"); err != nil {
		t.Fatal(err)
	}
	refs, err := srv.References(ctx, "greet.ts", 1, 17) // on "greet"
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		got = append(got, srv.Rel(r.URI))
	}
	if len(refs) != 4 || strings.Count(strings.Join(got, " "), "main.ts") != 3 {
		t.Fatalf("references = %v, want the declaration, the import and two calls", got)
	}
	locs, err := srv.Definition(ctx, "main.ts", 3, 14)
	if err != nil || len(locs) != 1 || srv.Rel(locs[0].URI) != "greet.ts" {
		t.Fatalf("definition = %+v, %v", locs, err)
	}
}

func TestPyrightDiagnostic(t *testing.T) {
	cfg := Defaults[2]
	cfg.Command = nodeServer(t, "pyright-langserver")
	root := fixture(t, "py")
	m := NewManager(root, []Config{cfg}, os.Environ(), nil)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := m.For(ctx, "app.py")
	if err != nil {
		t.Fatal(err)
	}
	files, err := srv.Diagnostics(ctx, []string{"app.py"}, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	out := Format(files, true, 0)
	if !strings.HasPrefix(out, "app.py:5:") || !strings.Contains(out, `"int" is not assignable to declared type "str"`) {
		t.Fatalf("diagnostics = %q", out)
	}
}
