package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// systemText returns the system message of a recorded OpenAI request.
func systemText(t *testing.T, body []byte) string {
	t.Helper()
	for _, m := range requestJSON(t, body)["messages"].([]any) {
		mm := m.(map[string]any)
		if mm["role"] == "system" {
			s, _ := mm["content"].(string)
			return s
		}
	}
	return ""
}

// TestAgentsMDReachesEveryRequest checks that the user's and the
// workspace's AGENTS.md files are sent with the system prompt on every
// model call of a run.
func TestAgentsMDReachesEveryRequest(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"AGENTS.md": "Always answer in haiku."})
	writeFiles(t, filepath.Join(e.home, ".config", "rein"), map[string]string{"AGENTS.md": "The user prefers metric units."})
	srv := modeltest.NewServer(t, sse(toolBody("c1", "calculator", `{"expression":"1+1"}`)), sse(textBody("two")))
	res := e.run(t, "run", "-e", srv.URL, "--system", "You are terse.", "add")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for i, req := range srv.Requests() {
		sys := systemText(t, req.Body)
		for _, want := range []string{"You are terse.", "Always answer in haiku.", "The user prefers metric units."} {
			if !strings.Contains(sys, want) {
				t.Errorf("request %d system message lacks %q:\n%s", i, want, sys)
			}
		}
		if strings.Index(sys, "metric units") > strings.Index(sys, "haiku") {
			t.Errorf("request %d: the user's AGENTS.md should come before the workspace's:\n%s", i, sys)
		}
	}
}

// TestContextConfig checks the [context] table: a bad strategy is one
// clear error naming the file, and /compact explains what it needs when the
// strategy cannot summarize.
func TestContextConfig(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[context]\nstrategy = \"sumarize\"\n")
	res := e.run(t, "run", "-e", "http://127.0.0.1:1", "hi")
	if res.code != 1 || !strings.Contains(res.stderr, `unknown context strategy "sumarize"`) || !strings.Contains(res.stderr, "config.toml") {
		t.Errorf("bad strategy: exit %d stderr %q", res.code, res.stderr)
	}

	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[context]\nstrategy = \"window\"\n")
	res = e.invoke("/compact\n").run(t, "chat", "-e", "http://127.0.0.1:1")
	if res.code != 0 || !strings.Contains(res.stderr, `/compact needs the summarize context strategy`) {
		t.Errorf("/compact under window: exit %d stderr %q", res.code, res.stderr)
	}
}

// TestChatCompact summarizes a conversation on request: the summary call
// goes to the same model server, and the next turn's request carries the
// summary in place of the earlier turns.
func TestChatCompact(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[context]\nkeep_recent = 2\n")
	srv := modeltest.NewServer(t,
		sse(textBody("first answer")),
		sse(textBody("second answer")),
		sse(textBody("SUMMARY: the user asked two questions.")),
		sse(textBody("third answer")),
	)
	input := "/compact\nfirst question\nsecond question\n/compact\nthird question\n"
	res := e.invoke(input).run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "(nothing to compact") {
		t.Errorf("an empty conversation should have nothing to compact:\n%s", res.stderr)
	}
	if !strings.Contains(res.stderr, "(compacted: ") {
		t.Errorf("stderr lacks the compaction report:\n%s", res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("server saw %d requests, want 4 (two turns, the summary, one turn)", len(reqs))
	}
	last := string(reqs[3].Body)
	if !strings.Contains(last, "SUMMARY: the user asked two questions.") {
		t.Errorf("the turn after /compact does not carry the summary:\n%s", last)
	}
	if strings.Contains(last, "first answer") {
		t.Errorf("the turn after /compact still sends the summarized turns:\n%s", last)
	}
}

// TestSummaryRestoredOnResume checks that a summary made before rein
// stopped is restored from the session, so the resumed run sends it in
// place of the summarized turns without asking the model to summarize
// again.
func TestSummaryRestoredOnResume(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[context]\nkeep_recent = 2\n")
	srv := modeltest.NewServer(t,
		sse(textBody("first answer")),
		sse(textBody("second answer")),
		sse(textBody("SUMMARY: two questions were asked.")),
		sse(textBody("third answer")),
		sse(textBody("fourth answer")),
	)
	res := e.invoke("first question\nsecond question\n/compact\nthird question\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("chat: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	res = e.run(t, "run", "--continue", "-e", srv.URL, "fourth question")
	if res.code != 0 {
		t.Fatalf("run --continue: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("server saw %d requests, want 5 (no second summary call)", len(reqs))
	}
	last := string(reqs[4].Body)
	if !strings.Contains(last, "SUMMARY: two questions were asked.") || strings.Contains(last, "first answer") {
		t.Errorf("the resumed run does not send the restored summary in place of the old turns:\n%s", last)
	}
}
