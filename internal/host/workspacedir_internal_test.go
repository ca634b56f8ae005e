package host

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepositoryRoot(t *testing.T) {
	base := t.TempDir()
	mk := func(rel string, file bool) {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if file {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk("home/.git", false)
	mk("home/repo/.git", false)
	mk("home/repo/a/b", false)
	mk("home/wt/.git", true) // a worktree's .git is a file
	mk("home/wt/x", false)
	mk("home/plain/y", false)
	mk("outside/r/.git", false)
	mk("outside/r/s", false)
	home := filepath.Join(base, "home")
	tests := []struct{ dir, want string }{
		{"home/repo/a/b", "home/repo"},
		{"home/repo", "home/repo"},
		{"home/wt/x", "home/wt"},
		{"home/plain/y", "home/plain/y"}, // $HOME/.git is never reached
		{"home", "home"},
		{"outside/r/s", "outside/r"},
	}
	for _, tt := range tests {
		got := RepositoryRoot(filepath.Join(base, tt.dir), home)
		if want := filepath.Join(base, tt.want); got != want {
			t.Errorf("repositoryRoot(%s) = %s, want %s", tt.dir, got, want)
		}
	}
	if got := RepositoryRoot("/", ""); got != "/" {
		t.Errorf("repositoryRoot(/) = %s", got)
	}
}
