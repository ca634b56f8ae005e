package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOtherAgentsFiles: with Others set, the other agents' project-wide
// files are read at the root after CLAUDE.md and before CLAUDE.local.md;
// Cursor rules scoped to some files are left out, front matter is not
// part of the text, and only GEMINI.md's imports are followed.
func TestOtherAgentsFiles(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"AGENTS.md":                       "root agents",
		"CLAUDE.local.md":                 "root local",
		"GEMINI.md":                       "gemini rules @gemini-extra.md",
		"gemini-extra.md":                 "imported by gemini",
		".github/copilot-instructions.md": "copilot rules @not-imported.md",
		"not-imported.md":                 "SHOULD NOT APPEAR copilot import",
		".cursorrules":                    "legacy cursor rules",
		".cursor/rules/a-always.mdc":      "---\ndescription: x\nglobs: *.ts\nalwaysApply: true\n---\nalways rule",
		".cursor/rules/b-scoped.mdc":      "---\nglobs: *.ts,*.tsx\nalwaysApply: false\n---\nSHOULD NOT APPEAR scoped",
		".cursor/rules/c-listed.mdc":      "---\nglobs:\n  - src/**\n---\nSHOULD NOT APPEAR listed",
		".cursor/rules/d-noglobs.mdc":     "---\ndescription: style\nglobs:\nalwaysApply: false\n---\nno-globs rule",
		".cursor/rules/e-plain.mdc":       "plain rule without front matter",
		".cursor/rules/notes.txt":         "SHOULD NOT APPEAR not an mdc",
		".cursor/rules/sub/f.mdc":         "SHOULD NOT APPEAR in a subfolder",
		"a/GEMINI.md":                     "SHOULD NOT APPEAR below the root",
	})
	in, err := LoadInstructionsFrom(InstructionSources{WorkspaceRoot: ws, WorkDir: filepath.Join(ws, "a"), Others: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"AGENTS.md", "GEMINI.md", "gemini-extra.md", ".github/copilot-instructions.md", ".cursorrules",
		".cursor/rules/a-always.mdc", ".cursor/rules/d-noglobs.mdc", ".cursor/rules/e-plain.mdc", "CLAUDE.local.md"}
	if diff := cmp.Diff(want, in.Paths()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if strings.Contains(in.Text, "SHOULD NOT APPEAR") || strings.Contains(in.Text, "alwaysApply") || strings.Contains(in.Text, "description:") {
		t.Errorf("text holds what it should not:\n%s", in.Text)
	}
	for _, s := range []string{"always rule", "no-globs rule", "legacy cursor rules", "imported by gemini"} {
		if !strings.Contains(in.Text, s) {
			t.Errorf("missing %q:\n%s", s, in.Text)
		}
	}

	off, err := LoadInstructionsFrom(InstructionSources{WorkspaceRoot: ws})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"AGENTS.md", "CLAUDE.local.md"}, off.Paths()); diff != "" {
		t.Errorf("Others off (-want +got):\n%s", diff)
	}
}

// TestOtherAgentsFilesRefused: the same confinement and caps hold: a
// rule symlinked out of the workspace is refused, an unclosed front
// matter is reported, and the byte cap cuts.
func TestOtherAgentsFilesRefused(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("SECRET OUTSIDE"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{
		".cursor/rules/broken.mdc": "---\nalwaysApply: true\nno end",
		".cursorrules":             strings.Repeat("x", 5000),
	})
	if err := os.Symlink(secret, filepath.Join(ws, "GEMINI.md")); err != nil {
		t.Skip(err)
	}
	in, err := LoadInstructionsFrom(InstructionSources{WorkspaceRoot: ws, Others: true, MaxBytes: 1000})
	if !errors.Is(err, ErrOutsideWorkspace) || !strings.Contains(err.Error(), "GEMINI.md") {
		t.Errorf("err = %v, want GEMINI.md refused as outside", err)
	}
	if strings.Contains(in.Text, "SECRET") {
		t.Errorf("read through the symlink:\n%s", in.Text)
	}
	if !in.Truncated || len(in.Text) > 1000 {
		t.Errorf("cap not applied: truncated=%v len=%d", in.Truncated, len(in.Text))
	}
	// The broken rule comes after the cut; on its own it is reported.
	in, err = LoadInstructionsFrom(InstructionSources{WorkspaceRoot: ws, Others: true})
	if err == nil || !strings.Contains(err.Error(), "broken.mdc not loaded") {
		t.Errorf("err = %v, want the unclosed front matter reported", err)
	}
	if slicesContains(in.Paths(), ".cursor/rules/broken.mdc") {
		t.Errorf("loaded the broken rule: %v", in.Paths())
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestMdcApplies(t *testing.T) {
	tests := []struct {
		doc     string
		applies bool
		body    string
		err     bool
	}{
		{"---\nalwaysApply: true\n---\nbody", true, "body", false},
		{"---\nalwaysApply: TRUE\nglobs: \"*.go\"\n---\nb", true, "b", false},
		{"---\nglobs: *.go\n---\nb", false, "", false},
		{"---\nglobs: []\n---\nb", true, "b", false},
		{"---\nglobs:\n- a\n---\nb", false, "", false},
		{"---\nglobs:\n---\nb", true, "b", false},
		{"---\n  alwaysApply: true\nglobs: x\n---\nb", false, "", false},
		{"no front matter", true, "no front matter", false},
		{"\ufeff---\r\nalwaysApply: true\r\n---\r\nb", true, "b", false},
		{"---\nalwaysApply: true\n", false, "", true},
		{"---", false, "", true},
		{"", true, "", false},
	}
	for _, tt := range tests {
		body, applies, err := mdcApplies(tt.doc)
		if applies != tt.applies || (err != nil) != tt.err || body != tt.body {
			t.Errorf("mdcApplies(%q) = %q, %v, %v; want %q, %v, err %v", tt.doc, body, applies, err, tt.body, tt.applies, tt.err)
		}
	}
}

// FuzzMdcApplies: any bytes parse without a panic, a rule that applies
// returns a suffix of the document as its body, and one that does not
// returns no text.
func FuzzMdcApplies(f *testing.F) {
	for _, s := range []string{"---\nalwaysApply: true\n---\nb", "---\nglobs:\n  - x\n---\n", "---\n---\n", "---", "\ufeff---\r\n", "---\nglobs: *\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		body, applies, err := mdcApplies(doc)
		if err != nil && (applies || body != "") {
			t.Fatalf("error %v with body %q applies %v", err, body, applies)
		}
		if !applies && body != "" {
			t.Fatalf("a rule that does not apply returned text %q", body)
		}
		if applies && !strings.HasSuffix(strings.TrimPrefix(doc, "\ufeff"), body) {
			t.Fatalf("body %q is not a suffix of the document", body)
		}
	})
}
