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

// TestLSPProjectServerNeedsTrust: a language server the workspace's
// .rein/config.toml defines starts nothing until `rein lsp trust`; then
// its errors reach the model after an edit; a change to the program it
// runs (a workspace file) withdraws the trust.
func TestLSPProjectServerNeedsTrust(t *testing.T) {
	gopls := lspGopls(t)
	e := newEnv(t)
	lspGoFixture(t, e.workspace)
	prog := filepath.Join(e.workspace, "tools", "gopls")
	data, err := os.ReadFile(gopls)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, e.workspace, map[string]string{
		"tools/gopls":       string(data),
		".rein/config.toml": "[lsp.go]\ncommand = \"" + prog + "\"\nextensions = [\".go\"]\n",
	})
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	edit := func() (stderr, body string) {
		t.Helper()
		srv := modeltest.NewServer(t,
			sse(toolBody("e1", "edit_file", `{"path":"main.go","old_string":"Sum(2, 3)","new_string":"Sum(2, \"three\")"}`)),
			sse(textBody("done")))
		res := e.invoke("").runFor(t, 2*time.Minute, "run", "--approve", "auto", "-e", srv.URL, "break it")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		if err := os.WriteFile(filepath.Join(e.workspace, "main.go"), must(os.ReadFile(filepath.Join("..", "..", "testdata", "lsp", "go", "main.go"))), 0o644); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		return res.stderr, string(reqs[len(reqs)-1].Body)
	}
	const reported = "The language server reports errors in the changed files"

	stderr, body := edit()
	if !strings.Contains(stderr, "the workspace's language servers (go) do not start: not trusted") || strings.Contains(body, reported) {
		t.Fatalf("an untrusted project server ran or was not reported:\n%s\n%s", stderr, body)
	}
	if res := e.run(t, "lsp", "list"); !strings.Contains(res.stdout, "no: not trusted (rein lsp trust)") {
		t.Errorf("rein lsp list:\n%s%s", res.stdout, res.stderr)
	}
	res := e.run(t, "lsp", "trust")
	if res.code != 0 || !strings.Contains(res.stdout, "trusted 1 language server") || !strings.Contains(res.stdout, "pinned tools/gopls") {
		t.Fatalf("rein lsp trust: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	stderr, body = edit()
	if !strings.Contains(body, reported) || !strings.Contains(body, "main.go:6:") {
		t.Fatalf("the trusted project server's errors did not reach the model:\n%s\n%.3000s", stderr, body)
	}
	// The program changes (as a commit, or the model, could change it).
	if err := os.WriteFile(prog, append(data, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	stderr, body = edit()
	if !strings.Contains(stderr, "do not start: changed since trusted") || strings.Contains(body, reported) {
		t.Fatalf("a changed project server still ran:\n%s\n%s", stderr, body)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestLSPAfterEditShowsWhatTheEditMade: a second edit's result shows the
// error it introduced, and counts, without repeating, the one the first
// edit left.
func TestLSPAfterEditShowsWhatTheEditMade(t *testing.T) {
	gopls := lspGopls(t)
	e := newEnv(t)
	lspGoFixture(t, e.workspace)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[lsp.go]\ncommand = \""+gopls+"\"\nextensions = [\".go\"]\n")
	srv := modeltest.NewServer(t,
		sse(toolBody("e1", "edit_file", `{"path":"main.go","old_string":"Sum(2, 3)","new_string":"Sum(2, \"three\")"}`)),
		sse(toolBody("e2", "edit_file", `{"path":"main.go","old_string":"fmt.Println(total)","new_string":"fmt.Println(total, undefinedName)"}`)),
		sse(textBody("done")))
	res := e.invoke("").runFor(t, 2*time.Minute, "run", "--approve", "auto", "-e", srv.URL, "break it twice")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	first := toolResults(t, reqs[1].Body)["e1"]
	second := toolResults(t, reqs[2].Body)["e2"]
	if !strings.Contains(first, "main.go:6:") {
		t.Errorf("the first edit's error is missing:\n%s", first)
	}
	if !strings.Contains(second, "undefinedName") || !strings.Contains(second, "main.go:7:") {
		t.Errorf("the second edit's own error is missing:\n%s", second)
	}
	if strings.Contains(second, "main.go:6:") || !strings.Contains(second, "(and 1 error there before this edit, not repeated)") {
		t.Errorf("the first edit's error was repeated, or not counted:\n%s", second)
	}
}
