package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var codingNames = []string{"read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "run_command", "todo_write", "task"}

func writeAgent(t *testing.T, dir, file, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadAgentDefsLayers: agents load from the user's directory and both
// project directories; a later one shadows an earlier one of the same name
// with one warning; malformed files are skipped with one warning naming
// the file and the field; Claude Code tool names become rein's.
func TestLoadAgentDefsLayers(t *testing.T) {
	cfgHome, ws := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfgHome
		}
		return ""
	}
	user := filepath.Join(cfgHome, "rein", "agents")
	rein := filepath.Join(ws, ".rein", "agents")
	claude := filepath.Join(ws, ".claude", "agents")
	writeAgent(t, user, "reviewer.md", "---\nname: reviewer\ndescription: user reviewer\ntools: Read, Grep\n---\nReview.\n")
	writeAgent(t, user, "notes.txt", "not an agent")
	writeAgent(t, rein, "tester.md", "---\nname: tester\ndescription: runs tests\ntools: [Bash, Read, Frobnicate]\nmodel: small-model\n---\nTest.\n")
	writeAgent(t, claude, "reviewer.md", "---\nname: reviewer\ndescription: project reviewer\nmodel: sonnet\n---\nReview harder.\n")
	writeAgent(t, claude, "noname.md", "---\ndescription: nameless\n---\nbody\n")
	writeAgent(t, claude, "badname.md", "---\nname: Bad Name\ndescription: x\n---\n")
	writeAgent(t, claude, "broken.md", "---\nname: [unclosed\n---\n")
	writeAgent(t, claude, "nodesc.md", "---\nname: quiet\n---\nbody\n")

	defs, warnings := LoadAgentDefs(getenv, ws, codingNames)
	type row struct{ Name, Desc, System, Model, Layer, Tools string }
	var got []row
	for _, d := range defs {
		got = append(got, row{d.Name, d.Description, d.System, d.Model, d.layer, strings.Join(d.Tools, ",")})
	}
	want := []row{
		{"reviewer", "project reviewer", "Review harder.", "", "project", ""},
		{"tester", "runs tests", "Test.", "small-model", "project", "run_command,read_file,Frobnicate"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	if defs[0].Tools != nil {
		t.Errorf("an agent without tools got %v; want nil (the read-only default)", defs[0].Tools)
	}
	wantWarn := []string{
		"badname.md skipped: field \"name\"",
		"broken.md skipped: front matter",
		"nodesc.md skipped: field \"description\"",
		"noname.md skipped: field \"name\": missing",
		"agent reviewer in " + filepath.Join(claude, "reviewer.md") + " shadows the one in " + filepath.Join(user, "reviewer.md"),
	}
	if len(warnings) != len(wantWarn) {
		t.Fatalf("warnings:\n%s\nwant %d", strings.Join(warnings, "\n"), len(wantWarn))
	}
	for _, w := range wantWarn {
		found := false
		for _, g := range warnings {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("no warning contains %q:\n%s", w, strings.Join(warnings, "\n"))
		}
	}
}

// TestAgentFileHostile: oversized, non-regular and garbage files are
// skipped with a warning, never a crash.
func TestAgentFileHostile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(big, []byte("---\nname: big\ndescription: x\n---\n"+strings.Repeat("a", maxAgentFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAgentFile(os.DirFS(dir), "big.md", big, nil); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("a %d-byte file: %v", maxAgentFileSize, err)
	}
	if _, err := readAgentFile(os.DirFS(filepath.Dir(dir)), filepath.Base(dir), dir, nil); err == nil {
		t.Error("a directory was read as an agent file")
	}
	for _, doc := range []string{"", "---", "---\n", "no front matter", "---\nname: a\n", "---\n- list\n---\n", "\x00\xff---\n"} {
		if _, err := parseAgentFile([]byte(doc), "x.md", nil); err == nil {
			t.Errorf("%q accepted", doc)
		}
	}
}

func FuzzParseAgentFile(f *testing.F) {
	for _, s := range []string{
		"---\nname: reviewer\ndescription: d\ntools: Read, Grep\n---\nbody",
		"---\nname: a\ndescription: d\ntools: [Bash, \"*\"]\nmodel: inherit\n---\n",
		"---\r\nname: a\r\n---\r\n", "---\nname: &a [*a]\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseAgentFile(data, "f.md", codingNames)
		if err != nil {
			return
		}
		if !agentFileNameRE.MatchString(d.Name) || strings.TrimSpace(d.Description) == "" {
			t.Fatalf("accepted a definition with name %q and description %q", d.Name, d.Description)
		}
	})
}
