package history

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadInstructionsClaudeFallback: a directory without AGENTS.md gives
// its CLAUDE.md; one with both gives only AGENTS.md.
func TestLoadInstructionsClaudeFallback(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"CLAUDE.md":         "root claude rules",
		"a/AGENTS.md":       "a agents rules",
		"a/CLAUDE.md":       "a claude rules: not loaded, AGENTS.md wins",
		"a/b/CLAUDE.md":     "b claude rules",
		"a/b/c/CLAUDE.md/x": "a directory named CLAUDE.md: skipped",
	})
	text, files, err := LoadInstructions(ws, filepath.Join(ws, "a", "b", "c"), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"CLAUDE.md", "a/AGENTS.md", "a/b/CLAUDE.md"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := "# Instructions from CLAUDE.md\n\nroot claude rules" +
		"\n\n# Instructions from a/AGENTS.md\n\na agents rules" +
		"\n\n# Instructions from a/b/CLAUDE.md\n\nb claude rules"
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestLoadInstructionsClaudeSymlinkOut: CLAUDE.md is confined like
// AGENTS.md, and a refused AGENTS.md is not silently replaced by it.
func TestLoadInstructionsClaudeSymlinkOut(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.md": "outside text"})
	writeFiles(t, ws, map[string]string{"b/CLAUDE.md": "b claude rules"})
	if err := os.MkdirAll(filepath.Join(ws, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "a", "CLAUDE.md")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "b", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"a", "b"} {
		text, files, err := LoadInstructions(ws, filepath.Join(ws, dir), "", 0)
		if !errors.Is(err, ErrOutsideWorkspace) || len(files) != 0 || text != "" {
			t.Errorf("%s: text %q files %v err %v, want the link refused and nothing loaded", dir, text, files, err)
		}
	}
}
