package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestBinaryInstructionImports: through the real binary, the system
// prompt of the first request carries ~/.claude/CLAUDE.md, AGENTS.md,
// CLAUDE.md and the text they import, in that order; an import that
// leads out is a warning and its text is not sent.
func TestBinaryInstructionImports(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.md": "SECRET outside the workspace"})
	writeFiles(t, e.home, map[string]string{".claude/CLAUDE.md": "User layer: prefer metric units."})
	writeFiles(t, e.workspace, map[string]string{
		"AGENTS.md":       "Agents layer. @docs/testing.md",
		"CLAUDE.md":       "Claude layer. See @docs/testing.md and @" + filepath.Join(outside, "secret.md") + "\n\n```\n@docs/fenced.md\n```\n",
		"docs/testing.md": "Imported: run go test -run NAME ./pkg for one test.",
		"docs/fenced.md":  "FENCED text must not be imported",
	})
	srv := modeltest.NewServer(t, sse(textBody("ok")))
	p := e.start(t, "run", "-e", srv.URL, "hi")
	p.stdin.Close()
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
	}
	sys := systemText(t, srv.Requests()[0].Body)
	last := -1
	for _, want := range []string{
		"# Instructions from ~/.claude/CLAUDE.md\n\nUser layer",
		"# Instructions from AGENTS.md\n\nAgents layer",
		"# Instructions from docs/testing.md (imported by AGENTS.md)\n\nImported: run go test -run NAME ./pkg for one test.",
		"# Instructions from CLAUDE.md\n\nClaude layer",
	} {
		i := strings.Index(sys, want)
		if i <= last {
			t.Errorf("the system prompt lacks %q (or has it out of order):\n%s", want, sys)
		}
		last = i
	}
	if strings.Count(sys, "Imported: run go test") != 1 || strings.Contains(sys, "SECRET") || strings.Contains(sys, "FENCED") {
		t.Errorf("the system prompt:\n%s", sys)
	}
	if !strings.Contains(p.stderr.String(), "rein: warning: instructions: refused @"+filepath.Join(outside, "secret.md")+" in CLAUDE.md") {
		t.Errorf("no warning for the refused import; stderr:\n%s", p.stderr)
	}
}

// TestChatStatusListsInstructions: /status names the instruction files
// the session was given, imports marked with @.
func TestChatStatusListsInstructions(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.home, map[string]string{".claude/CLAUDE.md": "user rules"})
	writeFiles(t, e.workspace, map[string]string{"CLAUDE.md": "rules @docs/more.md", "docs/more.md": "more", "CLAUDE.local.md": "mine"})
	srv := modeltest.NewServer(t)
	res := e.invoke("/status\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if want := "instructions: ~/.claude/CLAUDE.md, CLAUDE.md, @docs/more.md, CLAUDE.local.md\n"; !strings.Contains(res.stderr, want) {
		t.Errorf("/status lacks %q:\n%s", want, res.stderr)
	}
	e2 := newEnv(t)
	res = e2.invoke("/status\n").run(t, "chat", "-e", srv.URL)
	if !strings.Contains(res.stderr, "instructions: none") {
		t.Errorf("/status without files:\n%s", res.stderr)
	}
}

// TestChatInitKeepsClaudeMD: with a CLAUDE.md and no AGENTS.md, /init
// asks for CLAUDE.md to be updated in place, not for a new AGENTS.md,
// and says what became of each file.
func TestChatInitKeepsClaudeMD(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "write_file", `{"path":"CLAUDE.md","content":"# Project\n\nRun go test ./...\nUse gofmt.\n"}`)),
		sse(textBody("I updated CLAUDE.md.")),
	)
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"CLAUDE.md": "# Project\n"})
	res := e.invoke("/init\n").run(t, "chat", "--approve", "auto", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	prompt := lastUserText(t, srv.Requests()[0].Body)
	for _, want := range []string{"improve the CLAUDE.md", "Do not create an AGENTS.md", "how to build, run the tests"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the /init prompt lacks %q:\n%s", want, prompt)
		}
	}
	for _, want := range []string{
		"/init: CLAUDE.md exists and AGENTS.md does not: asking the model to update CLAUDE.md in place (no AGENTS.md is created)\n",
		"/init: no AGENTS.md; CLAUDE.md updated (1 → 4 lines) (the new text applies from the next session)\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "AGENTS.md")); !os.IsNotExist(err) {
		t.Errorf("AGENTS.md was created: %v", err)
	}
}

// TestChatInitMergesBoth: with both files, /init asks for CLAUDE.md to be
// merged into AGENTS.md and reduced to @AGENTS.md, and reports both
// changes; when the model writes nothing, it says both are unchanged.
func TestChatInitMergesBoth(t *testing.T) {
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "write_file", `{"path":"AGENTS.md","content":"agents\nclaude\n"}`)),
		sse(toolBody("c2", "write_file", `{"path":"CLAUDE.md","content":"@AGENTS.md\n"}`)),
		sse(textBody("Merged.")),
		sse(textBody("Nothing to do.")),
	)
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"AGENTS.md": "agents\n", "CLAUDE.md": "claude\nmore claude\n"})
	res := e.invoke("/init\n/init\n").run(t, "chat", "--approve", "auto", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if prompt := lastUserText(t, srv.Requests()[0].Body); !strings.Contains(prompt, "merge its two instruction files") || !strings.Contains(prompt, "the single line @AGENTS.md") {
		t.Errorf("the first /init prompt:\n%s", prompt)
	}
	for _, want := range []string{
		"/init: both AGENTS.md and CLAUDE.md exist: asking the model to merge CLAUDE.md into AGENTS.md and leave CLAUDE.md as the line @AGENTS.md\n",
		"/init: AGENTS.md updated (1 → 2 lines); CLAUDE.md replaced by the line @AGENTS.md (was 2 lines)",
		// The second /init sees CLAUDE.md importing AGENTS.md: one file.
		"/init: asking the model to update AGENTS.md\n",
		"/init: AGENTS.md unchanged; CLAUDE.md unchanged\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// TestTUIStartupListsInstructions: bare rein on a terminal names the
// instruction files it loaded, imports marked, before the first prompt.
func TestTUIStartupListsInstructions(t *testing.T) {
	srv := modeltest.NewServer(t)
	e := newEnv(t)
	writeFiles(t, e.workspace, map[string]string{"AGENTS.md": "rules", "CLAUDE.md": "see @docs/x.md", "docs/x.md": "x"})
	tm := e.startTerm(t, 120, 30, "-e", srv.URL)
	tm.waitText("instructions: AGENTS.md, CLAUDE.md, @docs/x.md")
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}

// TestChatImportedInstructionsSurviveCompact: after /compact the next
// request still carries the imported instructions in its system prompt.
func TestChatImportedInstructionsSurviveCompact(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, "[model]\ncontext_window = 32768\n[context]\nkeep_recent = 2\n")
	writeFiles(t, e.workspace, map[string]string{"CLAUDE.md": "@docs/rules.md", "docs/rules.md": "IMPORTED-RULE: answer in French."})
	srv := modeltest.NewServer(t,
		sse(textBody("first answer")),
		sse(textBody("second answer")),
		sse(textBody("SUMMARY: two questions.")),
		sse(textBody("third answer")),
	)
	res := e.invoke("first question\nsecond question\n/compact\nthird question\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[3].Body), "SUMMARY: two questions.") {
		t.Fatalf("%d requests; the last did not follow a compaction", len(reqs))
	}
	if sys := systemText(t, reqs[3].Body); !strings.Contains(sys, "IMPORTED-RULE: answer in French.") {
		t.Errorf("the request after /compact lost the imported instructions:\n%s", sys)
	}
}
