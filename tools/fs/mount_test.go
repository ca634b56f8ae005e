package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mount serves read_file paths under its prefix, never the workspace,
// and write_file and edit_file refuse them.
func TestMountedReadOnlyPaths(t *testing.T) {
	ws, dir := newWS(t, map[string]string{"a.txt": "workspace\n"})
	outside := filepath.Join(t.TempDir(), "ref.md")
	if err := os.WriteFile(outside, []byte("mounted line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []string
	opts := Options{Mounts: []Mount{{Prefix: "skill://", Open: func(p string) (*os.File, error) {
		asked = append(asked, p)
		if p != "skill://s/ref.md" {
			return nil, os.ErrNotExist
		}
		return os.Open(outside)
	}}}}
	res := call(t, findTool(t, ws, opts, "read_file"), map[string]any{"path": "skill://s/ref.md"})
	if res.IsError || !strings.Contains(res.Content, "1\tmounted line") {
		t.Errorf("mounted read: %+v", res)
	}
	res = call(t, findTool(t, ws, opts, "read_file"), map[string]any{"path": "skill://s/none"})
	if !res.IsError || !strings.Contains(res.Content, "does not exist") {
		t.Errorf("missing mounted file: %+v", res)
	}
	if res := call(t, findTool(t, ws, opts, "read_file"), map[string]any{"path": "a.txt"}); res.IsError {
		t.Errorf("workspace read: %+v", res)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "skill://s/ref.md", "content": "x"}},
		{"edit_file", map[string]any{"path": "skill://s/ref.md", "old_string": "mounted", "new_string": "changed"}},
	} {
		res := call(t, findTool(t, ws, opts, tc.tool), tc.args)
		if !res.IsError || !strings.Contains(res.Content, "is read-only: files under skill:// cannot be changed") {
			t.Errorf("%s: %+v", tc.tool, res)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != "mounted line\n" {
		t.Errorf("the mounted file changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "skill:")); err == nil {
		t.Error("a write created skill: in the workspace")
	}
	if len(asked) != 2 {
		t.Errorf("mount asked %q", asked)
	}
}
