//go:build linux

package workspace

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reinharness/rein/workspace/sandbox"
	"golang.org/x/sys/unix"
)

// TestSandboxEverydayWork: what a coding agent does all day still works
// inside the namespaces.
func TestSandboxEverydayWork(t *testing.T) {
	requireNamespaces(t)
	ws, dir := openTemp(t, Options{Sandbox: sandbox.Required})
	mustWrite(t, filepath.Join(dir, "a.txt"), []byte("alpha\nbeta\ngamma\n"))
	for cmd, want := range map[string]string{
		"ls":                                    "a.txt\n",
		"cat a.txt | grep -n beta | tr a-z A-Z": "2:BETA\n",
		`echo t > "$TMPDIR/x" && cat "$TMPDIR/x" && rm "$TMPDIR/x"`:                        "t\n",
		"mkdir -p sub/d && echo y > sub/d/f && mv sub/d/f sub/g && cat sub/g && rm -r sub": "y\n",
		"head -c 3 /etc/passwd | wc -c":                                                    "3\n",
		"echo err >&2; echo out":                                                           "err\nout\n",
	} {
		if res := run(t, ws, cmd); res.ExitCode != 0 || res.Output != want {
			t.Errorf("%s: exit %d output %q, want %q", cmd, res.ExitCode, res.Output, want)
		}
	}

	if _, err := exec.LookPath("git"); err == nil {
		gitEnv := []string{
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_CONFIG_NOSYSTEM=1",
		}
		res := run(t, ws, "git init -q -b main && git add . && git commit -qm first && git log --oneline | wc -l", gitEnv...)
		if res.ExitCode != 0 || strings.TrimSpace(res.Output) != "1" {
			t.Fatalf("git init/add/commit in a fresh workspace: %+v", res)
		}
		// Now .git/config and .git/hooks exist and are read-only inside;
		// committing still works.
		res = run(t, ws, "echo delta >> a.txt && git commit -qam second && git log --oneline | wc -l && git status --short | wc -l", gitEnv...)
		if res.ExitCode != 0 || res.Output != "2\n0\n" {
			t.Errorf("git commit in a repository with protected config: %+v", res)
		}
		if fi, err := os.Stat(filepath.Join(dir, ".git", "hooks")); err != nil || !fi.IsDir() {
			t.Errorf(".git/hooks: %v", err)
		}
	} else {
		t.Log("git not installed: the git checks did not run")
	}

	if _, err := exec.LookPath("go"); err == nil {
		mustWrite(t, filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.22\n"))
		mustWrite(t, filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"built\") }\n"))
		mustWrite(t, filepath.Join(dir, "main_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"))
		goEnv := []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off"}
		res := run(t, ws, "go build -o bin/m . && ./bin/m && go test -count=1 . && go vet .", goEnv...)
		if res.ExitCode != 0 || !strings.Contains(res.Output, "built") || !strings.Contains(res.Output, "ok") {
			t.Errorf("go build and go test inside the sandbox: %+v", res)
		}
	} else {
		t.Log("go not on PATH: the go build check did not run")
	}
}

// TestSandboxFallbackLandlockOnly: without namespaces (the probe says
// bubblewrap is missing) commands run under Landlock alone, rein becomes
// non-dumpable, one warning names what is not confined, and "required"
// refuses with the fix.
func TestSandboxFallbackLandlockOnly(t *testing.T) {
	abi, err := sandbox.Available()
	if err != nil {
		t.Skipf("kernel lacks Landlock: %v", err)
	}
	noNS := func() (string, error) { return "", errors.New("bubblewrap not found") }
	t.Setenv("REIN_TEST_PARENT_SECRET", "sk-parent-secret-43")
	outside := visibleTempDir(t)
	var logged bytes.Buffer
	ws, dir := openTemp(t, Options{Sandbox: sandbox.Auto, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	ws.nsProbe = noNS

	first := run(t, ws, `echo data > "`+filepath.Join(outside, "x")+`"`)
	if !first.Sandboxed || first.Isolation != sandbox.IsolationLandlock || first.ExitCode == 0 {
		t.Errorf("outside write under Landlock alone: %+v", first)
	}
	for _, want := range []string{"bubblewrap not found", "Landlock only", "other processes", "metadata", "install bubblewrap"} {
		if !strings.Contains(first.Warning, want) {
			t.Errorf("warning %q lacks %q", first.Warning, want)
		}
	}
	if abi < 4 && !strings.Contains(first.Warning, "the network") {
		t.Errorf("ABI %d cannot block TCP, yet the warning does not say so: %q", abi, first.Warning)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("Landlock alone let a command write outside the workspace")
	}
	if res := run(t, ws, "echo in > inside && cat inside"); res.Output != "in\n" || res.Warning != "" {
		t.Errorf("inside write, or a second warning: %+v", res)
	}
	if n := strings.Count(logged.String(), "Landlock only"); n != 1 {
		t.Errorf("warned %d times, want once", n)
	}
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
		t.Errorf("rein is dumpable (%d, %v) after a Landlock-only command", d, err)
	}
	res := run(t, ws, "cat /proc/$PPID/environ")
	switch {
	case os.Geteuid() == 0:
		// Root owns the non-dumpable process's /proc files; on the
		// kernels tried it reads them even without CAP_SYS_PTRACE. The
		// warning says so.
		if !strings.Contains(first.Warning, "root") {
			t.Errorf("running as root, the warning does not say rein's environment is readable: %q", first.Warning)
		}
	case res.ExitCode == 0 || strings.Contains(res.Output, "sk-parent-secret-43"):
		t.Errorf("a command read rein's environment: %+v", res)
	}
	if abi >= 4 {
		res := run(t, ws, "echo > /dev/tcp/127.0.0.1/9")
		if res.ExitCode == 0 || !strings.Contains(res.Output, "Permission denied") {
			t.Errorf("Landlock ABI %d let a TCP connect through: %+v", abi, res)
		}
	}
	_ = dir

	req, rdir := openTemp(t, Options{Sandbox: sandbox.Required})
	req.nsProbe = noNS
	_, err = req.Exec(context.Background(), ExecOptions{Command: "touch ran"})
	if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "install bubblewrap") || !strings.Contains(err.Error(), `"required"`) {
		t.Errorf("required without namespaces: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rdir, "ran")); err == nil {
		t.Error("the command ran anyway")
	}
}

// BenchmarkSandboxStart measures the cost of starting a command: `true`
// unsandboxed, under Landlock alone and under namespaces and Landlock.
func BenchmarkSandboxStart(b *testing.B) {
	cases := []struct {
		name string
		mode sandbox.Mode
		ns   func() (string, error)
	}{
		{"off", sandbox.Off, nil},
		{"landlock", sandbox.Auto, func() (string, error) { return "", errors.New("pretend there is no bubblewrap") }},
		{"namespaces+landlock", sandbox.Required, nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			ws, err := Open(dir, Options{Sandbox: c.mode, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			ws.nsProbe = c.ns
			if res, err := ws.Exec(context.Background(), ExecOptions{Command: "true"}); err != nil || res.ExitCode != 0 {
				b.Skipf("cannot run here: %+v, %v", res, err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res, err := ws.Exec(context.Background(), ExecOptions{Command: "true"}); err != nil || res.ExitCode != 0 {
					b.Fatalf("run %d: %+v, %v", i, res, err)
				}
			}
		})
	}
	_ = strconv.Itoa
}
