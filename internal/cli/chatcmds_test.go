package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// lastUserText is the content of the last user message of a request.
func lastUserText(t *testing.T, body []byte) string {
	t.Helper()
	h := historyTexts(t, body)
	for i := len(h) - 1; i >= 0; i-- {
		if s, ok := strings.CutPrefix(h[i], "user:"); ok {
			return s
		}
	}
	t.Fatalf("no user message in %v", h)
	return ""
}

// TestChatModelSwitch: /model shows the model, /model NAME makes the
// next requests ask for NAME, /model with the configured name goes back.
func TestChatModelSwitch(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("one")), sse(textBody("two")), sse(textBody("three")))
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\nmodel = \"small\"\n")
	input := "/model\nfirst\n/model big-70b\nsecond\n/model two words\n/model small\nthird\n"
	res := e.invoke(input).run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	var models []string
	for _, r := range srv.Requests() {
		models = append(models, requestJSON(t, r.Body)["model"].(string))
	}
	if diff := cmp.Diff([]string{"small", "big-70b", "small"}, models); diff != "" {
		t.Errorf("requested models (-want +got):\n%s", diff)
	}
	for _, want := range []string{"model small at ", "(model big-70b from the next message on)", "rein: /model takes one model name", "(model small from the next message on)"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// firstSession records one exchange in e's workspace and returns its id.
func firstSession(t *testing.T, e *env) string {
	t.Helper()
	srv := modeltest.NewServer(t, sse(textBody("The **parser** reads tokens.")))
	res := e.invoke("what does the parser do?\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("first chat: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	list := e.run(t, "sessions", "list", "--json")
	var info struct{ ID string }
	if err := json.Unmarshal([]byte(strings.SplitN(list.stdout, "\n", 2)[0]), &info); err != nil || info.ID == "" {
		t.Fatalf("sessions list: %v\n%s", err, list.stdout)
	}
	return info.ID
}

// TestChatResumePicker: /resume lists the workspace's other sessions,
// a number attaches the chosen one and replays its last exchange, and
// the next message continues its history.
func TestChatResumePicker(t *testing.T) {
	e := newEnv(t)
	id := firstSession(t, e)
	srv := modeltest.NewServer(t, sse(textBody("Yes, tokens.")))
	res := e.invoke("/resume\n7\n/resume\n1\nand then?\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if !regexp.MustCompile(`(?m)^  1\. ` + id + `  just now +what does the parser do\?$`).MatchString(res.stderr) {
		t.Errorf("the list lacks session %s:\n%s", id, res.stderr)
	}
	for _, want := range []string{
		"rein: no session 7 in the list (it has 1)",
		`resumed session ` + id + ` "what does the parser do?" (updated just now); its last exchange:`,
		"› what does the parser do?\nThe **parser** reads tokens.\n",
		"(the previous session is kept as ",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	want := []string{"user:what does the parser do?", "assistant:The **parser** reads tokens.", "user:and then?"}
	if diff := cmp.Diff(want, historyTexts(t, reqs[0].Body)); diff != "" {
		t.Errorf("the resumed history (-want +got):\n%s", diff)
	}
}

// TestChatContinueSaysWhichSession: chat --continue names the session
// it resumed and shows its last exchange before the first prompt.
func TestChatContinueSaysWhichSession(t *testing.T) {
	e := newEnv(t)
	id := firstSession(t, e)
	srv := modeltest.NewServer(t)
	res := e.invoke("").run(t, "chat", "--continue", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	want := "resumed session " + id + ` "what does the parser do?" (updated just now); its last exchange:` + "\n› what does the parser do?\nThe **parser** reads tokens.\n"
	if res.stderr != want {
		t.Errorf("stderr = %q, want %q", res.stderr, want)
	}
}

// TestChatInitWritesAgentsMD: /init sends the survey prompt and the
// model's write of AGENTS.md goes through the policy like any write.
func TestChatInitWritesAgentsMD(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "write_file", `{"path":"AGENTS.md","content":"# Agents\n\nRun go test ./...\n"}`)),
		sse(textBody("I wrote AGENTS.md.")),
	)
	e := newEnv(t)
	res := e.invoke("/init\n").run(t, "chat", "--approve", "auto", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	prompt := lastUserText(t, srv.Requests()[0].Body)
	for _, want := range []string{"write an AGENTS.md", "how to build, run the tests", "conventions"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the /init prompt lacks %q:\n%s", want, prompt)
		}
	}
	got, err := os.ReadFile(filepath.Join(e.workspace, "AGENTS.md"))
	if err != nil || string(got) != "# Agents\n\nRun go test ./...\n" {
		t.Errorf("AGENTS.md = %q, %v", got, err)
	}
	if !strings.Contains(res.stderr, "→ write_file") {
		t.Errorf("the write is not shown as a call:\n%s", res.stderr)
	}
}

// TestChatInitWriteDenied: under read-only the write is denied, as the
// model's calls are: /init has no way around the policy.
func TestChatInitWriteDenied(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "write_file", `{"path":"AGENTS.md","content":"x"}`)),
		sse(textBody("I could not write it.")),
	)
	e := newEnv(t)
	res := e.invoke("/init\n").run(t, "chat", "--preset", "read-only", "--approve", "auto", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "AGENTS.md")); !os.IsNotExist(err) {
		t.Errorf("AGENTS.md was written under read-only: %v", err)
	}
}

// TestChatBangCommand: !command runs through the policy and its output
// is added to the next message; a denied one runs nothing, adds nothing.
func TestChatBangCommand(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("It said hello.")))
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[[policy.commands]]\nprefix = [\"cat\"]\naction = \"allow\"\n")
	writeFiles(t, e.workspace, map[string]string{"greeting.txt": "hello from the file\n"})
	input := "!cat greeting.txt\n!git push --force origin main\n!curl -s http://127.0.0.1:9/\nwhat did it print?\n"
	res := e.invoke(input).run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stdout, "$ cat greeting.txt\n") || !strings.Contains(res.stdout, "hello from the file") {
		t.Errorf("stdout lacks the command and its output:\n%s", res.stdout)
	}
	for _, want := range []string{
		"(added the command and its output to the conversation",
		"rein: !git push --force origin main was not run: ",
		"rein: !curl -s http://127.0.0.1:9/ was not run: ",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	msg := lastUserText(t, reqs[0].Body)
	for _, want := range []string{"$ cat greeting.txt", "hello from the file", "what did it print?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "git push") || strings.Contains(msg, "curl") {
		t.Errorf("a command that did not run reached the model:\n%s", msg)
	}
}

// TestChatAttachFiles: @path attaches a workspace file; a large one is
// cut with a note; a binary one, or one outside the workspace, stops
// the message; a word naming no file stays text.
func TestChatAttachFiles(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ok")), sse(textBody("ok")))
	e := newEnv(t)
	// A window the 256 KiB attachment fits in, so it is sent whole.
	e.writeUserConfig(t, "[model]\ncontext_window = 1000000\n")
	big := strings.Repeat("0123456789abcde\n", 20000) // 320,000 bytes
	writeFiles(t, e.workspace, map[string]string{"notes.txt": "remember the ```milk```\n", "big.txt": big})
	if err := os.WriteFile(filepath.Join(e.workspace, "blob.bin"), []byte{0x7f, 'E', 'L', 'F', 0, 0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(e.workspace), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := "look at @notes.txt, thanks @someone\nsee @blob.bin\nsee @../secret.txt\nall of @big.txt\n"
	res := e.invoke(input).run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2 (the binary and the outside file stop theirs)", len(reqs))
	}
	first := lastUserText(t, reqs[0].Body)
	if !strings.Contains(first, "[Attached by the user: notes.txt, 24 bytes]\n````\nremember the ```milk```\n````") {
		t.Errorf("first message:\n%s", first)
	}
	second := lastUserText(t, reqs[1].Body)
	if !strings.Contains(second, "[Attached by the user: big.txt, cut to its first 256 KiB]") || len(second) > 256<<10+200 || len(second) < 256<<10 {
		t.Errorf("second message is %d bytes: %.200s", len(second), second)
	}
	for _, want := range []string{
		"(attached notes.txt, 24 bytes)",
		"(@someone is no file of the workspace; it is sent as text)",
		"rein: cannot attach @blob.bin: it is a binary file; only text can be attached; the message was not sent",
		"rein: cannot attach @../secret.txt: ",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if strings.Contains(strings.Join(historyTexts(t, reqs[1].Body), "\n"), "outside") {
		t.Error("the file outside the workspace reached the model")
	}
}

// TestChatAttachFitsTheWindow: with a small context window the
// attachment is cut to about half of it, not to 256 KiB.
func TestChatAttachFitsTheWindow(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	e := newEnv(t) // a 32768-token window: cut at 64 KiB
	writeFiles(t, e.workspace, map[string]string{"big.txt": strings.Repeat("0123456789abcde\n", 20000)})
	res := e.invoke("all of @big.txt\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 || !strings.Contains(res.stderr, "(attached big.txt, cut to its first 64 KiB)") {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if msg := lastUserText(t, srv.Requests()[0].Body); len(msg) > 64<<10+200 {
		t.Errorf("the message is %d bytes", len(msg))
	}
}

// TestPermissionsCommand: rein permissions list shows the workspace's
// grants from the state directory, rm N revokes one.
func TestPermissionsCommand(t *testing.T) {
	e := newEnv(t)
	ws, err := filepath.EvalSymlinks(e.workspace)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"version": 1, "workspaces": map[string]any{
		ws:        []map[string]any{{"command": []string{"go", "test", "./..."}, "added": "2026-01-02T03:04:05Z"}, {"tool": "write_file", "added": "2026-01-03T00:00:00Z"}},
		"/other/": []map[string]any{{"tool": "web_fetch", "added": "2026-01-03T00:00:00Z"}},
	}})
	writeFiles(t, e.home, map[string]string{".local/state/rein/permissions.json": string(data)})
	res := e.run(t, "permissions", "list")
	if res.code != 0 || res.stdout != "1. command go test ./... (exactly) (2026-01-02)\n2. tool write_file (2026-01-03)\n" {
		t.Fatalf("list: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if res = e.run(t, "permissions", "rm", "1"); res.code != 0 || res.stderr != "revoked command go test ./... (exactly)\n" {
		t.Fatalf("rm 1: exit %d, stderr %q", res.code, res.stderr)
	}
	if res = e.run(t, "permissions", "list"); res.stdout != "1. tool write_file (2026-01-03)\n" {
		t.Errorf("list after rm: %q", res.stdout)
	}
	if res = e.run(t, "permissions", "rm", "5"); res.code != 1 || !strings.Contains(res.stderr, "no permission 5 (this workspace has 1)") {
		t.Errorf("rm 5: exit %d, stderr %q", res.code, res.stderr)
	}
	if res = e.run(t, "permissions", "rm", "one"); res.code != 2 {
		t.Errorf("rm one: exit %d, want 2 (usage); stderr %q", res.code, res.stderr)
	}
	other, _ := os.ReadFile(filepath.Join(e.home, ".local/state/rein/permissions.json"))
	if !strings.Contains(string(other), "web_fetch") {
		t.Error("rm touched another workspace's grants")
	}
}
