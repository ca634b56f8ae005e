package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree creates files under dir: path → content. A content starting
// with "->" makes a symbolic link to the rest.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// skillMD returns a SKILL.md with the given front matter lines.
func skillMD(front string, body string) string {
	return "---\n" + front + "\n---\n" + body
}

func goodMD(name string) string {
	return skillMD("name: "+name+"\ndescription: Does things with "+name+" files. Use when the user mentions "+name+".", "# "+name+"\n\nStep one.\n")
}

// onlyProblem fails unless ps holds exactly one problem and returns it.
func onlyProblem(t *testing.T, ps []Problem) Problem {
	t.Helper()
	if len(ps) != 1 {
		t.Fatalf("got %d problems, want 1: %v", len(ps), ps)
	}
	return ps[0]
}
