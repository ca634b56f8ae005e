package tui

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata")

// screen drives a Model the way the program does and records what it
// printed to the scrollback.
type screen struct {
	t       *testing.T
	m       *Model
	clock   time.Time
	actions []Action
	scroll  []string
}

func newScreen(t *testing.T, w, h int) *screen {
	s := &screen{t: t, clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s.m = New(Config{
		Emit:     func(a Action) { s.actions = append(s.actions, a) },
		Commands: []string{"/help", "/diff", "/model", "/mcp", "/permissions", "/exit"},
		Paths:    func(p string) []string { return filterPrefix([]string{"main.go", "go.mod", "docs/"}, p) },
		NoColor:  true, Width: w, Height: h,
		Now: func() time.Time { return s.clock },
	})
	s.m.scroll = &s.scroll
	s.send(StatusMsg{Model: "qwen3", Preset: "editor", Context: "3%", Tokens: "120/45", Session: "s-1234"})
	return s
}

func filterPrefix(all []string, p string) []string {
	var out []string
	for _, a := range all {
		if strings.HasPrefix(a, p) {
			out = append(out, a)
		}
	}
	return out
}

func (s *screen) send(msgs ...tea.Msg) {
	for _, msg := range msgs {
		s.m.Update(msg)
		s.m.printing = false // the print reached the terminal
	}
}

func (s *screen) typ(text string) {
	for _, r := range text {
		s.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (s *screen) press(code rune, mod tea.KeyMod) { s.send(tea.KeyPressMsg{Code: code, Mod: mod}) }

func (s *screen) ev(e agent.Event) { s.send(EventMsg{Event: e}) }

// frame is the scrollback and the live screen as text.
func (s *screen) frame() string {
	live := stripANSI(s.m.View().Content)
	return stripANSI(strings.Join(s.scroll, "\n")) + "\n┈┈┈┈ live ┈┈┈┈\n" + live + "\n"
}

// golden compares the frame with testdata/name.golden (-update rewrites).
func (s *screen) golden(name string) {
	s.t.Helper()
	got := s.frame()
	for i, l := range strings.Split(s.live(), "\n") {
		if w := len([]rune(l)); w > s.m.width {
			s.t.Errorf("live line %d is %d wide, over the terminal's %d: %q", i, w, s.m.width, l)
		}
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			s.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		s.t.Errorf("%s frame mismatch (-want +got):\n%s", name, diff)
	}
}

func (s *screen) live() string { return stripANSI(s.m.View().Content) }

func textDelta(t string) agent.Event { return agent.Event{Type: agent.EventTextDelta, Text: t} }

func call(id, name string, args any) *model.ToolCall {
	raw, _ := json.Marshal(args)
	return &model.ToolCall{ID: id, Name: name, Args: raw}
}

func TestScreenMarkdownAnswer(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.typ("explain")
	s.press(tea.KeyEnter, 0)
	s.send(TurnMsg{Running: true})
	s.ev(agent.Event{Type: agent.EventReasoningDelta, Text: "The user wants\nan explanation."})
	answer := "# Heading\n\nSome *emphasis* and **bold**.\n\n1. first\n2. second\n\n```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\n| col | val |\n|-----|-----|\n| a   | 1   |\n\nStill typ"
	for i := 0; i < len(answer); i += 5 {
		s.ev(textDelta(answer[i:min(i+5, len(answer))]))
	}
	s.clock = s.clock.Add(1500 * time.Millisecond)
	s.golden("markdown_streaming")
	s.ev(textDelta("ing."))
	s.send(TurnMsg{Running: false})
	s.golden("markdown_done")
	if diff := cmp.Diff([]Action{{Kind: ActionSend, Text: "explain"}}, s.actions); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	s.press('t', tea.ModCtrl)
	if !strings.Contains(s.frame(), "an explanation.") {
		t.Errorf("ctrl+t did not show the folded reasoning")
	}
}

func TestScreenCommandApprovalAndResult(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.send(TurnMsg{Running: true})
	s.ev(agent.Event{Type: agent.EventToolCall, ToolCall: call("c1", "run_command", map[string]string{"command": "go test ./..."})})
	reply := make(chan ApprovalReply, 1)
	s.send(ApprovalMsg{Request: ApprovalRequest{ID: 7, Tool: "run_command", Command: "go test ./...", Why: "run_command asks under the editor preset", CanAlways: true}, Reply: reply})
	s.golden("approval_command_unarmed")
	s.clock = s.clock.Add(approvalGuard)
	s.golden("approval_command")
	s.typ("s")
	if got := <-reply; got != (ApprovalReply{ID: 7, Choice: ChoiceSession}) {
		t.Fatalf("reply %+v", got)
	}
	s.ev(agent.Event{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: "c1", Tool: "run_command", Action: "allow"}})
	s.clock = s.clock.Add(2300 * time.Millisecond)
	s.golden("command_running")
	s.ev(agent.Event{Type: agent.EventToolResult, ToolResult: &model.ToolResult{CallID: "c1", Name: "run_command", Content: "exit code 1 (2.3s)\n--- FAIL: TestX\nFAIL\n"}})
	s.send(TurnMsg{Running: false})
	s.golden("command_result")
}

func TestScreenWriteApprovalDiff(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.send(TurnMsg{Running: true})
	reply := make(chan ApprovalReply, 1)
	diff := "--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-func main() {}\n+func main() { println(1) }\n"
	s.send(ApprovalMsg{Request: ApprovalRequest{ID: 1, Tool: "write_file", Diff: diff, Why: "main.go is protected"}, Reply: reply})
	s.clock = s.clock.Add(approvalGuard)
	s.golden("approval_diff")
	s.typ("a") // not offered: ignored
	s.typ("n")
	s.typ("use edit")
	s.press(tea.KeyEnter, 0)
	if got := <-reply; got != (ApprovalReply{ID: 1, Choice: ChoiceDeny, Reason: "use edit"}) {
		t.Fatalf("reply %+v", got)
	}
	s.ev(agent.Event{Type: agent.EventToolDecision, Decision: &agent.Decision{CallID: "w0", Tool: "write_file", Action: "deny", Reason: "write_file was denied by the user: use edit", By: "approver"}})
	s.ev(agent.Event{Type: agent.EventToolResult, ToolResult: &model.ToolResult{CallID: "w", Name: "edit_file", Content: "edited main.go"}})
	s.send(EventMsg{Event: agent.Event{Type: agent.EventToolResult, ToolResult: &model.ToolResult{CallID: "w2", Name: "edit_file", Content: "edited main.go"}}, Diff: diff})
	s.golden("diff_result")
}

func TestScreenPasteIsOneMessage(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.send(tea.PasteMsg{Content: "line one\r\nline two\nline three"})
	s.golden("paste")
	s.press(tea.KeyEnter, 0)
	want := []Action{{Kind: ActionSend, Text: "line one\nline two\nline three"}}
	if diff := cmp.Diff(want, s.actions); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
}

func TestScreenLongPasteCollapsed(t *testing.T) {
	s := newScreen(t, 80, 24)
	rows := strings.Repeat("a log row\n", 199) + "the last row"
	s.typ("why ")
	s.send(tea.PasteMsg{Content: rows})
	if live := s.live(); strings.Contains(live, "a log row") || !strings.Contains(live, "› why [pasted 200 lines]") {
		t.Fatalf("the input echoes the paste:\n%s", live)
	}
	s.send(SubmitMsg{Text: "first"}) // a draft with a paste survives
	s.press(tea.KeyEnter, 0)
	want := []Action{{Kind: ActionSend, Text: "first"}, {Kind: ActionSend, Text: "why " + rows}}
	if diff := cmp.Diff(want, s.actions); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
	if all := stripANSI(strings.Join(s.scroll, "\n")); strings.Contains(all, "a log row") || !strings.Contains(all, "› why [pasted 200 lines]") {
		t.Fatalf("the transcript echoes the paste:\n%s", all)
	}
	s.typ("/expand")
	s.press(tea.KeyEnter, 0)
	if all := strings.Join(s.scroll, "\n"); !strings.Contains(all, "the last row") || len(s.actions) != 2 {
		t.Fatalf("/expand: %d actions, scrollback:\n%s", len(s.actions), all)
	}
}

func TestScreenKeys(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.typ("a")
	s.press(tea.KeyEnter, tea.ModAlt)
	s.typ("b")
	s.press('j', tea.ModCtrl)
	s.typ("c")
	if got := s.m.input.Value(); got != "a\nb\nc" {
		t.Errorf("alt+enter/ctrl+j: input %q", got)
	}
	s.press('c', tea.ModCtrl) // clears the input
	if s.m.input.Value() != "" || len(s.actions) != 0 {
		t.Fatalf("ctrl+c with input: value %q actions %v", s.m.input.Value(), s.actions)
	}
	s.press('c', tea.ModCtrl)
	s.press('c', tea.ModCtrl)
	if diff := cmp.Diff([]Action{{Kind: ActionQuit}}, s.actions); diff != "" {
		t.Errorf("ctrl+c twice (-want +got):\n%s", diff)
	}
	s.actions = nil
	s.send(TurnMsg{Running: true})
	s.press(tea.KeyEscape, 0)
	s.press('c', tea.ModCtrl)
	if diff := cmp.Diff([]Action{{Kind: ActionCancel}, {Kind: ActionCancel}}, s.actions); diff != "" {
		t.Errorf("esc and ctrl+c during a turn (-want +got):\n%s", diff)
	}
	s.send(TurnMsg{Running: false})
	s.actions = nil
	s.press('d', tea.ModCtrl)
	if diff := cmp.Diff([]Action{{Kind: ActionQuit}}, s.actions); diff != "" {
		t.Errorf("ctrl+d (-want +got):\n%s", diff)
	}
}

func TestScreenCompletionAndHistory(t *testing.T) {
	dir := t.TempDir()
	h, err := OpenHistory(filepath.Join(dir, "h"))
	if err != nil {
		t.Fatal(err)
	}
	s := newScreen(t, 80, 24)
	s.m.hist = h
	s.typ("/pe")
	s.press(tea.KeyTab, 0)
	if got := s.m.input.Value(); got != "/permissions " {
		t.Errorf("tab on /pe: %q", got)
	}
	s.m.input.Reset()
	s.typ("look at @ma")
	s.press(tea.KeyTab, 0)
	if got := s.m.input.Value(); got != "look at @main.go " {
		t.Errorf("tab on @ma: %q", got)
	}
	s.press(tea.KeyEnter, 0)
	s.typ("two\nlines") // typed newline runes stay text in the editor
	s.m.input.Reset()
	h2, _ := OpenHistory(filepath.Join(dir, "h"))
	if h2.Len() != 1 || h2.At(0) != "look at @main.go" {
		t.Fatalf("persisted history: %d entries", h2.Len())
	}
	s.press(tea.KeyUp, 0)
	if got := s.m.input.Value(); got != "look at @main.go" {
		t.Errorf("up: %q", got)
	}
	s.press(tea.KeyDown, 0)
	if got := s.m.input.Value(); got != "" {
		t.Errorf("down back to the draft: %q", got)
	}
}

func TestScreenPlanVerifyAndResize(t *testing.T) {
	s := newScreen(t, 120, 40)
	s.send(TurnMsg{Running: true})
	s.ev(agent.Event{Type: agent.EventPlanUpdated, Plan: []agent.PlanItem{
		{Content: "Read the code", Status: agent.PlanCompleted},
		{Content: "Fix the bug", Status: agent.PlanInProgress, ActiveForm: "Fixing the bug"},
		{Content: "Run the tests", Status: agent.PlanPending},
	}})
	s.ev(agent.Event{Type: agent.EventVerifyStarted, Verify: &agent.VerifyInfo{Check: "go test"}})
	s.ev(textDelta("A long paragraph that streams while the terminal is resized, " + strings.Repeat("word ", 40)))
	s.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	s.ev(textDelta("and it keeps streaming.\n\n"))
	s.ev(agent.Event{Type: agent.EventVerifyResult, Verify: &agent.VerifyInfo{Check: "go test", ExitCode: 0, Passed: true, Duration: 1200 * time.Millisecond}})
	s.golden("plan_verify_resized")
}

func TestScreenEscapesModelText(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.send(TurnMsg{Running: true})
	s.ev(agent.Event{Type: agent.EventReasoningDelta, Text: "\x1b]0;title\x07"})
	s.ev(textDelta("hi \x1b[31mred\x1b[0m\n\n"))
	s.ev(agent.Event{Type: agent.EventToolCall, ToolCall: call("c", "run\x1b[2Jx", map[string]string{"command": "echo \x1b[H"})})
	s.ev(agent.Event{Type: agent.EventToolResult, ToolResult: &model.ToolResult{CallID: "c", Content: "\x1b[2J\x9b"}})
	s.send(NoticeMsg{Kind: NoticeOutput, Text: "\x1bP+q\x1b\\"})
	all := strings.Join(s.scroll, "\n") + s.m.View().Content
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\x1b[H", "\x9b", "\x1bP", "\x1b[31m"} {
		if strings.Contains(all, bad) {
			t.Errorf("model-controlled %q reached the terminal", bad)
		}
	}
}
