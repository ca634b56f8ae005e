package cli_test

import (
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
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

// TestBinarySessionsShowUnescapedJSON: `rein sessions show` prints a tool
// call's arguments as the model wrote them ("a > b && c", not
// "a \u003e b \u0026\u0026 c"), in text and in --json, while characters a
// terminal obeys stay escaped in both. (Sessions an older rein stored
// HTML-escaped: TestShownJSONIsUnescaped.)
func TestBinarySessionsShowUnescapedJSON(t *testing.T) {
	e := newEnv(t)
	stateDir := filepath.Join(e.home, "state")
	const content = "a > b && c <d>\u009b31m\u202eZ"
	args, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": content})
	srv := modeltest.NewServer(t, sse(toolBody("w1", "write_file", string(args))), sse(textBody("Wrote x > y.")))
	if code, out, errOut := e.startDone(t, 60*time.Second, "run", "--state-dir", stateDir, "-e", srv.URL, "write it"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	id := e.sessionIDOf(t, stateDir)
	check := func(when string) {
		t.Helper()
		for _, mode := range [][]string{{"sessions", "show"}, {"sessions", "show", "--json"}} {
			args := append(append([]string{}, mode...), "--state-dir", stateDir, id)
			code, out, errOut := e.startDone(t, 30*time.Second, args...)
			if code != 0 {
				t.Fatalf("%s: %v: exit %d\n%s%s", when, args, code, out, errOut)
			}
			if !strings.Contains(out, "a > b && c <d>") || strings.Contains(out, `\u003e`) || strings.Contains(out, `\u0026`) {
				t.Errorf("%s: %v: want the arguments unescaped:\n%s", when, args, out)
			}
			if strings.ContainsAny(out, "\u009b\u202e") {
				t.Errorf("%s: %v: a character the terminal obeys is printed raw:\n%q", when, args, out)
			}
		}
	}
	check("recorded now")
}

// markColor is the foreground color (SGR code) of the mark of the
// result line of the command cmd ("● run_command cmd (…)") in a tmux
// capture with escapes, "" when there is no such line or color.
func markColor(colored, cmd string) string {
	sgr := regexp.MustCompile(`\x1b\[([0-9;]*)m`)
	for _, line := range strings.Split(colored, "\n") {
		if !strings.HasPrefix(sgr.ReplaceAllString(line, ""), "● run_command "+cmd+" (") {
			continue
		}
		color := ""
		for _, m := range sgr.FindAllStringSubmatch(line[:strings.Index(line, "●")], -1) {
			for _, p := range strings.Split(m[1], ";") {
				if n, err := strconv.Atoi(p); err == nil && (30 <= n && n <= 37 || 90 <= n && n <= 97) {
					color = p
				}
			}
		}
		return color
	}
	return ""
}

// TestTUIFailedCommandAndDenialsShownOnce: in chat, a command that exits
// non-zero gets the red mark a success does not, and a denial — a hard
// one and one the user gave in the dialog with a reason — is one line,
// not the dialog's answer, the decision and the result each repeating it.
func TestTUIFailedCommandAndDenialsShownOnce(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"git push --force origin main"}`)),
		sse(toolBody("c2", "run_command", `{"command":"false"}`)),
		sse(toolBody("c3", "run_command", `{"command":"true"}`)),
		sse(toolBody("c4", "run_command", `{"command":"curl http://example.com"}`)),
		sse(textBody("All done.")),
	)
	e := newEnv(t)
	tm := e.startTUI(t, 120, 40, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("go")
	tm.key("Enter")
	tm.waitArmed()
	tm.typ("n")
	tm.typ("not now please")
	tm.key("Enter")
	s := tm.waitText("All done.")
	t.Logf("screen:\n%s", s)
	for what, n := range map[string]int{"never allowed": 1, "not now please": 1, "denied by the user": 1} {
		if got := strings.Count(s, what); got != n {
			t.Errorf("%q is on the screen %d times, want %d", what, got, n)
		}
	}
	if !strings.Contains(s, "∴ thought for 1 line (ctrl+t shows)") || strings.Contains(s, "1 lines") {
		t.Errorf("one line of reasoning is not \"thought for 1 line\"")
	}
	if !strings.Contains(s, "✗ run_command curl http://example.com denied by the user: not now please") {
		t.Errorf("the user's denial does not name the command and the reason on one line")
	}
	colored := tm.screen(true)
	if got := markColor(colored, "false"); got != "91" {
		t.Errorf("the failed command's mark has color %q, want red (91):\n%q", got, colored)
	}
	if got := markColor(colored, "true"); got != "92" {
		t.Errorf("the successful command's mark has color %q, want green (92):\n%q", got, colored)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestTermTextModeDenialOnce: `rein run` in a terminal, the user denies a
// command with a reason: one line says so, naming the tool once
// ("run_command denied: run_command was denied by the user: …" before).
func TestTermTextModeDenialOnce(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "run_command", `{"command":"curl http://example.com"}`)),
		sse(textBody("All done.")),
	)
	e := newEnv(t)
	tm := e.startTerm(t, 120, 30, "run", "-e", srv.URL, "go")
	tm.waitText("[n]o:")
	time.Sleep(time.Second) // keys typed within approve.DefaultSettle are ignored
	tm.typ("n")
	tm.key("Enter")
	tm.waitText("Reason for the model")
	tm.typ("not now please")
	tm.key("Enter")
	s := tm.waitText("REIN-EXITED")
	if !strings.Contains(s, "\n✗ run_command denied by the user: not now please\n") || strings.Count(s, "denied") != 1 {
		t.Errorf("want the denial once, on one line:\n%s", s)
	}
}

// TestTUIAnswerKeepsLineBreaks: a three-line haiku is shown as three
// lines in chat, not joined into one.
func TestTUIAnswerKeepsLineBreaks(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("An old silent pond\n", "A frog jumps into the pond\n", "Splash! Silence again.")))
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("a haiku please")
	tm.key("Enter")
	s := tm.waitFor("the whole answer, and the turn's end", func(s string) bool {
		return strings.Contains(s, "Splash! Silence again.") && !strings.Contains(s, "working")
	})
	var got []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); strings.Contains(l, "pond") || strings.Contains(l, "Silence") {
			got = append(got, l)
		}
	}
	want := []string{"An old silent pond", "A frog jumps into the pond", "Splash! Silence again."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the haiku's lines (-want +got):\n%s\nscreen:\n%s", diff, s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// requestMessages returns the role and content of every message of a
// Chat Completions request body.
func requestMessages(t *testing.T, body []byte) [][2]string {
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
	var out [][2]string
	for _, m := range req.Messages {
		if m.Role != "system" {
			out = append(out, [2]string{m.Role, m.Content})
		}
	}
	return out
}

// TestTUIEscKeepsTheCutAnswer: Esc while the answer streams keeps what was
// said in the history, noted as interrupted — the next request is not two
// user messages in a row — and the notice says "turn cancelled" without a
// "^C" nobody typed.
func TestTUIEscKeepsTheCutAnswer(t *testing.T) {
	body := textBody("Once upon a time", " and then it went on")
	cut := strings.LastIndex(body[:strings.Index(body, " and then")], "data:")
	srv := modeltest.NewServer(t,
		modeltest.Stall(body, cut, 60*time.Second),
		sse(textBody("Still here.")),
	)
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("tell a story")
	tm.key("Enter")
	tm.waitText("Once upon a") // the last word is held back while it streams
	tm.key("Escape")
	s := tm.waitText("turn cancelled")
	if strings.Contains(s, "^C") {
		t.Errorf("Esc printed ^C:\n%s", s)
	}
	tm.typ("again")
	tm.key("Enter")
	s = tm.waitText("Still here.")
	t.Logf("screen:\n%s", s)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	want := [][2]string{
		{"user", "tell a story"},
		{"assistant", "Once upon a time\n\n[rein: answer interrupted: run cancelled]"},
		{"user", "again"},
	}
	if diff := cmp.Diff(want, requestMessages(t, reqs[1].Body)); diff != "" {
		t.Errorf("the request after the cancel (-want +got):\n%s", diff)
	}
	if n := strings.Count(s, "Once upon a time"); n != 1 {
		t.Errorf("the cut answer is on the screen %d times, want 1:\n%s", n, s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestBinaryRetriesAreShown: `rein run` against a server that answers 429
// and then 503 says so on stderr, one line per retry with the wait, and
// then answers; stdout holds the answer alone.
func TestBinaryRetriesAreShown(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.RateLimited(time.Second),
		modeltest.Status(503, map[string]string{"Retry-After": "1"}, "busy"),
		sse(textBody("Answer after the wait.")),
	)
	e := newEnv(t)
	code, out, errOut := e.startDone(t, 60*time.Second, "run", "-e", srv.URL, "hello")
	if code != 0 || out != "Answer after the wait.\n" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", code, out, errOut)
	}
	want := "rein: rate limited (429), retrying in 1 s (attempt 2 of 4)\nrein: the model server failed (503), retrying in 1 s (attempt 3 of 4)\n"
	if errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}
}

// TestTUIRetryIsShownOnTheWorkingLine: in chat, a 429 shows on the
// working line with the seconds left, and goes once the answer comes.
func TestTUIRetryIsShownOnTheWorkingLine(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.RateLimited(3*time.Second),
		sse(textBody("Answer after the wait.")),
	)
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("hello")
	tm.key("Enter")
	s := tm.waitText("rate limited (429), retrying in")
	if !strings.Contains(s, "retrying in 3 s") && !strings.Contains(s, "retrying in 2 s") {
		t.Errorf("the working line does not count the wait down:\n%s", s)
	}
	tm.waitFor("the answer, and the turn's end", func(s string) bool {
		return strings.Contains(s, "Answer after the wait.") && !strings.Contains(s, "working")
	})
	if s := tm.run("capture-pane", "-p", "-t", "rein"); strings.Contains(s, "retrying") {
		t.Errorf("the retry is still shown after the answer:\n%s", s)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestBinaryWording: counts agree with their nouns ("1 turn"), a failed
// verification says so once, and an error that is not the model
// server's does not end with advice to check it.
func TestBinaryWording(t *testing.T) {
	t.Run("one turn", func(t *testing.T) {
		srv := modeltest.NewServer(t, sse(textBody("hello")))
		e := newEnv(t)
		p := e.start(t, "chat", "-e", srv.URL)
		io.WriteString(p.stdin, "hi\n/usage\n")
		p.stdin.Close()
		if code := p.wait(t, 30*time.Second); code != 0 || !strings.Contains(p.stderr.String(), " over 1 turn\n") {
			t.Errorf("exit %d, stderr:\n%s", code, p.stderr)
		}
	})
	t.Run("verification failed", func(t *testing.T) {
		e := newVerifyEnv(t, "max_attempts = 2\n")
		srv := modeltest.NewServer(t, writeStatus("w1", "broken\n"), sse(textBody("Done.")), sse(textBody("Done, really.")))
		code, _, errOut := e.startDone(t, 60*time.Second, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL, "fix it")
		if code != 4 || !strings.Contains(errOut, "rein: verification failed 2 times; the last failure: "+verifyCheck+" exited with code 1: inspect") ||
			strings.Contains(errOut, "verification failed: verification failed") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
	})
	t.Run("not the model server", func(t *testing.T) {
		e := newEnv(t)
		e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[mcp_servers.docs]\ncommand = \"/nonexistent/docs-mcp\"\nrequired = true\n")
		srv := modeltest.NewServer(t, sse(textBody("hello")))
		code, _, errOut := e.startDone(t, 60*time.Second, "run", "-e", srv.URL, "hi")
		t.Logf("stderr: %s", errOut)
		if code == 0 || !strings.Contains(errOut, "docs") || strings.Contains(errOut, "check the model server") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
	})
}

// TestBinaryHelpSaysWhatIs: chat --help describes the chat UI and its
// keys (it said "line-oriented" and listed none), and undo and
// permissions --help give the workspace default the commands use (the
// repository's root, not the current directory).
func TestBinaryHelpSaysWhatIs(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"chat", "--help"}, []string{"chat UI", "Esc or Ctrl-C cancels", "Ctrl-T shows the folded reasoning", "Alt-Enter"}},
		{[]string{"undo", "--help"}, []string{"default the\nenclosing git repository's root"}},
		{[]string{"permissions", "--help"}, []string{"(default: the enclosing git repository's root, else the current directory)"}},
	} {
		code, out, errOut := e.startDone(t, 30*time.Second, tt.args...)
		for _, w := range tt.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, lacks %q:\n%s%s", tt.args, code, w, out, errOut)
			}
		}
	}
}

// TestTUIRefusedAttachmentStaysForEditing: a message refused for an
// @path outside the workspace is not sent and not lost: it is back in
// the input, to fix and send.
func TestTUIRefusedAttachmentStaysForEditing(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("Read it.")))
	e := newEnv(t)
	tm := e.startTUI(t, 100, 30, "-e", srv.URL)
	tm.waitText("session")
	tm.typ("summarize @/etc/passwd for me")
	tm.key("Enter")
	tm.waitText("the message was not sent")
	tm.waitFor("the message back in the input", func(string) bool {
		// The input is the line under the last rule (the scrollback
		// also shows the message, as sent).
		screen := tm.run("capture-pane", "-p", "-t", "rein")
		i := strings.LastIndex(screen, "────\n")
		return i >= 0 && strings.HasPrefix(screen[i+len("────\n"):], "› summarize @/etc/passwd for me")
	})
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the refused message reached the model (%d requests)", n)
	}
	// Fixed (the @path removed by hand), it is sent.
	for range len("@/etc/passwd for me") {
		tm.key("BSpace")
	}
	tm.typ("the file")
	tm.key("Enter")
	tm.waitText("Read it.")
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "summarize the file") {
		t.Errorf("the edited message was not sent: %d requests", len(reqs))
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}
