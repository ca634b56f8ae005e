package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// The cockpit's defects (issue 21), each through the real binary.

// startDone runs the binary with args and no stdin and returns its exit
// code and output once it exited within d.
func (e *env) startDone(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	p := e.start(t, args...)
	p.stdin.Close()
	code := p.wait(t, d)
	return code, p.stdout.String(), p.stderr.String()
}

// sessionIDOf returns the id of the only session sessions list shows.
func (e *env) sessionIDOf(t *testing.T, stateDir string) string {
	t.Helper()
	_, out, errOut := e.startDone(t, 30*time.Second, "sessions", "list", "--state-dir", stateDir)
	id := regexp.MustCompile(`(?m)^(\S+)\s+\d{4}-`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("sessions list printed no session:\n%s%s", out, errOut)
	}
	return id[1]
}

// TestBinaryVerifiedSessionShowsAndReplays: a session that ran a [verify]
// check is shown and replayed. Its verify.result event carries the
// check's duration, which the store once could not read back ("cannot
// unmarshal into Go time.Duration within /verify/duration_ns").
func TestBinaryVerifiedSessionShowsAndReplays(t *testing.T) {
	e := newVerifyEnv(t, "")
	stateDir := filepath.Join(e.home, "state")
	srv := modeltest.NewServer(t,
		writeStatus("w1", "good and changed\n"),
		sse(textBody("Done.")),
	)
	code, out, errOut := e.startDone(t, 60*time.Second, "run", "--state-dir", stateDir, "-e", srv.URL, "fix the status")
	if code != 0 || !strings.Contains(errOut, "verify: "+verifyCheck) {
		t.Fatalf("run: exit %d, want 0 with a verify line\n%s%s", code, out, errOut)
	}
	id := e.sessionIDOf(t, stateDir)

	code, out, errOut = e.startDone(t, 30*time.Second, "sessions", "show", "--state-dir", stateDir, id)
	if code != 0 || !strings.Contains(out, "Done.") {
		t.Errorf("sessions show: exit %d, want 0 and the answer\n%s%s", code, out, errOut)
	}
	code, out, errOut = e.startDone(t, 30*time.Second, "sessions", "show", "--json", "--state-dir", stateDir, id)
	if code != 0 || !strings.Contains(out, `"duration_ns"`) {
		t.Errorf("sessions show --json: exit %d, want 0 and the check's duration\n%s%s", code, out, errOut)
	}
	writeFiles(t, e.workspace, map[string]string{"status.txt": "good\n"})
	code, out, errOut = e.startDone(t, 60*time.Second, "replay", "--state-dir", stateDir, id)
	if code != 0 || strings.Contains(out+errOut, "does not decode") {
		t.Errorf("replay: exit %d, want 0\n%s%s", code, out, errOut)
	}
}
