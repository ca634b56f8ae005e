package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestEverydayCommandsInSandbox: what users run every day still works
// inside the sandbox, through rein run, with every ask approved: listing
// and reading files, grep, git status/add/commit (git's config is
// read-only in there), go build/vet/test with the module and build caches
// usable, and npm test. With bubblewrap installed the sandbox mode is
// "required", so a command that could not be confined would be refused,
// not run bare.
func TestEverydayCommandsInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a Go module; skipped with -short")
	}
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIP: %s is not installed: %v", tool, err)
		}
	}
	mode := "required"
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatalf("bubblewrap is not installed (./scripts/test installs it): %v", err)
		}
		mode = "auto"
		t.Logf("SKIP the namespace sandbox: bubblewrap is not installed; commands run under Landlock only")
	}
	cache := freshGoEnv(t)
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[sandbox]\nmode = \""+mode+"\"\nwritable = ["+mustJSONString(t, cache)+"]\n")
	writeFiles(t, e.workspace, map[string]string{
		"go.mod": calcGoMod, "calc.go": calcFixed, "calc_test.go": calcTestGo,
		"README.md": "hello sandbox\n",
	})
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "t"}, {"config", "user.email", "t@t"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.workspace
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commands := []string{
		"ls -la", "cat README.md", "grep -rn hello .", "git status", "git add README.md calc.go",
		"git commit -q -m 'first commit'", "git log --oneline", "go build ./...", "go vet ./...", "go test ./...",
		"mkdir -p build && echo x > build/out.txt && rm -rf build", "echo tmp > \"$TMPDIR/x\" && cat \"$TMPDIR/x\"",
	}
	if _, err := exec.LookPath("npm"); err == nil {
		writeFiles(t, e.workspace, map[string]string{"package.json": `{"name":"x","version":"1.0.0","scripts":{"test":"node -e \"console.log('npm-test-ok')\""}}`})
		commands = append(commands, "npm test")
	}
	var calls []hostileCall
	for _, c := range commands {
		b := mustJSONString(t, map[string]any{"command": c, "timeout_s": 300})
		calls = append(calls, hostileCall{tool: "run_command", args: b})
	}
	srv := modeltest.NewServer(t, hostileTurns(calls)...)
	res := e.invoke("").runFor(t, 5*time.Minute, "run", "--preset", "editor", "--approve", "auto", "--max-steps", "1000", "-e", srv.URL, "work")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	results := toolResults(t, reqs[len(reqs)-1].Body)
	for i, c := range commands {
		if got := results[fmt.Sprintf("a%d", i)]; !strings.HasPrefix(got, "exit code 0") {
			t.Errorf("%q inside the sandbox: %q, want exit code 0", c, got)
		}
	}
	if !strings.Contains(results["a9"], "ok  \texample.com/calc") {
		t.Errorf("go test output: %q", results["a9"])
	}
}
