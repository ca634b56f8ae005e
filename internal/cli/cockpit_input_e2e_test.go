package cli_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// The cockpit's input and status line (issue 21), in a real terminal.

// pane is the visible pane (not the scrollback, which holds older frames).
func (tm *tmuxTerm) pane() string { return tm.run("capture-pane", "-p", "-t", "rein") }

// inputBox is the editor on screen: the lines between the last rule and
// the status line.
func (tm *tmuxTerm) inputBox() string {
	s := strings.TrimRight(tm.pane(), "\n")
	i := strings.LastIndex(s, "────\n")
	if i < 0 {
		return ""
	}
	box := s[i+len("────\n"):]
	if j := strings.LastIndexByte(box, '\n'); j >= 0 {
		return strings.TrimRight(box[:j], " \n")
	}
	return ""
}

// statusBar is the pane's last line.
func (tm *tmuxTerm) statusBar() string {
	s := strings.TrimRight(tm.pane(), "\n ")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func (tm *tmuxTerm) waitInput(want string) {
	tm.t.Helper()
	tm.waitFor(fmt.Sprintf("the input to be %q", want), func(string) bool { return tm.inputBox() == want })
}

func (tm *tmuxTerm) waitStatus(what string, ok func(string) bool) string {
	tm.t.Helper()
	var last string
	tm.waitFor(what, func(string) bool { last = tm.statusBar(); return ok(last) })
	return last
}

// TestTUIInputEditing: a multi-line message shows all its lines while it
// is composed; the cursor moves and deletes by grapheme cluster; a
// 200-line paste is "[pasted 200 lines]" in the input and the
// transcript, the model gets it whole and /expand shows it.
func TestTUIInputEditing(t *testing.T) {
	var rows strings.Builder
	for i := range 200 {
		fmt.Fprintf(&rows, "row %d of the log\n", i)
	}
	srv := modeltest.NewServer(t, sse(textBody("Got the rows.")))
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")

	// Alt-Enter, then Shift-Enter as a terminal with the kitty keyboard
	// protocol sends it (CSI 13;2u; tmux 3.3 has no key name for it).
	tm.typ("first line")
	tm.key("M-Enter")
	tm.typ("second line")
	tm.typ("\x1b[13;2u")
	tm.typ("third line")
	tm.waitInput("› first line\n  second line\n  third line")
	tm.key("C-c")
	tm.waitInput("› Ask anything · /help for commands · @file attaches · !cmd runs")

	// Left from the end passes b, the flag, then the thumbs-up with its
	// skin tone, each whole; Backspace then takes the é (e + combining
	// acute) whole, and Delete the thumbs-up.
	tm.typ("ae\u0301👍🏽🇫🇷b")
	tm.key("Left")
	tm.key("Left")
	tm.key("Left")
	tm.key("BSpace")
	tm.key("DC")
	tm.typ("|")
	tm.waitInput("› a|🇫🇷b")
	tm.key("C-c")

	tm.typ("see ")
	tm.paste(rows.String())
	tm.waitInput("› see [pasted 200 lines]")
	if s := tm.pane(); strings.Contains(s, "row 150") {
		t.Fatalf("the paste is echoed in the input:\n%s", s)
	}
	tm.key("Enter")
	tm.waitText("Got the rows.")
	if s := tm.screen(false); strings.Contains(s, "row 150") || !strings.Contains(s, "› see [pasted 200 lines]") {
		t.Fatalf("the transcript does not show the paste collapsed:\n%s", s)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `row 0 of the log\nrow 1 of`) || !strings.Contains(string(reqs[0].Body), "row 199 of the log") {
		t.Fatalf("the model did not get the pasted text whole (%d requests)", len(reqs))
	}
	tm.typ("/expand")
	tm.key("Enter")
	tm.waitText("row 199 of the log")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

var sessionOnBar = regexp.MustCompile(`session (\S+)`)

// TestTUIStatusLineStaysCurrent: with llama.cpp (the window from /props,
// none configured) the status line has a context gauge and /status a
// context line; /clear shows the new session and no tokens; --continue
// keeps the session's tokens.
func TestTUIStatusLineStaysCurrent(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.JSON(`{"default_generation_settings":{"n_ctx":1000}}`),
		sse(textBody("one")),
	)
	e := newEnv(t)
	e.writeUserConfig(t, "")
	tm := e.startTUI(t, 120, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("hello")
	tm.key("Enter")
	tm.waitText("one")
	bar := tm.waitStatus("a context gauge", func(s string) bool { return strings.Contains(s, "ctx 20/1.0k 2%") })
	if !strings.Contains(bar, "tokens 20 in / 1 out") {
		t.Fatalf("status line %q", bar)
	}
	first := sessionOnBar.FindStringSubmatch(bar)[1]
	tm.typ("/status")
	tm.key("Enter")
	tm.waitText("context: 20/1.0k 2% (20 of 1000 tokens in the last request)")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")

	tm = e.startTUI(t, 120, 30, "-e", srv.URL, "--continue")
	tm.waitText("session")
	bar = tm.waitStatus("the continued session", func(s string) bool { return strings.Contains(s, first) })
	if !strings.Contains(bar, "tokens 20 in / 1 out") {
		t.Fatalf("--continue lost the session's tokens: %q", bar)
	}
	tm.typ("/clear")
	tm.key("Enter")
	tm.waitText("(new conversation)")
	bar = tm.waitStatus("a new session", func(s string) bool { return !strings.Contains(s, first) })
	if !strings.Contains(bar, "tokens 0 in / 0 out") || sessionOnBar.FindStringSubmatch(bar) == nil {
		t.Fatalf("after /clear: %q", bar)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestTUIMCPStatusIsCurrent: a server that connects after the chat
// started shows in the status line without a turn, and a server that
// failed is "failed" in /mcp while rein retries it, not "connecting".
func TestTUIMCPStatusIsCurrent(t *testing.T) {
	bin := reinBinary(t)
	e := newEnv(t)
	e.writeUserConfig(t, fmt.Sprintf("[model]\ncontext_window = 32768\n\n"+
		"[mcp_servers.late]\ncommand = \"sh\"\nargs = [\"-c\", %q]\nstartup_timeout = \"20s\"\nsandbox = false\n\n"+
		"[mcp_servers.bad]\ncommand = \"sh\"\nargs = [\"-c\", \"sleep 2; exit 1\"]\nstartup_timeout = \"20s\"\nsandbox = false\n",
		"sleep 1; exec "+bin+" mcp serve --tools read_file"))
	if err := os.WriteFile(e.workspace+"/.keep", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tm := e.startTUI(t, 140, 30, "-e", "http://127.0.0.1:9")
	tm.waitText("session")
	tm.waitStatus("both servers' outcome", func(s string) bool { return strings.Contains(s, "mcp 1 up, 1 failed") })
	// The backoff after the first failure (1 s) has passed: /mcp
	// starts a retry, which takes 2 s.
	tm.typ("/mcp")
	tm.key("Enter")
	s := tm.waitText("late: connected")
	if !strings.Contains(s, "bad: failed") || strings.Contains(s, "bad: connecting") {
		t.Fatalf("/mcp:\n%s", s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}
