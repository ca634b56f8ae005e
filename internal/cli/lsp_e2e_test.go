package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// lspGopls finds gopls in REIN_GOPLS or PATH, else skips.
func lspGopls(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("REIN_GOPLS"); p != "" {
		return p
	}
	p, err := exec.LookPath("gopls")
	if err != nil {
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatal("gopls not found: set REIN_GOPLS or put gopls on PATH (GOBIN=/tmp/gobin go install golang.org/x/tools/gopls@v0.23.0)")
		}
		t.Skip("gopls not found: set REIN_GOPLS or put gopls on PATH (GOBIN=/tmp/gobin go install golang.org/x/tools/gopls@v0.23.0)")
	}
	return p
}

func lspGoFixture(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"go.mod", "main.go", "sum.go"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "lsp", "go", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLSPErrorsAfterEdit: an edit_file that breaks the Go build returns,
// in the tool result the model sees on its next request, gopls's error
// for the edited line; with after_edit = "off" it does not.
func TestLSPErrorsAfterEdit(t *testing.T) {
	gopls := lspGopls(t)
	for _, c := range []struct {
		afterEdit string
		want      bool
	}{{"", true}, {"off", false}} {
		e := newEnv(t)
		lspGoFixture(t, e.workspace)
		conf := "[model]\ncontext_window = 32768\n[lsp.go]\ncommand = \"" + gopls + "\"\nextensions = [\".go\"]\n"
		if c.afterEdit != "" {
			conf += "[lsp]\nafter_edit = \"" + c.afterEdit + "\"\n"
		}
		e.writeUserConfig(t, conf)
		srv := modeltest.NewServer(t,
			sse(toolBody("e1", "edit_file", `{"path":"main.go","old_string":"Sum(2, 3)","new_string":"Sum(2, \"three\")"}`)),
			sse(textBody("done")))
		res := e.invoke("").runFor(t, 2*time.Minute, "run", "--approve", "auto", "-e", srv.URL, "break it")
		if res.code != 0 {
			t.Fatalf("after_edit %q: exit %d\n%s", c.afterEdit, res.code, res.stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want 2", len(reqs))
		}
		body := string(reqs[1].Body)
		got := strings.Contains(body, "The language server reports errors in the changed files") && strings.Contains(body, "main.go:6:")
		if got != c.want {
			t.Errorf("after_edit %q: errors in the result = %v, want %v; request:\n%s", c.afterEdit, got, c.want, body)
		}
	}
}
