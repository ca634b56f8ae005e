package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestBinaryRepeatLimitFromConfig: [agent] repeat_limit = 2 ends the run
// at the second identical call (the default, 3, would have made a third
// request); --repeat-limit 1 is refused with the allowed range.
func TestBinaryRepeatLimitFromConfig(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[agent]\nrepeat_limit = 2\n")
	writeFiles(t, e.workspace, map[string]string{"a.txt": "same"})
	args := mustJSONString(t, map[string]string{"path": "a.txt"})
	srv := modeltest.NewServer(t,
		sse(toolBody("c0", "read_file", args)), sse(toolBody("c1", "read_file", args)),
		sse(toolBody("c2", "read_file", args)), sse(textBody("done")))
	p := e.start(t, "run", "-e", srv.URL, "read it")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code == 0 {
		t.Fatalf("exit 0; want the repeat stop\nstderr: %s", p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "was called 2 times in a row with the same arguments") {
		t.Errorf("stderr lacks the repeat stop:\n%s", p.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (the limit of 2 in the config)", n)
	}
	res := e.invoke("").run(t, "run", "-e", srv.URL, "--repeat-limit", "1", "x")
	if res.code == 0 || !strings.Contains(res.stderr, "--repeat-limit must be between 2 and 1000 (got 1)") {
		t.Errorf("--repeat-limit 1: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestBinaryCommandTimeoutFromConfig: [agent] command_timeout bounds a
// run_command call that gives no timeout_s, and the tool's description
// states it; a default over command_max_timeout is refused.
func TestBinaryCommandTimeoutFromConfig(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[agent]\ncommand_timeout = \"1s\"\ncommand_max_timeout = \"3s\"\n")
	srv := modeltest.NewServer(t,
		sse(toolBody("c0", "run_command", mustJSONString(t, map[string]string{"command": "sleep 20"}))),
		sse(textBody("done")))
	start := time.Now()
	p := e.start(t, "run", "--preset", "full", "--approve", "auto", "-e", srv.URL, "wait")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the run took %s; the command should have been killed after 1s", d)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), "(default 1, at most 3)") {
		t.Errorf("run_command's description does not state the configured timeouts")
	}
	if !strings.Contains(string(reqs[1].Body), "timed out after 1s") {
		t.Errorf("the tool result does not say the 1s timeout killed it:\n%s", reqs[1].Body)
	}
	e.writeUserConfig(t, "[agent]\ncommand_timeout = \"20m\"\n")
	res := e.invoke("").run(t, "run", "-e", srv.URL, "x")
	if res.code == 0 || !strings.Contains(res.stderr, "is longer than agent.command_max_timeout = 10m0s") {
		t.Errorf("command_timeout over the max: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestBinaryOtherInstructionsAndAppendedPrompt: the other agents' files
// at the root reach the first request's system prompt after AGENTS.md, a
// file-scoped Cursor rule does not, --append-system-prompt (a file, then
// literal text) comes after them all with rein's prompt kept, and
// [instructions] others = false leaves the other agents' files out.
func TestBinaryOtherInstructionsAndAppendedPrompt(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{
		"AGENTS.md":                       "Agents rules.",
		"GEMINI.md":                       "Gemini rules.",
		".github/copilot-instructions.md": "Copilot rules.",
		".cursor/rules/all.mdc":           "---\nalwaysApply: true\n---\nCursor always rule.",
		".cursor/rules/ts.mdc":            "---\nglobs: *.ts\n---\nTS ONLY rule.",
	})
	extra := filepath.Join(t.TempDir(), "extra.md")
	if err := os.WriteFile(extra, []byte("Appended from a file."), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t, sse(textBody("ok")), sse(textBody("ok")), sse(textBody("ok")))
	res := e.invoke("").run(t, "run", "-e", srv.URL, "--append-system-prompt", extra, "hi")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	sys := systemText(t, srv.Requests()[0].Body)
	last := -1
	for _, want := range []string{
		"# Instructions from AGENTS.md\n\nAgents rules.",
		"# Instructions from GEMINI.md\n\nGemini rules.",
		"# Instructions from .github/copilot-instructions.md\n\nCopilot rules.",
		"# Instructions from .cursor/rules/all.mdc\n\nCursor always rule.",
		"# Appended with --append-system-prompt\n\nAppended from a file.",
	} {
		i := strings.Index(sys, want)
		if i <= last {
			t.Errorf("the system prompt lacks %q (or has it out of order):\n%s", want, sys)
		}
		last = i
	}
	if strings.Contains(sys, "TS ONLY") || strings.Contains(sys, "alwaysApply") {
		t.Errorf("a file-scoped rule or front matter reached the prompt:\n%s", sys)
	}
	if !strings.Contains(sys, "run_command") || strings.Index(sys, "Agents rules.") < 100 {
		t.Errorf("rein's own system prompt is not kept before the instructions:\n%s", sys)
	}

	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[instructions]\nothers = false\n")
	res = e.invoke("").run(t, "run", "-e", srv.URL, "--append-system-prompt", "Literal appended text.", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	sys = systemText(t, srv.Requests()[1].Body)
	if strings.Contains(sys, "Gemini rules.") || strings.Contains(sys, "Copilot rules.") || strings.Contains(sys, "Cursor always") {
		t.Errorf("others = false still sent the other agents' files:\n%s", sys)
	}
	if !strings.Contains(sys, "Agents rules.") || !strings.HasSuffix(strings.TrimSpace(sys), "# Appended with --append-system-prompt\n\nLiteral appended text.") {
		t.Errorf("the literal text is not appended last:\n%s", sys)
	}

	e.writeUserConfig(t, "[instructions]\nother = false\n")
	res = e.invoke("").run(t, "run", "-e", srv.URL, "hi")
	if res.code == 0 || !strings.Contains(res.stderr, `unknown key "instructions.other"`) || !strings.Contains(res.stderr, "others") {
		t.Errorf("a misspelt key: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	big := strings.Repeat("x", 40000)
	res = e.invoke("").run(t, "run", "-e", srv.URL, "--append-system-prompt", big, "hi")
	if res.code == 0 || !strings.Contains(res.stderr, "--append-system-prompt: the text is more than 32768 bytes") {
		t.Errorf("an oversized text: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestChatStatusListsOtherInstructions: /status names the other agents'
// files and the appended prompt among the instructions.
func TestChatStatusListsOtherInstructions(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"GEMINI.md": "g", ".cursorrules": "c", "CLAUDE.local.md": "mine"})
	srv := modeltest.NewServer(t)
	res := e.invoke("/status\n").run(t, "chat", "-e", srv.URL, "--append-system-prompt", "be brief")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if want := "instructions: GEMINI.md, .cursorrules, CLAUDE.local.md, --append-system-prompt\n"; !strings.Contains(res.stderr, want) {
		t.Errorf("/status lacks %q:\n%s", want, res.stderr)
	}
}

// TestBinaryMaxDenials: [agent] max_consecutive_denials = 0 lets the run
// go on through four denied calls to the model's answer; --max-denials 2
// (the flag over the file) ends it blocked at the second.
func TestBinaryMaxDenials(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n\n[agent]\nmax_consecutive_denials = 0\n\n[[policy.tools]]\nname = \"write_file\"\naction = \"deny\"\n")
	script := func() []modeltest.Step {
		var out []modeltest.Step
		for i := range 4 {
			out = append(out, sse(toolBody("c"+string(rune('0'+i)), "write_file",
				mustJSONString(t, map[string]string{"path": "f.txt", "content": strings.Repeat("x", i+1)}))))
		}
		return append(out, sse(textBody("done")))
	}
	srv := modeltest.NewServer(t, script()...)
	res := e.invoke("").run(t, "run", "-e", srv.URL, "write")
	if res.code != 0 || len(srv.Requests()) != 5 {
		t.Fatalf("denials off: exit %d after %d requests, want 0 after 5; stderr:\n%s", res.code, len(srv.Requests()), res.stderr)
	}
	srv = modeltest.NewServer(t, script()...)
	res = e.invoke("").run(t, "run", "-e", srv.URL, "--max-denials", "2", "write")
	if res.code == 0 || !strings.Contains(res.stderr, "blocked") || len(srv.Requests()) != 2 {
		t.Errorf("--max-denials 2: exit %d after %d requests, want blocked after 2; stderr:\n%s", res.code, len(srv.Requests()), res.stderr)
	}
}
