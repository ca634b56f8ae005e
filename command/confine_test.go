package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectCommandsStayInsideWorkspace attacks the project layer with
// every kind of symbolic link out of the workspace: the commands folder
// itself, the .claude folder above it, a command file (absolute and
// relative links, and a link to a link). None is read, each is one
// warning naming it; a link to another file of the workspace is
// followed, and the user's own folder may be a link anywhere.
func TestProjectCommandsStayInsideWorkspace(t *testing.T) {
	type setup func(t *testing.T, ws, outside string)
	link := func(target, name string) setup {
		return func(t *testing.T, ws, outside string) {
			t.Helper()
			target := strings.ReplaceAll(target, "OUT", outside)
			p := filepath.Join(ws, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name    string
		setup   []setup
		warning string // the path the one warning names, "" for none
	}{
		{"commands folder", []setup{link("OUT/cmds", ".claude/commands")}, ".claude/commands"},
		{"rein commands folder", []setup{link("OUT/cmds", ".rein/commands")}, ".rein/commands"},
		{"folder above", []setup{link("OUT", ".claude")}, ".claude/commands"},
		{"file absolute", []setup{link("OUT/cmds/steal.md", ".claude/commands/steal.md")}, ".claude/commands/steal.md"},
		{"file relative", []setup{link("../../../outside/cmds/steal.md", ".claude/commands/steal.md")}, ".claude/commands/steal.md"},
		{"link to a link", []setup{link("OUT/cmds/steal.md", "hop.md"), link("../../hop.md", ".claude/commands/steal.md")}, ".claude/commands/steal.md"},
		{"nested file", []setup{link("OUT/cmds/steal.md", ".rein/commands/a/b/steal.md")}, ".rein/commands/a/b/steal.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
			writeTree(t, outside, map[string]string{"cmds/steal.md": "OUTSIDE SECRET", "commands/steal.md": "OUTSIDE SECRET"})
			os.MkdirAll(ws, 0o755)
			for _, s := range tt.setup {
				s(t, ws, outside)
			}
			set, warnings := Load(Dirs("", ws), nil)
			for _, c := range set.Commands() {
				if strings.Contains(c.Body, "OUTSIDE SECRET") {
					t.Errorf("/%s was read from outside the workspace", c.Name)
				}
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], filepath.Join(ws, filepath.FromSlash(tt.warning))+":") ||
				!strings.Contains(warnings[0], "outside the workspace") {
				t.Errorf("warnings %q; want one naming %s", warnings, tt.warning)
			}
		})
	}

	t.Run("inside and user links", func(t *testing.T) {
		root := t.TempDir()
		ws, cfg, outside := filepath.Join(root, "ws"), filepath.Join(root, "cfg"), filepath.Join(root, "outside")
		writeTree(t, ws, map[string]string{"docs/deploy.md": "deploy it"})
		writeTree(t, outside, map[string]string{"mine/user.md": "the user's own"})
		link("../../docs/deploy.md", ".claude/commands/deploy.md")(t, ws, outside)
		os.MkdirAll(cfg, 0o755)
		if err := os.Symlink(filepath.Join(outside, "mine"), filepath.Join(cfg, "commands")); err != nil {
			t.Fatal(err)
		}
		set, warnings := Load(Dirs(cfg, ws), nil)
		d, _ := set.Get("deploy")
		u, _ := set.Get("user")
		if len(warnings) != 0 || d == nil || d.Body != "deploy it" || u == nil || u.Body != "the user's own" {
			t.Errorf("deploy %+v, user %+v, warnings %q", d, u, warnings)
		}
	})
}

// TestCommandWarningsAreEscaped: a file name chosen by a repository
// cannot write control sequences into the warning.
func TestCommandWarningsAreEscaped(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	name := "x\x1b]52;c;ZWNobyBoaQ==\x07.md"
	if err := os.MkdirAll(filepath.Join(ws, ".claude", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(ws, ".claude", "commands", name)); err != nil {
		t.Fatal(err)
	}
	_, warnings := Load(Dirs("", ws), nil)
	if len(warnings) != 1 || strings.ContainsAny(warnings[0], "\x1b\x07") {
		t.Errorf("warnings %q", warnings)
	}
}
