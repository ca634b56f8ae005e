package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// offeredTools is requestTools, sorted.
func offeredTools(t *testing.T, body []byte) []string {
	t.Helper()
	names := requestTools(t, body)
	slices.Sort(names)
	return names
}

func (e *env) userCommands() string { return filepath.Join(e.home, ".config", "rein", "commands") }

// firstUser returns the first user message of a recorded request.
func firstUser(t *testing.T, body []byte) string {
	t.Helper()
	for _, m := range historyTexts(t, body) {
		if s, ok := strings.CutPrefix(m, "user:"); ok {
			return s
		}
	}
	t.Fatalf("no user message in %s", body)
	return ""
}

// A user command gets its arguments: $1 and $2 by shell-like words,
// $ARGUMENTS as the whole (quoted as needed).
func TestRunCommandArguments(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("fixed")))
	e := newEnv(t)
	writeFiles(t, e.userCommands(), map[string]string{
		"fix.md": "---\ndescription: Fix an issue\nargument-hint: [issue] [priority]\n---\nFix issue #$1 with priority $2.\nAll: $ARGUMENTS\n",
	})
	res := e.run(t, "run", "-e", srv.URL, "--command", "fix", "123", "high prio")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	want := "Fix issue #123 with priority high prio.\nAll: 123 'high prio'"
	if got := firstUser(t, srv.Requests()[0].Body); got != want {
		t.Errorf("prompt %q, want %q", got, want)
	}
	if res.stdout != "fixed\n" {
		t.Errorf("stdout %q", res.stdout)
	}
}

// A command in a subfolder of a project layer is namespaced; in chat it
// runs as /frontend:test args and /help lists it.
func TestNamespacedCommandInRunAndChat(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ran")), sse(textBody("ran again")))
	e := newEnv(t)
	writeFiles(t, filepath.Join(e.workspace, ".claude", "commands"), map[string]string{
		"frontend/test.md": "---\ndescription: Run the frontend tests\nargument-hint: <pattern>\n---\nRun the frontend tests matching $1.\n",
	})
	res := e.run(t, "run", "-e", srv.URL, "--command", "frontend:test", "button")
	if res.code != 0 {
		t.Fatalf("run: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if got := firstUser(t, srv.Requests()[0].Body); got != "Run the frontend tests matching button." {
		t.Errorf("run prompt %q", got)
	}
	res = e.invoke("/help\n/frontend:test 'nav bar'\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("chat: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "Custom commands:\n  /frontend:test <pattern>  Run the frontend tests (project)") {
		t.Errorf("/help does not list the command:\n%s", res.stderr)
	}
	if got := firstUser(t, srv.Requests()[1].Body); got != "Run the frontend tests matching nav bar." {
		t.Errorf("chat prompt %q", got)
	}
}

// allowed-tools narrows the run: the model is offered only the mapped
// tools, a call outside them is denied naming the restriction, and a Bash
// pattern is enforced on run_command.
func TestCommandAllowedToolsNarrow(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(twoToolBody("w1", "write_file", `{"path":"out.txt","content":"x"}`, "r1", "read_file", `{"path":"a.txt"}`)),
		sse(twoToolBody("b1", "run_command", `{"command":"echo hi > pwned.txt"}`, "b2", "run_command", `{"command":"git status --short"}`)),
		sse(textBody("done")),
	)
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"a.txt": "alpha\n"})
	writeFiles(t, e.userCommands(), map[string]string{
		"look.md": "---\nallowed-tools: Read, Bash(git status:*)\n---\nLook around.\n",
	})
	res := e.run(t, "run", "-e", srv.URL, "--preset", "full", "--output-format", "stream-json", "--command", "look")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if diff := cmp.Diff([]string{"read_file", "run_command"}, offeredTools(t, reqs[0].Body)); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	got := map[string]decisionLine{}
	for _, d := range decisions(t, res.stdout) {
		got[d.Decision.CallID] = d
	}
	if d := got["w1"].Decision; d.Action != "deny" || !strings.Contains(d.Reason, "write_file is not allowed by the command's allowed-tools") {
		t.Errorf("write_file: %+v", d)
	}
	if d := got["r1"].Decision; d.Action != "allow" {
		t.Errorf("read_file: %+v", d)
	}
	if d := got["b1"].Decision; d.Action != "deny" || !strings.Contains(d.Reason, "allows run_command only for Bash(git status:*)") {
		t.Errorf("echo: %+v", d)
	}
	if d := got["b2"].Decision; d.Action == "deny" && strings.Contains(d.Reason, "allowed-tools") {
		t.Errorf("git status was refused by the restriction: %+v", d)
	}
	for _, f := range []string{"out.txt", "pwned.txt"} {
		if _, err := os.Stat(filepath.Join(e.workspace, f)); err == nil {
			t.Errorf("%s was written despite the restriction", f)
		}
	}
	if r := toolResults(t, reqs[1].Body)["r1"]; !strings.Contains(r, "alpha") {
		t.Errorf("read_file result %q", r)
	}
}

// A project command cannot widen: naming a tool the preset asks about
// leaves it asking (denied headless), and naming a tool the run lacks
// adds nothing.
func TestProjectCommandCannotWiden(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(twoToolBody("w1", "write_file", `{"path":"out.txt","content":"x"}`, "x1", "imaginary_tool", `{}`)),
		sse(textBody("done")),
	)
	e := newEnv(t)
	writeFiles(t, filepath.Join(e.workspace, ".rein", "commands"), map[string]string{
		"write.md": "---\nallowed-tools: [Write, imaginary_tool, Bash]\n---\nWrite out.txt.\n",
	})
	res := e.run(t, "run", "-e", srv.URL, "--preset", "read-only", "--approve", "never", "--output-format", "stream-json", "--command", "write")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	got := map[string]decisionLine{}
	for _, d := range decisions(t, res.stdout) {
		got[d.Decision.CallID] = d
	}
	if d := got["w1"].Decision; d.Action != "deny" || strings.Contains(d.Reason, "allowed-tools") {
		t.Errorf("write_file: %+v, want the read-only preset's refusal", d)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "out.txt")); err == nil {
		t.Error("out.txt was written under the read-only preset")
	}
	if d := got["x1"].Decision; d.Reason != "unknown tool" {
		t.Errorf("imaginary_tool: %+v", d)
	}
	if !strings.Contains(res.stderr, `allowed-tools names "imaginary_tool", which this run does not have; left out`) {
		t.Errorf("stderr lacks the unknown-tool warning:\n%s", res.stderr)
	}
	tools := offeredTools(t, srv.Requests()[0].Body)
	if diff := cmp.Diff([]string{"run_command", "write_file"}, tools); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
}

// Malformed command files are skipped with one warning each, naming the
// file and the field; a name clash with a built-in keeps the built-in.
func TestMalformedCommandsWarn(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	e := newEnv(t)
	dir := filepath.Join(e.workspace, ".claude", "commands")
	writeFiles(t, dir, map[string]string{
		"good.md":    "Say ok.",
		"tools.md":   "---\nallowed-tools:\n  a: b\n---\nbody",
		"model.md":   "---\nmodel: [x\n---\nbody",
		"empty.md":   "---\ndescription: nothing\n---\n",
		"clear.md":   "not the built-in",
		"bad\x01.md": "control character in the name",
	})
	res := e.invoke("/clear\n/good\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, w := range []string{
		"rein: warning: " + filepath.Join(dir, "tools.md") + ": field allowed-tools: ",
		"rein: warning: " + filepath.Join(dir, "model.md") + ": field model: ",
		"rein: warning: " + filepath.Join(dir, "empty.md") + ": the body is empty",
		"rein: warning: " + filepath.Join(dir, "clear.md") + ": /clear is a built-in command, which takes precedence",
		`cannot be part of a command name`,
		"(new conversation)",
	} {
		if strings.Count(res.stderr, w) != 1 {
			t.Errorf("stderr should have %q once:\n%s", w, res.stderr)
		}
	}
	if strings.Contains(res.stderr, "\x01") {
		t.Error("a control character reached the terminal")
	}
	if got := firstUser(t, srv.Requests()[0].Body); got != "Say ok." {
		t.Errorf("prompt %q", got)
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.userCommands(), map[string]string{"review.md": "Review.", "deploy.md": "Deploy."})
	res := e.run(t, "run", "-e", "http://127.0.0.1:1", "--command", "reveiw")
	if res.code != 2 || !strings.Contains(res.stderr, `unknown command "reveiw" (did you mean "review"?); defined: deploy, review`) {
		t.Errorf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	empty := newEnv(t)
	res = empty.run(t, "run", "-e", "http://127.0.0.1:1", "--command", "x")
	if res.code != 2 || !strings.Contains(res.stderr, "no custom commands are defined") {
		t.Errorf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	res = e.invoke("/revew\n").run(t, "chat", "-e", "http://127.0.0.1:1")
	if !strings.Contains(res.stderr, `rein: unknown command /revew; /help lists the commands (did you mean /review?)`) {
		t.Errorf("chat stderr:\n%s", res.stderr)
	}
}

// A command's !`cmd` is not run at expansion: the text reaches the model
// with rein's note, and the user is told.
func TestCommandShellLinesAreNotRun(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	e := newEnv(t)
	writeFiles(t, e.userCommands(), map[string]string{"st.md": "Status: !`touch ran.txt`\nSee @notes.md\n"})
	res := e.run(t, "run", "-e", srv.URL, "--command", "st")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); err == nil {
		t.Error("the !`…` line ran at expansion")
	}
	prompt := firstUser(t, srv.Requests()[0].Body)
	if !strings.Contains(prompt, "Status: !`touch ran.txt`") || !strings.Contains(prompt, "[Note from rein: Lines written as !`command` were not run") {
		t.Errorf("prompt %q", prompt)
	}
	if !strings.Contains(res.stderr, "rein: note: /st: the command's !`…` shell lines were not run") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
}
