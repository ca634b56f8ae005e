package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestWorkspaceDefaultsToRepositoryRoot: opened in a subdirectory of a git
// repository, rein works on the repository root (a write of "marker.txt"
// lands there), loads AGENTS.md from the root down to the current
// directory, CLAUDE.md where a directory has no AGENTS.md, and records the
// session under the root; -C keeps the workspace exactly as given.
func TestWorkspaceDefaultsToRepositoryRoot(t *testing.T) {
	e := newEnv(t)
	repo := filepath.Join(filepath.Dir(e.workspace), "repo")
	sub := filepath.Join(repo, "pkg", "deep")
	writeFiles(t, repo, map[string]string{
		".git/HEAD":        "ref: refs/heads/main\n",
		"AGENTS.md":        "Root rules: be brief.",
		"pkg/CLAUDE.md":    "Pkg rules from CLAUDE.md.",
		"pkg/deep/keep.go": "package deep\n",
	})
	e.workspace = sub
	write := `{"path":"marker.txt","content":"here\n"}`
	srv := modeltest.NewServer(t, sse(toolBody("c1", "write_file", write)), sse(textBody("done")))
	res := e.run(t, "run", "-e", srv.URL, "--approve", "auto", "mark")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "marker.txt")); err != nil {
		t.Errorf("the write did not land at the repository root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, "marker.txt")); err == nil {
		t.Errorf("the write landed in the current directory, not the repository root")
	}
	sys := systemText(t, srv.Requests()[0].Body)
	for _, want := range []string{"Root rules: be brief.", "Instructions from pkg/CLAUDE.md", "Pkg rules from CLAUDE.md."} {
		if !strings.Contains(sys, want) {
			t.Errorf("system message lacks %q:\n%s", want, sys)
		}
	}
	list := e.run(t, "sessions", "list", "--json")
	if !strings.Contains(list.stdout, `"workspace":"`+repo+`"`) {
		t.Errorf("session not recorded under the repository root %s:\n%s", repo, list.stdout)
	}

	// -C is authoritative: the subdirectory is the workspace, and the
	// repository root's AGENTS.md is outside it.
	srv2 := modeltest.NewServer(t, sse(toolBody("c1", "write_file", write)), sse(textBody("done")))
	res = e.run(t, "run", "-e", srv2.URL, "--approve", "auto", "-C", sub, "mark")
	if res.code != 0 {
		t.Fatalf("-C: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(sub, "marker.txt")); err != nil {
		t.Errorf("-C %s: the write did not land there: %v", sub, err)
	}
	if sys := systemText(t, srv2.Requests()[0].Body); strings.Contains(sys, "Root rules") {
		t.Errorf("-C %s loaded the repository root's AGENTS.md:\n%s", sub, sys)
	}
}

// TestWorkspaceNeverWidensToHome: a dotfiles repository in $HOME does not
// make a project under it part of one home-wide workspace.
func TestWorkspaceNeverWidensToHome(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.home, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "proj/a.txt": "a\n"})
	e.workspace = filepath.Join(e.home, "proj")
	srv := modeltest.NewServer(t, sse(toolBody("c1", "write_file", `{"path":"marker.txt","content":"x"}`)), sse(textBody("done")))
	if res := e.run(t, "run", "-e", srv.URL, "--approve", "auto", "mark"); res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "marker.txt")); err != nil {
		t.Errorf("the workspace should stay the current directory under a $HOME repository: %v", err)
	}
}
