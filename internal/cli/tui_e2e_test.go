package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// tmuxTerm is rein running in a real terminal: a tmux pane on a private
// server socket.
type tmuxTerm struct {
	t      *testing.T
	socket string
}

// startTUI runs `rein chat` with args in a w×h tmux pane.
func (e *env) startTUI(t *testing.T, w, h int, args ...string) *tmuxTerm {
	t.Helper()
	return e.startTerm(t, w, h, append([]string{"chat"}, args...)...)
}

// startTerm runs rein with args in a w×h tmux pane.
func (e *env) startTerm(t *testing.T, w, h int, args ...string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
			t.Fatal("tmux is not installed (./scripts/test installs it)")
		}
		t.Skip("tmux is not installed; skipping the terminal end-to-end test")
	}
	tm := &tmuxTerm{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	cmdline := fmt.Sprintf("env -i HOME=%q PATH=%q TERM=xterm-256color %q %s; echo REIN-EXITED $?; sleep 30",
		e.home, os.Getenv("PATH"), reinBinary(t), strings.Join(args, " "))
	tm.run("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-s", "rein", "-c", e.workspace, cmdline)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmuxTerm) run(args ...string) string {
	tm.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is the pane's text; colored keeps the escape sequences.
func (tm *tmuxTerm) screen(colored bool) string {
	args := []string{"capture-pane", "-p", "-t", "rein", "-S", "-200"}
	if colored {
		args = append(args, "-e")
	}
	return tm.run(args...)
}

// waitFor waits until the screen satisfies cond.
func (tm *tmuxTerm) waitFor(what string, cond func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := tm.screen(false)
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (tm *tmuxTerm) waitText(text string) string {
	tm.t.Helper()
	return tm.waitFor(fmt.Sprintf("%q", text), func(s string) bool { return strings.Contains(s, text) })
}

func (tm *tmuxTerm) typ(text string) { tm.run("send-keys", "-t", "rein", "-l", text) }

// waitArmed waits until the approval dialog is open and takes answers
// (it ignores keys for a moment after it appears).
func (tm *tmuxTerm) waitArmed() string {
	tm.t.Helper()
	return tm.waitDialogArmed("[y] once", "[y] once")
}

// waitDialogArmed waits until a dialog showing title is open and takes
// answers. The dialog drops keys for 500 ms after it opens (and the
// screen says so), but a capture can catch a frame half drawn, with the
// title written and the "keys typed now are ignored" line not yet: so
// the dialog counts as armed only once it has been on screen for longer
// than its guard, with its keys line drawn and no such hint.
func (tm *tmuxTerm) waitDialogArmed(title, keys string) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var seen time.Time
	for {
		// The visible pane only: the scrollback may hold older frames.
		s := tm.run("capture-pane", "-p", "-t", "rein")
		open := strings.Contains(s, title)
		switch {
		case !open:
			seen = time.Time{}
		case seen.IsZero():
			seen = time.Now()
		case time.Since(seen) > 700*time.Millisecond && strings.Contains(s, keys) && !strings.Contains(s, "keys typed now are ignored"):
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for the dialog %q to take answers; screen:\n%s", title, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
func (tm *tmuxTerm) key(k string) { tm.run("send-keys", "-t", "rein", k) }

// paste pastes text with bracketed paste, as a terminal does.
func (tm *tmuxTerm) paste(text string) {
	tm.run("set-buffer", "-b", "p", text)
	tm.run("paste-buffer", "-p", "-b", "p", "-t", "rein")
}

func TestTUIMarkdownPasteAndResize(t *testing.T) {
	answer := []string{"# Plan\n\n", "Use **bold** and *care*.\n\n", "- first item\n- second item\n\n", "```go\nx := 42\n```\n"}
	long := make([]string, 0, 80)
	for i := range 80 {
		long = append(long, fmt.Sprintf("Line %d of a long streamed answer.\n\n", i))
	}
	srv := modeltest.NewServer(t,
		sse(textBody(answer...)),
		sse(textBody("Got three lines.")),
		modeltest.Stall(textBody(long...), 40, 2*time.Second),
	)
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("make a plan")
	tm.key("Enter")
	s := tm.waitText("x := 42")
	for _, want := range []string{"Plan", "Use bold and care.", "• first item"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "**bold**") || strings.Contains(s, "```") {
		t.Errorf("markdown shown as source:\n%s", s)
	}
	t.Logf("markdown answer screen:\n%s", s)

	tm.paste("alpha\nbeta\ngamma")
	tm.key("Enter")
	tm.waitText("Got three lines.")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests after the paste, want 2 (the paste is one message)", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), `alpha\nbeta\ngamma`) {
		t.Errorf("the pasted message was not sent whole: %s", reqs[1].Body)
	}

	tm.typ("go long")
	tm.key("Enter")
	tm.waitText("Line 3 of")
	tm.run("resize-window", "-t", "rein", "-x", "80", "-y", "24")
	s = tm.waitText("Line 79 of")
	for i, l := range strings.Split(s, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("line %d wider than 80 after the resize: %q", i, l)
		}
	}
	t.Logf("after the resize to 80×24:\n%s", s)
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

func TestTUIApproveCommandAndDiff(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"printf 'hello from ls\\n'; ls; exit 3"}`)),
		sse(textBody("The command failed with 3.")),
		sse(toolBody("c2", "write_file", `{"path":"notes.txt","content":"one\ntwo\n"}`)),
		sse(textBody("Wrote it.")),
	)
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("run it")
	tm.key("Enter")
	s := tm.waitArmed()
	if !strings.Contains(s, "Allow run_command?") || !strings.Contains(s, "ls; exit 3") {
		t.Errorf("the dialog does not show the command:\n%s", s)
	}
	t.Logf("approval dialog:\n%s", s)
	tm.typ("y")
	s = tm.waitText("The command failed with 3.")
	for _, want := range []string{"exit code 3", "hello from ls", "notes.txt"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	tm.typ("add a line")
	tm.key("Enter")
	s = tm.waitText("Wrote it.")
	colored := tm.screen(true)
	if !strings.Contains(s, "+two") {
		t.Errorf("no diff after the write:\n%s", s)
	}
	if !strings.Contains(colored, "\x1b[") || !strings.Contains(colored, "+two") {
		t.Errorf("the diff is not colored:\n%q", colored)
	}
	t.Logf("after the edit:\n%s", s)
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

func TestTUIEscCancelsSlowTurn(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Stall(textBody("never", " finished"), 1, 60*time.Second),
		sse(textBody("Still here.")),
	)
	e := newEnv(t)
	tm := e.startTUI(t, 80, 24, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("slow one")
	tm.key("Enter")
	tm.waitText("esc cancels")
	tm.key("Escape")
	tm.waitText("turn cancelled")
	tm.typ("again")
	tm.key("Enter")
	tm.waitText("Still here.")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestTUICommandOutputLiveTail: a slow command's lines appear under its
// call while it runs, before its result, and the result replaces them.
func TestTUICommandOutputLiveTail(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"for i in 1 2 3; do echo tick-$i; sleep 0.5; done"}`)),
		sse(textBody("Counted to three.")),
	)
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("count")
	tm.key("Enter")
	tm.waitArmed()
	tm.typ("y")
	s := tm.waitFor("the first line while the command runs", func(s string) bool {
		return strings.Contains(s, "tick-1") || strings.Contains(s, "exit code")
	})
	if strings.Contains(s, "exit code") || strings.Contains(s, "tick-3") {
		t.Fatalf("the output appeared only with the result:\n%s", s)
	}
	t.Logf("while running:\n%s", s)
	s = tm.waitText("Counted to three.")
	if !strings.Contains(s, "exit code 0") || !strings.Contains(s, "tick-3") {
		t.Errorf("the result lacks the output:\n%s", s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}
