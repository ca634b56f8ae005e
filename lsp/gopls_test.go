package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// findGopls finds gopls in REIN_GOPLS, else PATH, else skips.
func findGopls(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("REIN_GOPLS"); p != "" {
		return p
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
		t.Fatal("gopls not found: set REIN_GOPLS or put gopls on PATH (GOBIN=/tmp/gobin go install golang.org/x/tools/gopls@v0.23.0)")
	}
	t.Skip("gopls not found: set REIN_GOPLS or put gopls on PATH (GOBIN=/tmp/gobin go install golang.org/x/tools/gopls@v0.23.0)")
	return ""
}

// fixture copies testdata/lsp/name into a temporary directory.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("..", "testdata", "lsp", name)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func goManager(t *testing.T) (*Manager, string) {
	t.Helper()
	gopls := findGopls(t)
	root := fixture(t, "go")
	cfg := Defaults[0]
	cfg.Command = gopls
	m := NewManager(root, []Config{cfg}, os.Environ(), nil)
	t.Cleanup(m.Close)
	return m, root
}

func TestGoplsDiagnosticsAfterEdit(t *testing.T) {
	m, root := goManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := m.For(ctx, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	got, err := srv.Diagnostics(ctx, []string{"main.go"}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("clean fixture has diagnostics: %+v", got)
	}
	bad := strings.Replace(readFile(t, root, "main.go"), "Sum(2, 3)", `Sum(2, "three")`, 1)
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = srv.Diagnostics(ctx, []string{"main.go"}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Path != "main.go" || len(got[0].Diagnostics) == 0 {
		t.Fatalf("no diagnostics after a type error: %+v", got)
	}
	d := got[0].Diagnostics[0]
	if d.Severity != SeverityError || d.Range.Start.Line != 5 || !strings.Contains(d.Message, "three") {
		t.Fatalf("diagnostic = %+v, want an error on line 6 about \"three\"", d)
	}
}

func TestGoplsDefinitionAcrossFiles(t *testing.T) {
	m, _ := goManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := m.For(ctx, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	locs, err := srv.Definition(ctx, "main.go", 6, 12) // on "Sum"
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || srv.Rel(locs[0].URI) != "sum.go" || locs[0].Range.Start.Line != 3 {
		t.Fatalf("definition = %+v, want sum.go line 4", locs)
	}
	if col := Column(locs[0].URI, locs[0].Range.Start); col != 6 {
		t.Fatalf("column = %d, want 6", col)
	}
	refs, err := srv.References(ctx, "sum.go", 4, 6)
	if err != nil || len(refs) != 2 {
		t.Fatalf("references = %+v, %v; want the declaration and one use", refs, err)
	}
	hover, err := srv.Hover(ctx, "main.go", 6, 12)
	if err != nil || !strings.Contains(hover, "func Sum(a int, b int) int") {
		t.Fatalf("hover = %q, %v", hover, err)
	}
	syms, err := srv.WorkspaceSymbols(ctx, "Sum")
	if err != nil || len(syms) == 0 || syms[0].Name != "Sum" {
		t.Fatalf("workspace symbols = %+v, %v", syms, err)
	}
	doc, err := srv.DocumentSymbols(ctx, "main.go")
	if err != nil || len(doc) != 1 || doc[0].Name != "main" || KindName(doc[0].Kind) != "function" {
		t.Fatalf("document symbols = %+v, %v", doc, err)
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
