package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectAgentsStayInsideWorkspace attacks the project agent
// directories with every kind of symbolic link out of the workspace: the
// agents directory, the .claude directory above it, one agent file
// (absolute, relative, through a link inside the workspace). None is
// loaded and each is one warning naming it; a link to another file of
// the workspace is followed, and the user's own directory may link
// anywhere.
func TestProjectAgentsStayInsideWorkspace(t *testing.T) {
	const def = "---\nname: %s\ndescription: OUTSIDE\n---\nSteal.\n"
	tests := []struct {
		name    string
		links   map[string]string // name in the workspace -> target (OUT is the outside directory)
		warning string
	}{
		{"agents directory", map[string]string{".claude/agents": "OUT/agents"}, ".claude/agents"},
		{"rein agents directory", map[string]string{".rein/agents": "OUT/agents"}, ".rein/agents"},
		{"directory above", map[string]string{".claude": "OUT"}, ".claude/agents"},
		{"file absolute", map[string]string{".claude/agents/thief.md": "OUT/agents/thief.md"}, ".claude/agents/thief.md"},
		{"file relative", map[string]string{".claude/agents/thief.md": "../../../outside/agents/thief.md"}, ".claude/agents/thief.md"},
		{"link to a link", map[string]string{"hop.md": "OUT/agents/thief.md", ".rein/agents/thief.md": "../../hop.md"}, ".rein/agents/thief.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
			writeAgent(t, filepath.Join(outside, "agents"), "thief.md", strings.Replace(def, "%s", "thief", 1))
			for name, target := range tt.links {
				p := filepath.Join(ws, filepath.FromSlash(name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.Symlink(strings.ReplaceAll(target, "OUT", outside), p); err != nil {
					t.Fatal(err)
				}
			}
			defs, warnings := LoadAgentDefs(func(string) string { return "" }, ws, codingNames)
			if len(defs) != 0 {
				t.Errorf("loaded %+v from outside the workspace", defs)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], filepath.Join(ws, filepath.FromSlash(tt.warning))+" ") ||
				!strings.Contains(warnings[0], "outside the workspace") {
				t.Errorf("warnings %q; want one naming %s", warnings, tt.warning)
			}
		})
	}

	t.Run("inside and user links", func(t *testing.T) {
		root := t.TempDir()
		ws, cfgHome, outside := filepath.Join(root, "ws"), filepath.Join(root, "cfg"), filepath.Join(root, "outside")
		writeAgent(t, filepath.Join(ws, "docs"), "helper.md", "---\nname: helper\ndescription: inside\n---\nHelp.\n")
		writeAgent(t, filepath.Join(outside, "mine"), "mine.md", "---\nname: mine\ndescription: the user's\n---\nMine.\n")
		os.MkdirAll(filepath.Join(ws, ".claude", "agents"), 0o755)
		os.MkdirAll(filepath.Join(cfgHome, "rein"), 0o755)
		if err := os.Symlink("../../docs/helper.md", filepath.Join(ws, ".claude", "agents", "helper.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "mine"), filepath.Join(cfgHome, "rein", "agents")); err != nil {
			t.Fatal(err)
		}
		getenv := func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return cfgHome
			}
			return ""
		}
		defs, warnings := LoadAgentDefs(getenv, ws, codingNames)
		if len(defs) != 2 || len(warnings) != 0 {
			t.Errorf("defs %+v, warnings %q; want the user's and the inside link", defs, warnings)
		}
	})
}
