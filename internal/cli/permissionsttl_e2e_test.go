package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestBinaryPermissionsAddTTL: `rein permissions add --ttl 7d -- CMD`
// lets that exact command run headless under the editor preset, list
// shows the expiry, and once the grant has ended it is ignored (the call
// needs approval again) and dropped from the file.
func TestBinaryPermissionsAddTTL(t *testing.T) {
	e := newEnv(t)
	state := filepath.Join(t.TempDir(), "state")
	res := e.invoke("").run(t, "permissions", "add", "--state-dir", state, "-C", e.workspace, "--ttl", "7d", "--", "touch", "made.txt")
	if res.code != 0 || !strings.Contains(res.stderr, "allowed command touch made.txt (exactly)") {
		t.Fatalf("add: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	res = e.invoke("").run(t, "permissions", "list", "--state-dir", state, "-C", e.workspace)
	week := time.Now().UTC().Add(7 * 24 * time.Hour).Format("2006-01-02")
	if res.code != 0 || !regexp.MustCompile(`^1\. command touch made\.txt \(exactly\) \(\d{4}-\d\d-\d\d, expires `+week+` \d\d:\d\d UTC\)\n$`).MatchString(res.stdout) {
		t.Fatalf("list: exit %d, stdout %q, stderr:\n%s", res.code, res.stdout, res.stderr)
	}
	call := sse(toolBody("c0", "run_command", mustJSONString(t, map[string]string{"command": "touch made.txt"})))
	srv := modeltest.NewServer(t, call, sse(textBody("done")), call, sse(textBody("done")))
	res = e.invoke("").run(t, "run", "--state-dir", state, "--approve", "never", "-e", srv.URL, "make it")
	if _, err := os.Stat(filepath.Join(e.workspace, "made.txt")); err != nil || res.code != 0 {
		t.Fatalf("the granted command did not run (exit %d): %v\nstderr:\n%s", res.code, err, res.stderr)
	}
	os.Remove(filepath.Join(e.workspace, "made.txt"))

	// The grant ends: rewrite its expiry into the past.
	file := filepath.Join(state, "permissions.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ended := regexp.MustCompile(`"expires": "[^"]+"`).ReplaceAll(data, []byte(`"expires": "2020-01-01T00:00:00Z"`))
	if err := os.WriteFile(file, ended, 0o600); err != nil {
		t.Fatal(err)
	}
	res = e.invoke("").run(t, "run", "--state-dir", state, "--approve", "never", "-e", srv.URL, "make it")
	if _, err := os.Stat(filepath.Join(e.workspace, "made.txt")); err == nil {
		t.Errorf("an ended grant still let the command run; stderr:\n%s", res.stderr)
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "touch") {
		t.Errorf("the ended grant was not pruned:\n%s", data)
	}
	res = e.invoke("").run(t, "permissions", "list", "--state-dir", state, "-C", e.workspace)
	if res.stdout != "" || !strings.Contains(res.stderr, "nothing is allowed") {
		t.Errorf("list after the end: stdout %q stderr %q", res.stdout, res.stderr)
	}
	for _, bad := range [][]string{{"--ttl", "0d", "--", "x"}, {"--ttl", "soon", "--", "x"}, {}, {"--tool", "a b"}, {"--tool", "x", "--", "y"}} {
		res = e.invoke("").run(t, append([]string{"permissions", "add", "--state-dir", state, "-C", e.workspace}, bad...)...)
		if res.code != 2 {
			t.Errorf("add %q: exit %d, want a usage error; stderr:\n%s", bad, res.code, res.stderr)
		}
	}
}
