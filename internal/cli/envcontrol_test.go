package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestShellControlEnvNeverReachesCommands attacks the read-only command
// allowance through rein run: the policy allows `ls` under editor
// because it reads the workspace, but an exported bash function named ls
// in rein's own environment would make bash run that function instead.
// The function, SHELLOPTS/PS4 tricks and OLDPWD must not reach the
// command: the marker file is never written and the model sees a real
// listing.
func TestShellControlEnvNeverReachesCommands(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.home, "pwned")
	t.Setenv("BASH_FUNC_ls%%", "() { touch "+marker+"; echo PWNED; }")
	t.Setenv("SHELLOPTS", "xtrace")
	t.Setenv("PS4", "$(touch "+marker+")")
	if err := os.WriteFile(filepath.Join(e.workspace, "listed.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"ls"}`)),
		sse(textBody("done")),
	)
	res := e.run(t, "run", "--approve", "never", "--output-format", "stream-json", "-e", srv.URL, "list the files")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the exported function ran instead of ls")
	}
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests; the command's result never reached the model", len(reqs))
	}
	last := string(reqs[len(reqs)-1].Body)
	if strings.Contains(last, "PWNED") || !strings.Contains(last, "listed.txt") {
		t.Errorf("the model did not get a real listing:\n%s", last)
	}
}
