package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// load is LoadInstructionsFrom over a home and a workspace.
func load(t *testing.T, home, ws, workDir string) (*Instructions, error) {
	t.Helper()
	return LoadInstructionsFrom(InstructionSources{WorkspaceRoot: ws, WorkDir: workDir, Home: home})
}

// TestLoadInstructionsLayout: every name is read in every directory from
// the root down, in the documented order, the user's layer first.
func TestLoadInstructionsLayout(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFiles(t, home, map[string]string{
		".claude/CLAUDE.md":       "claude user rules",
		".config/rein/AGENTS.md":  "rein user rules",
		".claude/other/CLAUDE.md": "not a place rein looks",
	})
	writeFiles(t, ws, map[string]string{
		"AGENTS.md":         "root agents",
		"CLAUDE.md":         "root claude",
		".claude/CLAUDE.md": "root dot-claude",
		"CLAUDE.local.md":   "root local",
		"a/CLAUDE.md":       "a claude",
		"a/CLAUDE.local.md": "a local",
		"a/b/CLAUDE.md/x":   "a directory named CLAUDE.md: skipped",
		"a/b/c/CLAUDE.md":   "below the working directory: not loaded",
	})
	in, err := LoadInstructionsFrom(InstructionSources{
		WorkspaceRoot: ws, WorkDir: filepath.Join(ws, "a", "b"), Home: home, UserConfigDir: filepath.Join(home, ".config", "rein"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"~/.claude/CLAUDE.md", "~/.config/rein/AGENTS.md", "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "a/CLAUDE.md", "a/CLAUDE.local.md"}
	if diff := cmp.Diff(want, in.Paths()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	order := []string{"claude user rules", "rein user rules", "root agents", "root claude", "root dot-claude", "root local", "a claude", "a local"}
	last := -1
	for _, s := range order {
		i := strings.Index(in.Text, s)
		if i <= last {
			t.Errorf("%q out of order or missing:\n%s", s, in.Text)
		}
		last = i
	}
	if strings.Contains(in.Text, "not loaded") || strings.Contains(in.Text, "not a place") {
		t.Errorf("read a file it should not:\n%s", in.Text)
	}
}

// TestLoadInstructionsClaudeLinkedToAgents: the common CLAUDE.md → AGENTS.md
// symlink gives the text once.
func TestLoadInstructionsClaudeLinkedToAgents(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"AGENTS.md": "shared rules"})
	mustLink(t, "AGENTS.md", filepath.Join(ws, "CLAUDE.md"))
	in, err := load(t, "", ws, ws)
	if err != nil || strings.Count(in.Text, "shared rules") != 1 || len(in.Files) != 1 {
		t.Errorf("files %v, err %v:\n%s", in.Paths(), err, in.Text)
	}
}

// TestLoadInstructionsClaudeSymlinkOut: CLAUDE.md is confined like
// AGENTS.md, and refusing one file does not drop its neighbours.
func TestLoadInstructionsClaudeSymlinkOut(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.md": "outside text"})
	writeFiles(t, ws, map[string]string{"b/CLAUDE.md": "b claude rules"})
	if err := os.MkdirAll(filepath.Join(ws, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustLink(t, filepath.Join(outside, "secret.md"), filepath.Join(ws, "a", "CLAUDE.md"))
	mustLink(t, filepath.Join(outside, "secret.md"), filepath.Join(ws, "b", "AGENTS.md"))
	text, files, err := LoadInstructions(ws, filepath.Join(ws, "a"), "", 0)
	if !errors.Is(err, ErrOutsideWorkspace) || len(files) != 0 || text != "" {
		t.Errorf("a: text %q files %v err %v, want the link refused and nothing loaded", text, files, err)
	}
	text, files, err = LoadInstructions(ws, filepath.Join(ws, "b"), "", 0)
	if !errors.Is(err, ErrOutsideWorkspace) || !strings.Contains(err.Error(), "b/AGENTS.md") ||
		strings.Contains(text, "outside text") || !cmp.Equal(files, []string{"b/CLAUDE.md"}) {
		t.Errorf("b: text %q files %v err %v, want AGENTS.md refused and CLAUDE.md loaded", text, files, err)
	}
}
