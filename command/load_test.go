package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadLayersNamespacesAndWarnings(t *testing.T) {
	root := t.TempDir()
	cfg, ws := filepath.Join(root, "cfg"), filepath.Join(root, "ws")
	outside := filepath.Join(root, "secret.md")
	writeTree(t, root, map[string]string{"secret.md": "TOP SECRET"})
	writeTree(t, filepath.Join(cfg, "commands"), map[string]string{
		"review.md":         "---\ndescription: user review\n---\nuser review $ARGUMENTS",
		"mine.md":           "only the user's",
		"help.md":           "shadowing a built-in",
		"notes.txt":         "not a command",
		".hidden/x.md":      "in a hidden folder",
		"frontend/test.md":  "---\ndescription: run the frontend tests\n---\ntest $1",
		"a/b/c.md":          "deep",
		"bad name!.md":      "odd name",
		"broken.md":         "---\nallowed-tools:\n  a: b\n---\nbody",
		"frontend/empty.md": "---\ndescription: x\n---\n",
	})
	writeTree(t, filepath.Join(ws, ".rein", "commands"), map[string]string{
		"review.md": "rein project review",
	})
	writeTree(t, filepath.Join(ws, ".claude", "commands"), map[string]string{
		"review.md": "claude project review",
		"deploy.md": "deploy",
	})
	if err := os.Symlink(outside, filepath.Join(ws, ".claude", "commands", "leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("deploy.md", filepath.Join(ws, ".claude", "commands", "ship.md")); err != nil {
		t.Fatal(err)
	}
	set, warnings := Load(Dirs(cfg, ws), []string{"help", "exit"})
	if diff := cmp.Diff([]string{"a:b:c", "deploy", "frontend:test", "mine", "review", "ship"}, set.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	r, _ := set.Get("review")
	if r.Body != "claude project review" || r.Layer != LayerProject {
		t.Errorf("review = %+v, want the .claude/commands one (the last layer)", r)
	}
	if ship, _ := set.Get("ship"); ship.Body != "deploy" {
		t.Errorf("a symlink inside the folder is followed: %+v", ship)
	}
	ft, _ := set.Get("frontend:test")
	if ft.Description != "run the frontend tests" || ft.Layer != LayerUser {
		t.Errorf("frontend:test = %+v", ft)
	}
	wantWarnings := []string{
		"bad name!.md: \"bad name!\" cannot be part of a command name",
		"broken.md: field allowed-tools: ",
		"frontend/empty.md: the body is empty",
		"help.md: /help is a built-in command, which takes precedence",
		filepath.Join(".rein", "commands", "review.md") + ": command /review shadows the one in " + filepath.Join(cfg, "commands", "review.md"),
		filepath.Join(".claude", "commands", "review.md") + ": command /review shadows the one in " + filepath.Join(ws, ".rein", "commands", "review.md"),
		"leak.md: is a symbolic link leading outside the workspace; not read",
	}
	all := strings.Join(warnings, "\n")
	for _, w := range wantWarnings {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if len(warnings) != len(wantWarnings) {
		t.Errorf("%d warnings, want %d (one per problem):\n%s", len(warnings), len(wantWarnings), all)
	}
	for _, c := range set.Commands() {
		if strings.Contains(c.Body, "TOP SECRET") {
			t.Errorf("%s read a file outside its folder", c.Name)
		}
	}
}

func TestLoadMissingAndUnreadable(t *testing.T) {
	root := t.TempDir()
	set, warnings := Load(Dirs(filepath.Join(root, "none"), filepath.Join(root, "none")), nil)
	if set.Len() != 0 || len(warnings) != 0 {
		t.Errorf("missing folders: %d commands, warnings %q", set.Len(), warnings)
	}
	file := filepath.Join(root, "commands")
	writeTree(t, root, map[string]string{"commands": "a file, not a folder"})
	_, warnings = Load([]Dir{{Path: file, Layer: LayerUser}}, nil)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "cannot read the commands folder") {
		t.Errorf("warnings %q", warnings)
	}
	if big := filepath.Join(root, "big"); true {
		writeTree(t, big, map[string]string{"huge.md": strings.Repeat("x", MaxFile+1)})
		_, warnings = Load([]Dir{{Path: big, Layer: LayerUser}}, nil)
		if len(warnings) != 1 || !strings.Contains(warnings[0], "huge.md: larger than") {
			t.Errorf("warnings %q", warnings)
		}
	}
}

func TestNilSet(t *testing.T) {
	var s *Set
	if _, ok := s.Get("x"); ok || s.Len() != 0 || s.Names() != nil {
		t.Error("a nil Set is not empty")
	}
}
