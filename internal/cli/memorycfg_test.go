package cli_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/memory"
	"github.com/reinharness/rein/model/modeltest"
)

// toolNamesOf returns the tool names a recorded request offered.
func toolNamesOf(t *testing.T, body []byte) string {
	t.Helper()
	var names []string
	tools, _ := requestJSON(t, body)["tools"].([]any)
	for _, tl := range tools {
		fn, _ := tl.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		names = append(names, name)
	}
	return " " + strings.Join(names, " ") + " "
}

// TestMemorySwitches: the memory tools are offered by default, and not
// with --no-memory, [memory] enabled = false in the user's or the
// project's config, or a project layer's [tools] disabled; a project's
// enabled = true does not undo the user's false.
func TestMemorySwitches(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		flags               []string
		want                bool
	}{
		{"default", "", "", nil, true},
		{"flag", "", "", []string{"--no-memory"}, false},
		{"user off", "[memory]\nenabled = false\n", "", nil, false},
		{"project off", "", "[memory]\nenabled = false\n", nil, false},
		{"project cannot re-enable", "[memory]\nenabled = false\n", "[memory]\nenabled = true\n", nil, false},
		{"project disables the tool", "", "[tools]\ndisabled = [\"remember\", \"forget\"]\n", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, sse(textBody("ok")))
			e := newEnv(t)
			e.writeUserConfig(t, "[model]\ncontext_window = 32768\n"+tc.user)
			if tc.project != "" {
				writeFiles(t, e.workspace, map[string]string{".rein/config.toml": tc.project})
			}
			res := e.run(t, append([]string{"run", "-e", srv.URL}, append(tc.flags, "hi")...)...)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			names := toolNamesOf(t, srv.Requests()[0].Body)
			if got := strings.Contains(names, " remember "); got != tc.want {
				t.Errorf("remember offered = %v, want %v (tools:%s)", got, tc.want, names)
			}
		})
	}
}

// TestMemoryRememberAsksUnderReadOnly: remember writes rein's state, so
// the read-only preset asks, and headless without approval nothing is
// stored; recall is allowed.
func TestMemoryRememberAsksUnderReadOnly(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(twoToolBody("r1", "remember", `{"text":"a note"}`, "q1", "recall", `{"query":"note"}`)),
		sse(textBody("ok")))
	e := newEnv(t)
	res := e.run(t, "run", "--preset", "read-only", "--approve", "never", "--output-format", "stream-json", "-e", srv.URL, "hi")
	if !strings.Contains(res.stdout, "read-only preset asks before rein's own state") {
		t.Errorf("no read-only decision for remember:\n%s", res.stdout)
	}
	list := e.run(t, "memory", "list", "--all", "--json")
	if strings.TrimSpace(list.stdout) != "" {
		t.Errorf("remember stored under read-only: %s", list.stdout)
	}
	if !strings.Contains(string(srv.Requests()[1].Body), `\"memories\":[]`) {
		t.Errorf("recall did not run: %s", srv.Requests()[1].Body)
	}
}

// TestMemoryCommands drives rein memory add, search, show, edit, export
// and import (JSON lines and Markdown), and .rein/memory.md reaching the
// system prompt as the project's notes.
func TestMemoryCommands(t *testing.T) {
	e := newEnv(t)
	add := e.run(t, "memory", "add", "--tag", "db", "the database is sqlite")
	if add.code != 0 {
		t.Fatalf("add: %d %s", add.code, add.stderr)
	}
	id := strings.TrimSpace(add.stdout)
	if got := e.run(t, "memory", "search", "sqlite"); !strings.Contains(got.stdout, id) || !strings.Contains(got.stdout, "[workspace]") {
		t.Errorf("search: %q %q", got.stdout, got.stderr)
	}
	if got := e.run(t, "memory", "edit", id, "the database is postgres \x1b[2J"); got.code != 0 {
		t.Fatalf("edit: %s", got.stderr)
	}
	show := e.run(t, "memory", "show", id)
	if !strings.Contains(show.stdout, "the database is postgres") || strings.Contains(show.stdout, "\x1b") || !strings.Contains(show.stdout, "source:   user") {
		t.Errorf("show: %q", show.stdout)
	}
	md := e.run(t, "memory", "export", "--markdown")
	if !strings.Contains(md.stdout, "- the database is postgres") || !strings.Contains(md.stdout, "[tags: db]") {
		t.Errorf("export --markdown: %q", md.stdout)
	}
	jl := e.run(t, "memory", "export")
	other := newEnv(t)
	if got := other.invoke(jl.stdout).run(t, "memory", "import"); got.code != 0 || !strings.Contains(got.stderr, "imported 1") {
		t.Fatalf("import: %d %s", got.code, got.stderr)
	}
	if got := other.invoke("- shared note one\n- shared note two [tags: team]\n").run(t, "memory", "import", "--markdown", "--scope", "user"); !strings.Contains(got.stderr, "imported 2") {
		t.Errorf("import --markdown: %s", got.stderr)
	}
	if got := other.run(t, "memory", "list", "--scope", "user"); strings.Count(got.stdout, "shared note") != 2 {
		t.Errorf("list --scope user: %q", got.stdout)
	}
	if got := other.invoke("{not json\n").run(t, "memory", "import"); got.code == 0 || !strings.Contains(got.stderr, "line 1") {
		t.Errorf("bad import: %d %q", got.code, got.stderr)
	}
	if got := e.run(t, "memory", "rm", "mffffffffffffffff"); got.code == 0 {
		t.Error("rm of an unknown id succeeded")
	}
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	writeFiles(t, e.workspace, map[string]string{".rein/memory.md": md.stdout})
	if res := e.run(t, "run", "-e", srv.URL, "hi"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	sys := systemOf(t, srv.Requests()[0].Body)
	if !strings.Contains(sys, "# Project notes from .rein/memory.md") || !strings.HasPrefix(sys, "You are a coding agent run by rein") {
		t.Errorf("system prompt:\n%s", sys)
	}
}

// TestMemoryUnavailableWarns: a memory store that cannot be opened (here
// memory.db is a directory) costs a warning, never the run.
func TestMemoryUnavailableWarns(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	e := newEnv(t)
	writeFiles(t, e.home, map[string]string{".local/state/rein/memory.db/x": ""})
	res := e.run(t, "run", "-e", srv.URL, "hi")
	if res.code != 0 || !strings.Contains(res.stderr, "rein: warning: the memory store is unavailable") || !strings.Contains(res.stderr, "running without memory") {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if names := toolNamesOf(t, srv.Requests()[0].Body); strings.Contains(names, " remember ") {
		t.Errorf("memory tools offered without a store: %s", names)
	}
}

// TestMemoryDatabaseCreatedOnFirstRemember: a run that remembers nothing
// creates no memory database (its schema and fsyncs are not on the way to
// the first model request); the first remember creates it.
func TestMemoryDatabaseCreatedOnFirstRemember(t *testing.T) {
	e := newEnv(t)
	db := filepath.Join(e.home, ".local", "state", "rein", memory.DatabaseFile)
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	if res := e.run(t, "run", "-e", srv.URL, "hi"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if names := toolNamesOf(t, srv.Requests()[0].Body); !strings.Contains(names, " remember ") {
		t.Errorf("memory tools not offered before the database exists: %s", names)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a run that remembered nothing created %s (%v)", db, err)
	}
	srv2 := modeltest.NewServer(t, sse(toolBody("r1", "remember", rememberArgs("uses tabs", ""))), sse(textBody("noted")))
	if res := e.run(t, "run", "--approve", "never", "-e", srv2.URL, "remember"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("remember did not create the database: %v", err)
	}
}
