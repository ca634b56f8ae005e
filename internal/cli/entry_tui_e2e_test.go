package cli_test

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// TestTUIBareReinOpensChat: bare rein on a terminal is the chat UI; a
// message typed goes to the model, a mistyped slash command gets the
// closest command, and rein "PROMPT" sends PROMPT as the first message.
func TestTUIBareReinOpensChat(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("Hello from the model.")), sse(textBody("Second answer here.")), sse(textBody("Line mode answer.")))
	e := newEnv(t)
	tm := e.startTerm(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("hi")
	tm.key("Enter")
	tm.waitText("Hello from the model.")
	tm.typ("/hlep")
	tm.key("Enter")
	tm.waitText("did you mean /help?")
	tm.typ("/mdoel qwen")
	tm.key("Enter")
	tm.waitText("did you mean /model?")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1 (a mistyped command reached the model)", len(reqs))
	}
	if diff := cmp.Diff([]string{"hi"}, userMessages(t, reqs[0].Body)); diff != "" {
		t.Errorf("user messages (-want +got):\n%s", diff)
	}

	tm = e.startTerm(t, 100, 30, "-e", srv.URL, `'explain this repo'`)
	s := tm.waitText("Second answer here.")
	if !strings.Contains(s, "› explain this repo") {
		t.Errorf("the first prompt is not shown as the user's message:\n%s", s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
	reqs = srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	if diff := cmp.Diff([]string{"explain this repo"}, userMessages(t, reqs[1].Body)); diff != "" {
		t.Errorf("rein PROMPT: user messages (-want +got):\n%s", diff)
	}

	// The line mode on a terminal echoes the first prompt and sends it.
	tm = e.startTerm(t, 100, 30, "--no-tui", "-e", srv.URL, `'in line mode'`)
	s = tm.waitText("Line mode answer.")
	if !strings.Contains(s, "› in line mode") {
		t.Errorf("line mode: the first prompt is not echoed:\n%s", s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
	reqs = srv.Requests()
	if diff := cmp.Diff([]string{"in line mode"}, userMessages(t, reqs[len(reqs)-1].Body)); diff != "" {
		t.Errorf("rein --no-tui PROMPT: user messages (-want +got):\n%s", diff)
	}
}

// TestTUIResumePicker: rein -r on a terminal lists this workspace's
// sessions, newest first; Down and Enter resume the one chosen (the
// model then sees its messages), Esc leaves without starting anything.
func TestTUIResumePicker(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("noted")), sse(textBody("noted")), sse(textBody("Resumed answer.")))
	e := newEnv(t)
	alpha := e.jsonSession(t, "run", "--output-format", "json", "-e", srv.URL, "alpha task")
	beta := e.jsonSession(t, "run", "--output-format", "json", "-e", srv.URL, "beta task")

	tm := e.startTerm(t, 120, 30, "-r", "-e", srv.URL)
	s := tm.waitText("↑/↓ move")
	ia, ib := strings.Index(s, alpha), strings.Index(s, beta)
	if ia < 0 || ib < 0 || ib > ia || !strings.Contains(s, "› "+beta) {
		t.Fatalf("picker does not list beta (selected) above alpha:\n%s", s)
	}
	t.Logf("picker:\n%s", s)
	tm.key("Down")
	tm.waitText("› " + alpha)
	tm.key("Enter")
	t.Logf("resumed:\n%s", tm.waitText("resumed session "+alpha))
	tm.typ("go on")
	tm.key("Enter")
	tm.waitText("Resumed answer.")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
	reqs := srv.Requests()
	if diff := cmp.Diff([]string{"alpha task", "go on"}, userMessages(t, reqs[len(reqs)-1].Body)); diff != "" {
		t.Errorf("picked session: user messages (-want +got):\n%s", diff)
	}

	for _, args := range [][]string{{"-c"}, {"-r", beta[:10]}, {"chat", "--resume", beta}} {
		tm = e.startTerm(t, 120, 30, append(args, "-e", srv.URL)...)
		want := "resumed session " + beta
		if args[0] == "-c" {
			want = "resumed session " + alpha // the latest: just continued
		}
		tm.waitText(want)
		tm.key("C-d")
		tm.waitText("REIN-EXITED 0")
	}

	tm = e.startTerm(t, 120, 30, "-r", "-e", srv.URL, `'a first prompt'`)
	tm.waitText("↑/↓ move")
	tm.key("Escape")
	s = tm.waitText("REIN-EXITED")
	if !strings.Contains(s, "no session picked") || !strings.Contains(s, "REIN-EXITED 130") {
		t.Errorf("Esc in the picker:\n%s", s)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("server saw %d requests, want 3", n)
	}
}

// TestTUIPickerTerminated: SIGTERM ends rein while the picker is shown
// (exit 130, the terminal restored), as it ends a run.
func TestTUIPickerTerminated(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("noted")))
	e := newEnv(t)
	e.jsonSession(t, "run", "--output-format", "json", "-e", srv.URL, "alpha task")
	tm := e.startTerm(t, 100, 30, "-r", "-e", srv.URL)
	tm.waitText("↑/↓ move")
	shell := strings.TrimSpace(tm.run("display-message", "-p", "-t", "rein", "#{pane_pid}"))
	out, err := exec.Command("pgrep", "-P", shell).Output()
	if err != nil {
		t.Fatalf("pgrep -P %s: %v", shell, err)
	}
	pid, err := strconv.Atoi(strings.Fields(string(out))[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s := tm.waitText("REIN-EXITED")
	if !strings.Contains(s, "REIN-EXITED 130") || !strings.Contains(s, "rein: interrupted") {
		t.Errorf("SIGTERM in the picker:\n%s", s)
	}
}
