package git

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// gitIn runs git for test setup with a fixed identity and no user config.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func callTool(t *testing.T, tl tool.Tool, args map[string]any) *tool.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Call(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func openWS(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestStatusAndDiff(t *testing.T) {
	needGit(t)
	t.Setenv("HOME", t.TempDir()) // no user config leaks into the test
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), "one\ntwo\n")
	write(t, filepath.Join(dir, "staged.txt"), "s\n")
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "base")
	write(t, filepath.Join(dir, "a.txt"), "one\nTWO\n")
	write(t, filepath.Join(dir, "staged.txt"), "S\n")
	gitIn(t, dir, "add", "staged.txt")
	write(t, filepath.Join(dir, "new dir/untracked.txt"), "u\n")

	ws := openWS(t, dir)
	status, diff := Status(ws, Options{}), Diff(ws, Options{})
	res := callTool(t, status, nil)
	want := "## main\n M a.txt\nM  staged.txt\n?? \"new dir/\"\n"
	if res.IsError || res.Content != want {
		t.Errorf("git_status = %q (error %v), want %q", res.Content, res.IsError, want)
	}
	res = callTool(t, diff, nil)
	if res.IsError || !strings.Contains(res.Content, "diff --git a/a.txt b/a.txt") || !strings.Contains(res.Content, "-two\n+TWO\n") ||
		strings.Contains(res.Content, "staged.txt") {
		t.Errorf("git_diff:\n%s", res.Content)
	}
	res = callTool(t, diff, map[string]any{"staged": true})
	if res.IsError || !strings.Contains(res.Content, "-s\n+S\n") || strings.Contains(res.Content, "a.txt") {
		t.Errorf("git_diff staged:\n%s", res.Content)
	}
	res = callTool(t, diff, map[string]any{"path": "staged.txt"})
	if res.IsError || res.Content != "No unstaged changes." {
		t.Errorf("git_diff path: %q", res.Content)
	}
	for _, p := range []string{"../x", "/etc/passwd"} {
		res = callTool(t, diff, map[string]any{"path": p})
		if !res.IsError || !strings.Contains(res.Content, "path escapes the workspace") {
			t.Errorf("git_diff(%q) = %+v", p, res)
		}
	}
	res = callTool(t, diff, map[string]any{"path": ":(top)a.txt"})
	if res.IsError || res.Content != "No unstaged changes." {
		t.Errorf("pathspec magic was not taken literally: %+v", res)
	}
}

func TestNotARepository(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	probe := exec.Command("git", "rev-parse", "--git-dir")
	probe.Dir = dir
	if probe.Run() == nil {
		t.Skipf("%s lies inside a git repository on this machine", dir)
	}
	ws := openWS(t, dir)
	for _, tl := range Tools(ws, Options{}) {
		res := callTool(t, tl, nil)
		if !res.IsError || res.Content != "the workspace is not inside a git repository" {
			t.Errorf("%s outside a repository: %+v", tl.Spec().Name, res)
		}
	}
}

// TestHostileRepositoryConfigRunsNothing plants every configuration that
// makes git status or diff run a program; none may run.
func TestHostileRepositoryConfigRunsNothing(t *testing.T) {
	needGit(t)
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "pwned")
	touch := "sh -c 'echo $0 >> " + marker + "'"
	write(t, filepath.Join(dir, "f.txt"), "one\n")
	write(t, filepath.Join(dir, "w.txt"), "one\n")
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "base")
	cfg := `
[core]
	fsmonitor = ` + touch + ` fsmonitor
	pager = ` + touch + ` pager
[diff]
	external = ` + touch + ` external
[diff "evil"]
	textconv = ` + touch + ` textconv
	command = ` + touch + ` command
[filter "evil"]
	clean = ` + touch + ` clean
	smudge = ` + touch + ` smudge
	required = true
[filter "we=ird"]
	clean = ` + touch + ` weird
	process = ` + touch + ` process
`
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(cfg); err != nil {
		t.Fatal(err)
	}
	f.Close()
	write(t, filepath.Join(dir, ".gitattributes"), "f.txt filter=evil diff=evil\nw.txt filter=we=ird\n")
	hook := filepath.Join(dir, ".git", "hooks", "post-index-change")
	write(t, hook, "#!/bin/sh\necho hook >> "+marker+"\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "f.txt"), "two\n")
	write(t, filepath.Join(dir, "w.txt"), "two\n")
	t.Setenv("GIT_EXTERNAL_DIFF", "sh -c 'echo env >> "+marker+"'")

	ws := openWS(t, dir)
	for _, tc := range []struct {
		tl   tool.Tool
		args map[string]any
	}{
		{Status(ws, Options{}), nil},
		{Diff(ws, Options{}), nil},
		{Diff(ws, Options{}), map[string]any{"staged": true}},
		{Diff(ws, Options{}), map[string]any{"path": "f.txt"}},
	} {
		res := callTool(t, tc.tl, tc.args)
		if res.IsError {
			t.Errorf("%s(%v) failed: %s", tc.tl.Spec().Name, tc.args, res.Content)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("git ran configured programs: %q", b)
	}
	// Sanity: the same configuration does run programs under plain git,
	// so the test would catch a regression.
	cmd := exec.Command("git", "diff")
	cmd.Dir = dir
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("plain git diff ran nothing either: the hostile setup is ineffective")
	}
}

// outsideRepo makes a repository outside the workspace whose branch name
// and tracked content are markers that must never reach a tool's output,
// with a.txt modified so a diff there would show them.
func outsideRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	write(t, filepath.Join(repo, "a.txt"), "outside-content-4711\n")
	gitIn(t, repo, "init", "-q", "-b", "outside-branch-4711")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-qm", "outside-commit-4711")
	write(t, filepath.Join(repo, "a.txt"), "outside-change-4711\n")
	return repo
}

// wsRepo makes a workspace repository with a.txt changed.
func wsRepo(t *testing.T, dir string, initArgs ...string) {
	t.Helper()
	write(t, filepath.Join(dir, "a.txt"), "inside\n")
	gitIn(t, dir, append([]string{"init", "-q", "-b", "main"}, initArgs...)...)
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "inside")
	write(t, filepath.Join(dir, "a.txt"), "INSIDE\n")
}

// checkRefused calls both tools and wants a refusal naming want, with
// nothing of the outside repository in the output.
func checkRefused(t *testing.T, ws *workspace.Workspace, want string) {
	t.Helper()
	for _, tl := range Tools(ws, Options{}) {
		res := callTool(t, tl, nil)
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s = %+v, want a refusal containing %q", tl.Spec().Name, res, want)
		}
		if strings.Contains(res.Content, "4711") {
			t.Errorf("%s read the repository outside the workspace:\n%s", tl.Spec().Name, res.Content)
		}
	}
}

// checkWorks calls both tools and wants the workspace repository's
// changes.
func checkWorks(t *testing.T, ws *workspace.Workspace) {
	t.Helper()
	res := callTool(t, Status(ws, Options{}), nil)
	if res.IsError || !strings.Contains(res.Content, " M a.txt") || strings.Contains(res.Content, "4711") {
		t.Errorf("git_status:\n%s", res.Content)
	}
	res = callTool(t, Diff(ws, Options{}), nil)
	if res.IsError || !strings.Contains(res.Content, "-inside\n+INSIDE\n") || strings.Contains(res.Content, "4711") {
		t.Errorf("git_diff:\n%s", res.Content)
	}
}

func TestWorkspaceBelowRepositoryRoot(t *testing.T) {
	needGit(t)
	t.Setenv("HOME", t.TempDir())
	repo := t.TempDir()
	write(t, filepath.Join(repo, "outside-4711.txt"), "o\n")
	write(t, filepath.Join(repo, "ws", "inside.txt"), "i\n")
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-qm", "base")
	write(t, filepath.Join(repo, "outside-4711.txt"), "O\n")
	write(t, filepath.Join(repo, "ws", "inside.txt"), "I\n")
	ws := openWS(t, filepath.Join(repo, "ws"))
	checkRefused(t, ws, "the git repository of this workspace is at "+filepath.Join(filepath.Dir(ws.Dir()), ".git")+", outside the workspace")
	checkRefused(t, ws, "rein -C "+filepath.Dir(ws.Dir()))
}

// TestRepositoryOutsideWorkspaceRefused covers every way the workspace's
// .git can lead git to a repository elsewhere.
func TestRepositoryOutsideWorkspaceRefused(t *testing.T) {
	needGit(t)
	t.Setenv("HOME", t.TempDir())
	outside := outsideRepo(t)
	outsideGit, _ := filepath.EvalSymlinks(filepath.Join(outside, ".git"))

	t.Run("gitdir file", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.txt"), "inside\n")
		write(t, filepath.Join(dir, ".git"), "gitdir: "+outsideGit+"\n")
		checkRefused(t, openWS(t, dir), ".git names the git directory "+outsideGit+", outside the workspace")
	})
	t.Run("relative gitdir file", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "ws")
		write(t, filepath.Join(dir, "a.txt"), "inside\n")
		rel, err := filepath.Rel(dir, outsideGit)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, ".git"), "gitdir: "+rel+"\n")
		checkRefused(t, openWS(t, dir), "outside the workspace")
	})
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.txt"), "inside\n")
		if err := os.Symlink(outsideGit, filepath.Join(dir, ".git")); err != nil {
			t.Fatal(err)
		}
		checkRefused(t, openWS(t, dir), ".git leads to "+outsideGit+", outside the workspace")
	})
	t.Run("commondir", func(t *testing.T) {
		dir := t.TempDir()
		wsRepo(t, dir, "--separate-git-dir", filepath.Join(dir, ".gitdata"))
		write(t, filepath.Join(dir, ".gitdata", "commondir"), outsideGit+"\n")
		checkRefused(t, openWS(t, dir), "common git directory is "+outsideGit)
	})
	t.Run("alternates", func(t *testing.T) {
		dir := t.TempDir()
		wsRepo(t, dir)
		write(t, filepath.Join(dir, ".git", "objects", "info", "alternates"), filepath.Join(outsideGit, "objects")+"\n")
		checkRefused(t, openWS(t, dir), "borrows objects from "+filepath.Join(outsideGit, "objects"))
	})
	t.Run("objects symlink", func(t *testing.T) {
		dir := t.TempDir()
		wsRepo(t, dir)
		if err := os.RemoveAll(filepath.Join(dir, ".git", "objects")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outsideGit, "objects"), filepath.Join(dir, ".git", "objects")); err != nil {
			t.Fatal(err)
		}
		checkRefused(t, openWS(t, dir), "objects is "+filepath.Join(outsideGit, "objects"))
	})
}

// TestRepositoryInsideWorkspace covers the layouts whose git directory is
// elsewhere in the workspace, and the environment and configuration that
// would point git at another repository or work tree.
func TestRepositoryInsideWorkspace(t *testing.T) {
	needGit(t)
	t.Setenv("HOME", t.TempDir())
	outside := outsideRepo(t)

	t.Run("separate git dir", func(t *testing.T) {
		dir := t.TempDir()
		wsRepo(t, dir, "--separate-git-dir", filepath.Join(dir, ".gitdata"))
		checkWorks(t, openWS(t, dir))
	})
	t.Run("worktree", func(t *testing.T) {
		// The workspace is a linked worktree whose main repository lies
		// inside it: .git names .main/.git/worktrees/wt, whose commondir
		// leads back to .main/.git.
		dir := t.TempDir()
		main := filepath.Join(dir, ".main")
		write(t, filepath.Join(main, "a.txt"), "inside\n")
		gitIn(t, main, "init", "-q", "-b", "main")
		gitIn(t, main, "add", ".")
		gitIn(t, main, "commit", "-qm", "inside")
		gitIn(t, main, "worktree", "add", "-q", "--detach", filepath.Join(dir, "wt"))
		dotgit, err := os.ReadFile(filepath.Join(dir, "wt", ".git"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, ".git"), string(dotgit))
		if err := os.RemoveAll(filepath.Join(dir, "wt")); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "a.txt"), "INSIDE\n")
		write(t, filepath.Join(dir, ".gitignore"), ".main/\n.gitignore\n")
		ws := openWS(t, dir)
		res := callTool(t, Diff(ws, Options{}), nil)
		if res.IsError || !strings.Contains(res.Content, "-inside\n+INSIDE\n") {
			t.Errorf("git_diff in a worktree:\n%s", res.Content)
		}
	})
	t.Run("environment", func(t *testing.T) {
		dir := t.TempDir()
		wsRepo(t, dir)
		outsideGit := filepath.Join(outside, ".git")
		for k, v := range map[string]string{
			"GIT_DIR": outsideGit, "GIT_WORK_TREE": outside, "GIT_COMMON_DIR": outsideGit,
			"GIT_INDEX_FILE": filepath.Join(outsideGit, "index"), "GIT_OBJECT_DIRECTORY": filepath.Join(outsideGit, "objects"),
			"GIT_ALTERNATE_OBJECT_DIRECTORIES": filepath.Join(outsideGit, "objects"), "GIT_CONFIG_GLOBAL": filepath.Join(outsideGit, "config"),
			"GIT_EXEC_PATH": outside, "GIT_CEILING_DIRECTORIES": "/",
		} {
			t.Setenv(k, v)
		}
		checkWorks(t, openWS(t, dir))
	})
	t.Run("core.worktree", func(t *testing.T) {
		dir := t.TempDir()
		wsRepo(t, dir)
		gitIn(t, dir, "config", "core.worktree", outside)
		checkWorks(t, openWS(t, dir))
	})
}

func TestSpecs(t *testing.T) {
	ws := openWS(t, t.TempDir())
	for _, tl := range Tools(ws, Options{}) {
		s := tl.Spec()
		if !s.Effects.ReadsFiles || s.Effects.WritesFiles || s.Effects.Exec || s.Effects.Network {
			t.Errorf("%s effects %+v; want ReadsFiles only", s.Name, s.Effects)
		}
		if s.Annotations.ReadOnlyHint == nil || !*s.Annotations.ReadOnlyHint {
			t.Errorf("%s is not annotated read-only", s.Name)
		}
	}
}
