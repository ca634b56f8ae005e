package cli_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// userContents returns the content of every user message of a Chat
// Completions request body.
func userContents(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body is not a chat request: %v\n%s", err, body)
	}
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestBinaryHookContextIsItsOwnParagraph: a UserPromptSubmit hook's
// context reaches the model a blank line after the user's prompt, not
// glued onto its last word ("try thingsContext from a hook…"), and the
// session's title is the prompt alone.
func TestBinaryHookContextIsItsOwnParagraph(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n"+hookTable("UserPromptSubmit", "", "echo 'the release branch is release-42'", 10))
	stateDir := filepath.Join(e.home, "state")
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	code, out, errOut := e.startDone(t, 60*time.Second, "run", "--state-dir", stateDir, "-e", srv.URL, "try things")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	want := []string{"try things\n\nContext from a hook (UserPromptSubmit):\nthe release branch is release-42"}
	if diff := cmp.Diff(want, userContents(t, reqs[0].Body)); diff != "" {
		t.Errorf("user messages sent (-want +got):\n%s", diff)
	}
	_, list, _ := e.startDone(t, 30*time.Second, "sessions", "list", "--state-dir", stateDir)
	if !strings.Contains(list, "try things") || strings.Contains(list, "Context from a hook") {
		t.Errorf("sessions list: want the title %q alone:\n%s", "try things", list)
	}
}
