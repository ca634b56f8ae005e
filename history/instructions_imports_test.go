package history

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInstructionImports: imports are read after their importer, relative
// to it, from the home's ~/.claude, once each, never from code.
func TestInstructionImports(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFiles(t, home, map[string]string{
		".claude/CLAUDE.md":   "user: see @~/notes/mine.md",
		"notes/mine.md":       "user notes (the user's own file may import from all of the home)",
		".claude/personal.md": "personal project notes",
	})
	writeFiles(t, ws, map[string]string{
		"AGENTS.md":        "agents: @docs/style.md",
		"CLAUDE.md":        "claude: @docs/style.md again, @~/.claude/personal.md, `@code.md`\n\n```\n@fenced.md\n```\n@missing.md @alice",
		"docs/style.md":    "style, with @../shared/common.md",
		"shared/common.md": "common rules",
		"code.md":          "CODE: never read",
		"fenced.md":        "FENCED: never read",
	})
	in, err := load(t, home, ws, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := []LoadedFile{
		{Path: "~/.claude/CLAUDE.md"},
		{Path: "~/notes/mine.md", ImportedBy: "~/.claude/CLAUDE.md"},
		{Path: "AGENTS.md"},
		{Path: "docs/style.md", ImportedBy: "AGENTS.md"},
		{Path: "shared/common.md", ImportedBy: "docs/style.md"},
		{Path: "CLAUDE.md"},
		{Path: "~/.claude/personal.md", ImportedBy: "CLAUDE.md"},
	}
	if diff := cmp.Diff(want, in.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if strings.Count(in.Text, "style, with") != 1 || strings.Contains(in.Text, "CODE:") || strings.Contains(in.Text, "FENCED:") {
		t.Errorf("text:\n%s", in.Text)
	}
	if !strings.Contains(in.Text, "# Instructions from shared/common.md (imported by docs/style.md)\n\ncommon rules") {
		t.Errorf("the import's header:\n%s", in.Text)
	}
}

// TestInstructionImportRefusals: an import that leads out of the workspace
// and the home, or from a repository into the home outside ~/.claude, or
// through a symlink out, or to a directory, is refused with a warning,
// and the rest still loads.
func TestInstructionImportRefusals(t *testing.T) {
	home, outside := t.TempDir(), t.TempDir()
	ws := filepath.Join(home, "src", "proj") // as usual, inside the home
	writeFiles(t, outside, map[string]string{"secret.md": "SECRET outside"})
	writeFiles(t, home, map[string]string{
		".ssh/id.md":         "SECRET key",
		"src/other/notes.md": "SECRET sibling project",
		".claude/ok.md":      "allowed from home",
	})
	abs := filepath.Join(outside, "secret.md")
	writeFiles(t, ws, map[string]string{
		"AGENTS.md": "@../../../" + filepath.Base(outside) + "/secret.md @" + abs + " @~/.ssh/id.md @../other/notes.md @link.md @docs @~/.claude/ok.md",
		"docs/x.md": "a directory is not a file",
	})
	mustLink(t, abs, filepath.Join(ws, "link.md"))
	in, err := load(t, home, ws, ws)
	if strings.Contains(in.Text, "SECRET") {
		t.Fatalf("read a refused import:\n%s", in.Text)
	}
	if diff := cmp.Diff([]string{"AGENTS.md", "~/.claude/ok.md"}, in.Paths()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if !errors.Is(err, ErrImportRefused) || !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("err = %v", err)
	}
	wantWarnings(t, err,
		"refused @"+abs+" in AGENTS.md: instruction import refused: it leads outside the workspace and your home directory",
		"refused @~/.ssh/id.md in AGENTS.md: instruction import refused: a repository's instructions may import from your home directory only under ~/.claude",
		"refused @../other/notes.md in AGENTS.md",
		"refused @link.md in AGENTS.md: instruction file leads outside the workspace",
		"refused @docs in AGENTS.md: instruction import refused: it is not a regular file",
	)
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != 6 {
		t.Errorf("%d warnings, want one per refused import (6):\n%s", n, err)
	}
	// Without a home, ~/ imports are refused, not resolved elsewhere.
	in, err = load(t, "", ws, ws)
	if !strings.Contains(fmt.Sprint(err), "no home directory") || strings.Contains(in.Text, "allowed from home") {
		t.Errorf("no home: err %v\n%s", err, in.Text)
	}
}

// TestInstructionImportCycles: a cycle is refused where it closes, and
// each file of it is read once.
func TestInstructionImportCycles(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"AGENTS.md": "root @a.md @AGENTS.md",
		"a.md":      "a @b.md",
		"b.md":      "b @a.md",
	})
	in, err := load(t, "", ws, ws)
	if diff := cmp.Diff([]string{"AGENTS.md", "a.md", "b.md"}, in.Paths()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantWarnings(t, err, "refused @a.md in b.md: instruction import refused: it closes a cycle (AGENTS.md → a.md → b.md → a.md)", "refused @AGENTS.md in AGENTS.md")
}

// TestInstructionImportDepth: five hops are followed, the sixth is not.
func TestInstructionImportDepth(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{"AGENTS.md": "level 0 @d1.md"}
	for i := 1; i <= 7; i++ {
		files[fmt.Sprintf("d%d.md", i)] = fmt.Sprintf("level %d @d%d.md", i, i+1)
	}
	writeFiles(t, ws, files)
	in, err := load(t, "", ws, ws)
	if len(in.Files) != 1+MaxImportDepth || !strings.Contains(in.Text, "level 5") || strings.Contains(in.Text, "level 6") {
		t.Errorf("files %v:\n%s", in.Paths(), in.Text)
	}
	if !errors.Is(err, ErrImportRefused) || !strings.Contains(err.Error(), "the imports of d5.md were not followed") {
		t.Errorf("err = %v", err)
	}
	// At the limit, a mention or a file read already is no loss: no warning.
	writeFiles(t, ws, map[string]string{"d5.md": "level 5 @alice @AGENTS.md @d1.md"})
	if in, err = load(t, "", ws, ws); err != nil || len(in.Files) != 1+MaxImportDepth {
		t.Errorf("files %v, err %v", in.Paths(), err)
	}
}

// TestInstructionImportsCapped: imports count toward the byte cap and the
// file cap.
func TestInstructionImportsCapped(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"AGENTS.md": "@big.md",
		"big.md":    strings.Repeat("big ", 2000),
		"CLAUDE.md": "after the cap",
	})
	in, err := LoadInstructionsFrom(InstructionSources{WorkspaceRoot: ws, MaxBytes: 1000})
	if err != nil || len(in.Text) > 1000 || !in.Truncated || in.NotLoaded != 1 || strings.Contains(in.Text, "after the cap") {
		t.Errorf("err %v, %d bytes, truncated %v, not loaded %d:\n%s", err, len(in.Text), in.Truncated, in.NotLoaded, in.Text)
	}
	if f := in.Files[len(in.Files)-1]; f.Path != "big.md" || !f.Cut {
		t.Errorf("last file %+v, want big.md cut", f)
	}

	var b strings.Builder
	many := map[string]string{}
	for i := range MaxInstructionFiles + 5 {
		fmt.Fprintf(&b, "@f%d.md ", i)
		many[fmt.Sprintf("f%d.md", i)] = "x"
	}
	many["AGENTS.md"] = b.String()
	ws = t.TempDir()
	writeFiles(t, ws, many)
	in, err = load(t, "", ws, ws)
	if len(in.Files) != MaxInstructionFiles || !strings.Contains(fmt.Sprint(err), "more than 64 instruction files") {
		t.Errorf("%d files, err %v", len(in.Files), err)
	}
}

// TestInstructionCredentialNames: a file named like a credential store —
// imported, reached through a symlink, or linked under an instruction
// file's name — is refused, so the repository cannot put a local secret
// into the model's context.
func TestInstructionCredentialNames(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFiles(t, ws, map[string]string{
		".env":              "SECRET_TOKEN=1",
		"config/id_ed25519": "SECRET key",
		"AGENTS.md":         "@.env @notes.md @config/id_ed25519 @ok.md",
		"ok.md":             "fine",
	})
	writeFiles(t, home, map[string]string{".claude/.aws/credentials": "SECRET aws"})
	mustLink(t, ".env", filepath.Join(ws, "notes.md"))
	mustLink(t, ".env", filepath.Join(ws, "CLAUDE.md"))
	writeFiles(t, ws, map[string]string{"CLAUDE.local.md": "@~/.claude/.aws/credentials"})
	in, err := load(t, home, ws, ws)
	if strings.Contains(in.Text, "SECRET") {
		t.Fatalf("read a credential:\n%s", in.Text)
	}
	if diff := cmp.Diff([]string{"AGENTS.md", "ok.md", "CLAUDE.local.md"}, in.Paths()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantWarnings(t, err,
		"refused @.env in AGENTS.md: instruction import refused: it is named like a credential store (.env)",
		"refused @notes.md in AGENTS.md: instruction import refused: it is named like a credential store (.env)",
		"refused @config/id_ed25519",
		"refused CLAUDE.md: it leads to a file named like a credential store (.env)",
		"refused @~/.claude/.aws/credentials in CLAUDE.local.md",
	)
}

// wantWarnings fails unless err's text holds every one of wants.
func wantWarnings(t *testing.T, err error, wants ...string) {
	t.Helper()
	msg := fmt.Sprint(err)
	for _, want := range wants {
		if !strings.Contains(msg, want) {
			t.Errorf("the warnings lack %q:\n%s", want, msg)
		}
	}
}
