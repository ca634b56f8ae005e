package adk

import (
	"fmt"
	"strconv"
	"testing"
)

// Shapes of the comparison: tool calls per run and earlier messages.
var (
	toolCallCounts = []int{10, 100}
	historySizes   = []int{0, 1000}
)

// finalText is what every scripted model answers after its K tool calls.
const finalText = "done"

// script is the decision every framework's scripted model makes: on call
// i < K it asks for the no-op tool with arguments {"n":i}, then it
// answers finalText. The arguments differ on every call so that no
// framework's repeat guard can cut a run short. It is reset before each
// run and is not safe for concurrent use: one run at a time.
type script struct {
	k         int
	calls     int // model calls in this run
	toolRuns  int // no-op tool executions in this run
	lastInput int // messages the model saw on its last call
}

// next records one model call that saw inputLen messages and says
// whether to ask for a tool (with its call id and arguments) or answer.
func (s *script) next(inputLen int) (wantTool bool, id, args string) {
	i := s.calls
	s.calls++
	s.lastInput = inputLen
	if i >= s.k {
		return false, "", ""
	}
	n := strconv.Itoa(i)
	return true, "call_" + n, `{"n":` + n + `}`
}

func (s *script) reset() { s.calls, s.toolRuns, s.lastInput = 0, 0, 0 }

// check is the correctness half of the comparison: the run made K+1
// model calls, ran the tool K times, ended with finalText, and its last
// model call saw the whole history: the earlier messages, the user's
// input and an assistant message and a tool result per tool call (a
// framework may add a system message on top).
func (s *script) check(history int, text string) error {
	switch {
	case s.calls != s.k+1:
		return fmt.Errorf("%d model calls, want %d", s.calls, s.k+1)
	case s.toolRuns != s.k:
		return fmt.Errorf("%d tool runs, want %d", s.toolRuns, s.k)
	case text != finalText:
		return fmt.Errorf("final text %q, want %q", text, finalText)
	case s.lastInput < history+1+2*s.k:
		return fmt.Errorf("last model call saw %d messages, want at least %d", s.lastInput, history+1+2*s.k)
	}
	return nil
}

// loopRunner is one framework set up for one shape: prepare readies a fresh
// run on the history (off the clock), run performs it and returns the
// final text.
type loopRunner interface {
	prepare(tb testing.TB)
	run(tb testing.TB) string
}

// impl builds a runner for K tool calls on a history of n messages.
type impl struct {
	name  string
	build func(tb testing.TB, s *script, history int) loopRunner
}

// noopIn is the no-op tool's input.
type noopIn struct {
	N int `json:"n"`
}

// historyText returns the text of earlier message i: alternating user and
// assistant turns of realistic length.
func historyText(i int) string {
	return fmt.Sprintf("message %d: a sentence or two of earlier conversation, about the length of a short chat turn.", i)
}
