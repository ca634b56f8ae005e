package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// A running command shows the last lines of its output under its call
// line with the elapsed time: at most five, cut to the width, control
// characters escaped, a progress bar's carriage returns collapsed. The
// result clears the tail.
func TestScreenCommandLiveTail(t *testing.T) {
	s := newScreen(t, 60, 24)
	s.send(TurnMsg{Running: true})
	s.ev(agent.Event{Type: agent.EventToolCall, ToolCall: call("c1", "run_command", map[string]string{"command": "make test"})})
	s.send(ToolOutputMsg{CallID: "c1", Text: "line1\nline2\n"})
	s.send(ToolOutputMsg{CallID: "other", Text: "not running: dropped\n"})
	s.send(ToolOutputMsg{CallID: "c1", Text: "line3\n\x1b[31mred\x1b[0m\n10%\r50%\r100%\n"})
	s.send(ToolOutputMsg{CallID: "c1", Text: "\tindented " + strings.Repeat("long ", 20) + "\n"})
	s.clock = s.clock.Add(1500 * time.Millisecond)
	s.golden("command_tail")
	frame := s.frame()
	if raw := s.m.View().Content; strings.Contains(raw, "\x1b[31m") {
		t.Error("the command's escape sequence reached the terminal raw")
	}
	for _, gone := range []string{"line1", "dropped", "\x1b[31m", "10%"} {
		if strings.Contains(frame, gone) {
			t.Errorf("the tail shows %q", gone)
		}
	}

	s.ev(agent.Event{Type: agent.EventToolResult, ToolResult: &model.ToolResult{CallID: "c1", Name: "run_command", Content: "exit code 0 (1.5s)\nok\n"}})
	s.send(TurnMsg{Running: false})
	live := frame[strings.Index(frame, "┈┈┈┈ live"):]
	if !strings.Contains(live, "line3") {
		t.Fatalf("the running frame lacks the tail:\n%s", frame)
	}
	after := s.frame()
	if live := after[strings.Index(after, "┈┈┈┈ live"):]; strings.Contains(live, "line3") || strings.Contains(live, "100%") {
		t.Errorf("the tail outlived the result:\n%s", after)
	}
}

// The kept tail is bounded however much output comes, and cut at a line.
func TestCallTailIsBounded(t *testing.T) {
	s := newScreen(t, 80, 24)
	s.ev(agent.Event{Type: agent.EventToolCall, ToolCall: call("c1", "run_command", map[string]string{"command": "yes"})})
	for range 1000 {
		s.send(ToolOutputMsg{CallID: "c1", Text: strings.Repeat("y\n", 50) + "é\n"})
	}
	tail := s.m.calls[0].tail
	if len(tail) > maxCallTailBytes || !strings.HasSuffix(tail, "é\n") || strings.HasPrefix(tail, "\n") {
		t.Errorf("tail: %d bytes, starts %q, ends %q", len(tail), tail[:4], tail[len(tail)-4:])
	}
}
