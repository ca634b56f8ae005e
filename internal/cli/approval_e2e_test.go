package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// stalledTool is a model turn that streams a little text, stalls for d
// (the user types meanwhile), then calls name with args.
func stalledTool(name, args string, d time.Duration) modeltest.Step {
	var b strings.Builder
	b.WriteString(deltaChunk(`{"role":"assistant","content":null}`))
	b.WriteString(deltaChunk(`{"content":"Let me do that. "}`))
	n := b.Len()
	call := toolBody("c1", name, args)
	b.WriteString(call[strings.Index(call, "data: ")+len(deltaChunk(`{"role":"assistant","content":null}`)):])
	return modeltest.Stall(b.String(), n, d)
}

// TestTUIApprovalIgnoresTypingAndEnter: in the real `rein chat`, keys
// typed while the model streams, and typed on as the dialog appears
// ("as you said before" holds an s: session approval), do not answer it;
// Enter alone never does. The command does not run until the user
// answers on purpose, here with a denial.
func TestTUIApprovalIgnoresTypingAndEnter(t *testing.T) {
	srv := modeltest.NewServer(t,
		stalledTool("run_command", `{"command":"touch ran-it"}`, 1500*time.Millisecond),
		sse(textBody("Not run, then.")),
	)
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("do it")
	tm.key("Enter")
	tm.waitText("Let me do that.")
	// Type on, at typing speed, across the moment the dialog appears and
	// for a second after it. Words go one send-keys each: a tmux process
	// per key takes longer than the dialog's 0.5 s guard on a loaded
	// machine, and a pause that long is a deliberate key to the dialog.
	var seenAt time.Time
	deadline := time.Now().Add(20 * time.Second)
	for seenAt.IsZero() || time.Since(seenAt) < time.Second {
		for _, w := range strings.SplitAfter("as you said before, yes ", " ") {
			tm.typ(w)
			time.Sleep(40 * time.Millisecond)
		}
		s := tm.screen(false)
		if strings.Contains(s, "allowed once") || strings.Contains(s, "allowed for this session") || strings.Contains(s, "allowed always") {
			t.Fatalf("typing answered the dialog:\n%s", s)
		}
		if seenAt.IsZero() && strings.Contains(s, "Allow run_command?") {
			seenAt = time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dialog never appeared while typing:\n%s", s)
		}
	}
	tm.key("Enter")
	s := tm.screen(false)
	if !strings.Contains(s, "Allow run_command?") || strings.Contains(s, "allowed") {
		t.Fatalf("the dialog was answered by typing:\n%s", s)
	}
	tm.waitArmed()
	for range 3 {
		tm.key("Enter")
	}
	s = tm.waitText("Enter alone does not answer")
	if !strings.Contains(s, "Allow run_command?") {
		t.Fatalf("Enter answered the dialog:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran-it")); err == nil {
		t.Fatal("the command ran without an answer")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the model got %d requests before any answer, want 1", n)
	}
	tm.typ("n")
	tm.key("Enter")
	s = tm.waitText("Not run, then.")
	// One line: the call and the verdict (TestTUIFailedCommandAndDenialsShownOnce).
	if !regexp.MustCompile(`✗ run_command .*denied by the user`).MatchString(s) {
		t.Errorf("no denial line:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran-it")); err == nil {
		t.Error("the command ran after a denial")
	}
	t.Logf("after the denial:\n%s", s)
	tm.key("C-u") // the typing is still in the editor
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// longCommand is a 400-character command whose dangerous part is at its
// end, past any window's width.
func longCommand() string {
	tail := " && git reset --hard HEAD~1"
	head := "echo " + strings.Repeat("all-good ", 60)
	return head[:400-len(tail)] + tail
}

// dialogBody is the text of the dialog's lines on screen, without the
// border, joined without the spaces wrapping may have cut at.
func dialogBody(screen string) string {
	var b strings.Builder
	for _, l := range strings.Split(screen, "\n") {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "│"); ok {
			rest = strings.TrimSpace(strings.TrimSuffix(rest, "│"))
			rest = strings.TrimPrefix(rest, "$ ")
			b.WriteString(strings.ReplaceAll(rest, " ", ""))
		}
	}
	return b.String()
}

// TestTUIApprovalShowsLongCommandAndDiff: a 400-character command is
// shown whole (wrapped) at 120 and, after a resize, at 60 columns; a
// 300-line diff is shown a page at a time with a note saying how much is
// hidden, and every line of it can be scrolled into view.
func TestTUIApprovalShowsLongCommandAndDiff(t *testing.T) {
	cmd := longCommand()
	var content strings.Builder
	for i := range 300 {
		fmt.Fprintf(&content, "line %03d\n", i)
	}
	args := fmt.Sprintf(`{"path":"big.txt","content":%q}`, content.String())
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", fmt.Sprintf(`{"command":%q}`, cmd))),
		sse(textBody("Denied.")),
		sse(toolBody("c2", "write_file", args)),
		sse(textBody("Denied too.")),
	)
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[[policy.tools]]\nname = \"write_file\"\naction = \"ask\"\n")
	tm := e.startTUI(t, 120, 40, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("reset")
	tm.key("Enter")
	s := tm.waitArmed()
	want := strings.ReplaceAll(cmd, " ", "")
	if !strings.Contains(dialogBody(s), want) {
		t.Fatalf("the command is not whole at 120 columns:\n%s", s)
	}
	tm.run("resize-window", "-t", "rein", "-x", "60", "-y", "30")
	s = tm.waitFor("the dialog at 60 columns", func(s string) bool {
		return strings.Contains(dialogBody(s), want) && !strings.Contains(s, strings.Repeat("─", 70))
	})
	t.Logf("at 60 columns:\n%s", s)
	tm.typ("n")
	tm.key("Enter")
	tm.waitText("Denied.")
	tm.run("resize-window", "-t", "rein", "-x", "100", "-y", "30")

	tm.typ("write")
	tm.key("Enter")
	s = tm.waitArmed()
	if !strings.Contains(s, "hidden, of") {
		t.Errorf("the dialog does not say part of the diff is hidden:\n%s", s)
	}
	seen := map[string]bool{}
	for i := 0; i < 60 && len(seen) < 300; i++ {
		for _, l := range strings.Split(tm.screen(false), "\n") {
			if _, rest, ok := strings.Cut(l, "+line "); ok && len(rest) >= 3 {
				seen[rest[:3]] = true
			}
		}
		tm.key("PageDown")
		time.Sleep(100 * time.Millisecond)
	}
	if len(seen) != 300 {
		t.Errorf("%d of the 300 diff lines could be brought into view", len(seen))
	}
	tm.typ("n")
	tm.key("Enter")
	tm.waitText("Denied too.")
	if _, err := os.Stat(filepath.Join(e.workspace, "big.txt")); err == nil {
		t.Error("the denied write happened")
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestRunConsoleApprovalOnTerminalIgnoresTypeAhead: `rein run --approve
// ask` on a real terminal: a line and a half-typed "s" typed while the
// model works do not answer the question (the pending input is
// discarded), Enter alone does not either, and the full 400-character
// command is printed, wrapped.
func TestRunConsoleApprovalOnTerminalIgnoresTypeAhead(t *testing.T) {
	cmd := longCommand() + "; touch ran-it"
	srv := modeltest.NewServer(t,
		stalledTool("run_command", fmt.Sprintf(`{"command":%q}`, cmd), 1500*time.Millisecond),
		sse(textBody("ok")),
	)
	e := newEnv(t)
	tm := e.startTerm(t, 100, 40, "run", "--approve", "ask", "-e", srv.URL, "go")
	time.Sleep(300 * time.Millisecond)
	tm.typ("y")
	tm.key("Enter")
	tm.typ("s")
	tm.waitText("Allow?")
	time.Sleep(800 * time.Millisecond)
	tm.key("Enter") // "s" with it, had the half-typed s been kept
	s := tm.waitText("Enter alone does not answer")
	if _, err := os.Stat(filepath.Join(e.workspace, "ran-it")); err == nil {
		t.Fatalf("the command ran on type-ahead:\n%s", s)
	}
	var shown strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(l, "  command: "); ok {
			shown.WriteString(rest)
		} else if rest, ok := strings.CutPrefix(l, "           "); ok && shown.Len() > 0 && !strings.Contains(shown.String(), "ran-it") {
			shown.WriteString(rest)
		}
	}
	// A space at a wrap point is at the end of a screen line, which the
	// capture trims: compare without spaces.
	if strings.ReplaceAll(shown.String(), " ", "") != strings.ReplaceAll(cmd, " ", "") {
		t.Errorf("the command shown is\n%q\nwant\n%q\nscreen:\n%s", shown.String(), cmd, s)
	}
	tm.typ("n")
	tm.key("Enter")
	tm.key("Enter")
	s = tm.waitText("REIN-EXITED")
	if _, err := os.Stat(filepath.Join(e.workspace, "ran-it")); err == nil {
		t.Errorf("the command ran after a denial:\n%s", s)
	}
	t.Logf("screen:\n%s", s)
}
