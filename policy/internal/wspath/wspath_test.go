package wspath

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"hk": ".git/hooks", "out": "/etc", "up": "..", "loop": "loop", "abs": ws + "/.git"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{ws + "/hk/pre-commit", ws + "/.git/hooks/pre-commit"},
		{ws + "/abs/config", ws + "/.git/config"},
		{ws + "/out/passwd", "/etc/passwd"},
		{ws + "/up/x", filepath.Dir(ws) + "/x"},
		{ws + "/missing/a/../b", ws + "/missing/b"},
		{ws + "/./.git/../hk", ws + "/.git/hooks"},
		{"/elsewhere/x", "/elsewhere/x"},
		{"relative", "relative"},
	} {
		if got := Resolve(ws, tt.in); got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Resolve(ws, ws+"/loop/x"); !strings.HasPrefix(got, ws) {
		t.Errorf("a symlink loop resolved out of the workspace: %q", got)
	}
}

func TestExpandGlob(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	for _, f := range []string{"a.go", "b.go", "c.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, complete := ExpandGlob(ws, ws+"/*.go")
	if diff := cmp.Diff([]string{ws + "/a.go", ws + "/b.go"}, got); diff != "" || !complete {
		t.Errorf("ExpandGlob *.go (complete %v) (-want +got):\n%s", complete, diff)
	}
	if got, complete := ExpandGlob(ws, "/etc/*"); got != nil || complete {
		t.Errorf("a glob outside the workspace: %q, %v; want nothing, incomplete", got, complete)
	}
	if got, complete := ExpandGlob(ws, ws+"/nothere/*"); len(got) != 0 || !complete {
		t.Errorf("a glob in a missing directory: %q, %v", got, complete)
	}
	if _, complete := ExpandGlob(filepath.Join(ws, "gone"), filepath.Join(ws, "gone", "*")); !complete {
		t.Errorf("a workspace that does not exist matches nothing, completely")
	}
	many := filepath.Join(ws, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxGlobMatches + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, complete := ExpandGlob(ws, many+"/*"); len(got) != MaxGlobMatches || complete {
		t.Errorf("more matches than the bound: %d, complete %v; want %d, incomplete", len(got), complete, MaxGlobMatches)
	}
}

func TestProcPaths(t *testing.T) {
	for _, tt := range []struct {
		in, alias string
		cwd       bool
	}{
		{"/proc/self/root/etc/passwd", "/etc/passwd", false},
		{"/proc/1/task/2/root/x", "/x", false},
		{"/proc/thread-self/cwd/x", "/proc/thread-self/cwd/x", true},
		{"/proc/self/task/x/root/y", "/proc/self/task/x/root/y", false},
		{"/proc/pid/root/x", "/proc/pid/root/x", false},
		{"/etc/passwd", "/etc/passwd", false},
	} {
		if got := ProcAlias(tt.in); got != tt.alias {
			t.Errorf("ProcAlias(%q) = %q, want %q", tt.in, got, tt.alias)
		}
		if got := ProcCwd(tt.in); got != tt.cwd {
			t.Errorf("ProcCwd(%q) = %v", tt.in, got)
		}
	}
	if AllDigits("") || AllDigits("1a") || !AllDigits("042") {
		t.Error("AllDigits")
	}
}

func TestWordsAndNames(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"-fsecrets/x", []string{"secrets/x", "ecrets/x", "crets/x"}},
		{"--output=a/b", []string{"a/b"}},
		{"of=disk.img", []string{"of=disk.img", "disk.img"}},
		{"HEAD:secrets/key", []string{"HEAD:secrets/key", "secrets/key"}},
		{"-la", nil},
		{"--", nil},
	} {
		if got := Candidates(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Candidates(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !Within("/a/b", "/a") || Within("/ab", "/a") || !Within("/x", "/") || !Within("/a", "/a") {
		t.Error("Within")
	}
	if got := Quote(strings.Repeat("é", 100)); got != "`"+strings.Repeat("é", 80)+"…`" {
		t.Errorf("Quote of a long word: %q", got)
	}
	if CleanOr("", "/d") != "/d" || CleanOr("rel", "/d") != "/d" || CleanOr("/a/../b/", "/d") != "/b" {
		t.Error("CleanOr")
	}
	if got := AbsUnder("/w", "x"); got != "/w/x" {
		t.Errorf("AbsUnder = %q", got)
	}
}
