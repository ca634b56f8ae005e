package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/config"
)

// TestProjectHookSettingsStayInsideWorkspace: a workspace's Claude Code
// settings file that is a symbolic link out of the workspace (the file,
// or the .claude folder above it; absolute or relative) is refused with
// one warning naming it, and its hooks are not loaded; a link inside the
// workspace is followed.
func TestProjectHookSettingsStayInsideWorkspace(t *testing.T) {
	const settings = `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"echo OUTSIDE"}]}]}}`
	tests := []struct {
		name    string
		links   map[string]string
		warning string // "" when the hooks load
	}{
		{"file absolute", map[string]string{".claude/settings.json": "OUT/settings.json"}, ".claude/settings.json"},
		{"file relative", map[string]string{".claude/settings.local.json": "../../outside/settings.json"}, ".claude/settings.local.json"},
		{"folder above", map[string]string{".claude": "OUT"}, ".claude"},
		{"link to a link", map[string]string{"conf/settings.json": "OUT/settings.json", ".claude/settings.json": "../conf/settings.json"}, ".claude/settings.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
			os.MkdirAll(outside, 0o755)
			os.WriteFile(filepath.Join(outside, "settings.json"), []byte(settings), 0o644)
			for name, target := range tt.links {
				p := filepath.Join(ws, filepath.FromSlash(name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.Symlink(strings.ReplaceAll(target, "OUT", outside), p); err != nil {
					t.Fatal(err)
				}
			}
			s, err := LoadHooks(&config.Config{}, ws)
			if err != nil {
				t.Fatal(err)
			}
			if s.Project.Len() != 0 {
				t.Errorf("%d hooks from outside the workspace were loaded", s.Project.Len())
			}
			if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], filepath.FromSlash(tt.warning)+": hooks not read") ||
				!strings.Contains(s.Warnings[0], "outside the workspace") {
				t.Errorf("warnings %q; want one naming %s", s.Warnings, tt.warning)
			}
		})
	}
	t.Run("inside", func(t *testing.T) {
		ws := t.TempDir()
		os.MkdirAll(filepath.Join(ws, "conf"), 0o755)
		os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
		os.WriteFile(filepath.Join(ws, "conf", "settings.json"), []byte(settings), 0o644)
		if err := os.Symlink("../conf/settings.json", filepath.Join(ws, ".claude", "settings.json")); err != nil {
			t.Fatal(err)
		}
		s, err := LoadHooks(&config.Config{}, ws)
		if err != nil || s.Project.Len() != 1 || len(s.Warnings) != 0 {
			t.Errorf("a link inside the workspace: %d hooks, warnings %q, %v", s.Project.Len(), s.Warnings, err)
		}
	})
}
