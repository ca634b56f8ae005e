package skill

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectSkillsStayInsideWorkspace attacks every level of a project
// skills source with a symbolic link out of the workspace: the .claude
// folder, its skills folder, one skill folder (absolute and relative),
// a SKILL.md. Nothing outside is loaded, and one problem names the link.
func TestProjectSkillsStayInsideWorkspace(t *testing.T) {
	tests := []struct{ name, link, target, problem, message string }{
		{"dot folder", ".claude", "OUT", ".claude/skills", "outside the workspace"},
		{"skills folder", ".claude/skills", "OUT/skills", ".claude/skills", "outside the workspace"},
		{"skill folder", ".rein/skills/pdf", "OUT/skills/pdf", ".rein/skills/pdf", "outside the workspace"},
		{"skill folder relative", ".agents/skills/pdf", "../../../outside/skills/pdf", ".agents/skills/pdf", "outside the workspace"},
		{"skill file", ".rein/skills/pdf/SKILL.md", "OUT/skills/pdf/SKILL.md", ".rein/skills/pdf/SKILL.md", "outside the skill folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
			writeTree(t, outside, map[string]string{"skills/pdf/SKILL.md": goodMD("pdf")})
			writeTree(t, ws, map[string]string{tt.link: "->" + strings.ReplaceAll(tt.target, "OUT", outside)})
			c := Discover(DefaultSources("", ws)...)
			if len(c.Skills()) != 0 {
				t.Fatalf("loaded %v through a link out of the workspace", c.Names())
			}
			p := onlyProblem(t, c.Problems())
			if p.Path != filepath.Join(ws, filepath.FromSlash(tt.problem)) || !strings.Contains(p.Message, tt.message) {
				t.Errorf("problem = %+v; want one naming %s", p, tt.problem)
			}
		})
	}
}
