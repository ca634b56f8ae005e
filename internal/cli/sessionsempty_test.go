package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// listedSessions returns rein sessions list --json as id → title.
func listedSessions(t *testing.T, e *env, args ...string) map[string]string {
	t.Helper()
	res := e.run(t, append([]string{"sessions", "list", "--json"}, args...)...)
	if res.code != 0 {
		t.Fatalf("sessions list: exit %d stderr %s", res.code, res.stderr)
	}
	out := map[string]string{}
	for _, l := range lines(res.stdout) {
		var info struct{ ID, Title string }
		if err := json.Unmarshal([]byte(l), &info); err != nil {
			t.Fatal(err)
		}
		out[info.ID] = info.Title
	}
	return out
}

// TestChatWithoutMessageRecordsNoSession: a chat opened and closed, and
// one whose only input is /clear, leave no session and no event log.
func TestChatWithoutMessageRecordsNoSession(t *testing.T) {
	e := newEnv(t)
	for _, stdin := range []string{"", "/clear\n/clear\n/exit\n"} {
		if res := e.invoke(stdin).run(t, "chat", "-e", closedPort(t)); res.code != 0 {
			t.Fatalf("chat %q: exit %d stderr %s", stdin, res.code, res.stderr)
		}
	}
	if got := listedSessions(t, e); len(got) != 0 {
		t.Errorf("sessions recorded by empty chats: %v", got)
	}
	logs, _ := filepath.Glob(filepath.Join(e.home, ".local", "state", "rein", "logs", "*"))
	if len(logs) != 0 {
		t.Errorf("event logs left by empty chats: %v", logs)
	}

	// A chat with a message is recorded, and a /clear after it leaves
	// the first session only.
	srv := modeltest.NewServer(t, sse(textBody("hi there")))
	if res := e.invoke("hello\n/clear\n").run(t, "chat", "-e", srv.URL); res.code != 0 {
		t.Fatalf("chat: exit %d stderr %s", res.code, res.stderr)
	}
	got := listedSessions(t, e)
	if len(got) != 1 {
		t.Fatalf("sessions after one message and /clear: %v, want 1", got)
	}
	for _, title := range got {
		if title != "hello" {
			t.Errorf("title %q, want hello", title)
		}
	}
}

// TestForkTitleSaysFork and an empty workspace's sessions list that
// points at the sessions of other workspaces.
func TestForkTitleSaysFork(t *testing.T) {
	e := newEnv(t)
	srv := modeltest.NewServer(t, sse(textBody("one")), sse(textBody("two")))
	if res := e.run(t, "run", "-e", srv.URL, "first task"); res.code != 0 {
		t.Fatalf("exit %d stderr %s", res.code, res.stderr)
	}
	orig := listedSessions(t, e)
	if res := e.run(t, "run", "-e", srv.URL, "--continue", "--fork", "second task"); res.code != 0 {
		t.Fatalf("fork: exit %d stderr %s", res.code, res.stderr)
	}
	all := listedSessions(t, e)
	if len(all) != 2 {
		t.Fatalf("sessions %v, want the original and the fork", all)
	}
	for id, title := range all {
		if _, ok := orig[id]; ok {
			if title != "first task" {
				t.Errorf("original's title %q", title)
			}
			continue
		}
		var origID string
		for o := range orig {
			origID = o
		}
		if want := "fork of " + origID[:8] + ": first task"; title != want {
			t.Errorf("fork's title %q, want %q", title, want)
		}
	}

	empty := filepath.Join(e.home, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	res := e.run(t, "sessions", "list", "-C", empty)
	want := "no sessions in " + empty + "; other workspaces hold 2 sessions (rein sessions list without -C shows them)"
	if res.code != 0 || res.stdout != "" || strings.TrimSpace(res.stderr) != want {
		t.Errorf("empty workspace: exit %d stdout %q stderr %q, want %q", res.code, res.stdout, res.stderr, want)
	}
}
