package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFileApprovedStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "rein", "approved.json")
	a, err := OpenApprovedStore(path)
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	b, err := OpenApprovedStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.Approved("/ws", "sha256:1") {
		t.Fatal("empty store approves")
	}
	// Two processes approving at once keep both approvals.
	if err := a.Approve("/ws", "sha256:1", "one"); err != nil {
		t.Fatal(err)
	}
	if err := b.Approve("/ws/", "sha256:2", "two"); err != nil {
		t.Fatal(err)
	}
	c, err := OpenApprovedStore(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range []string{"sha256:1", "sha256:2"} {
		if !c.Approved("/ws", fp) {
			t.Errorf("%s lost", fp)
		}
	}
	if c.Approved("/other", "sha256:1") {
		t.Error("approval leaked to another workspace")
	}
	if err := c.Approve("/ws", "sha256:1", "again"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), `"sha256:1"`); n != 1 {
		t.Errorf("approving twice stored %d records", n)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; want 0600", st.Mode().Perm())
	}
}

func TestFileApprovedStoreCorrupt(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"garbage":   "{not json",
		"truncated": `{"version":1,"approvals":[{"workspace":"/ws"`,
		"version":   `{"version":7,"approvals":[]}`,
		"wrong":     `[1,2,3]`,
	} {
		path := filepath.Join(dir, name+".json")
		os.WriteFile(path, []byte(content), 0o600)
		_, err := OpenApprovedStore(path)
		if !errors.Is(err, ErrApprovedStore) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want an error naming the file", name, err)
		}
		// Approving must not overwrite what could not be read.
		s := &FileApprovedStore{path: path, set: map[[2]string]bool{}}
		if err := s.Approve("/ws", "x", "x"); err == nil {
			t.Errorf("%s: Approve overwrote a corrupt store", name)
		}
		if data, _ := os.ReadFile(path); string(data) != content {
			t.Errorf("%s: file changed", name)
		}
	}
}

func TestRenderRulesRoundTrip(t *testing.T) {
	tools := []ToolRule{{Name: "srv__tool", Action: "allow"}}
	commands := []CommandRule{
		{Prefix: []string{"echo", "a\"b\\c", "tab\there", "nl\nx", "\x01ctl\x7f", "ünï"}, Exact: true, Action: "allow"},
		{Prefix: []string{"go", "test"}, Action: "allow", Match: []string{"go test ./..."}},
	}
	text, err := renderRules(tools, commands, "line one\nline two")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseConfig([]byte(text))
	if err != nil {
		t.Fatalf("rendered rules do not parse: %v\n%s", err, text)
	}
	if diff := cmp.Diff(Config{Tools: tools, Commands: commands}, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", diff, text)
	}
	if _, err := renderRules(nil, []CommandRule{{Prefix: []string{"\xff"}, Action: "allow"}}, ""); err == nil {
		t.Error("invalid UTF-8 rendered")
	}
}

func TestAppendRulesCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".rein", "config.toml")
	text, err := AppendRules(path, nil, []CommandRule{{Prefix: []string{"ls"}, Exact: true, Action: "allow"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != text {
		t.Errorf("new file %q; want exactly %q", data, text)
	}
	if _, err := AppendRules(path, []ToolRule{{Name: "x", Action: "allow"}}, nil, ""); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(mustRead(t, path))
	if err != nil || len(cfg.Commands) != 1 || len(cfg.Tools) != 1 {
		t.Errorf("after two appends: %+v, %v", cfg, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
