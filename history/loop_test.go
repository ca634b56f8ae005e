package history

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// newLoop returns an agent on rt with s as its strategy, recording its
// compaction events.
func newLoop(t *testing.T, rt *router, s agent.ContextStrategy) (*agent.Agent, *compactionRecorder) {
	t.Helper()
	rec := &compactionRecorder{}
	a, err := agent.New(agent.Config{
		Provider: rt,
		System:   systemPrompt,
		Params:   model.Request{MaxTokens: testMaxTokens},
		Context:  s,
		Hooks:    []agent.Hook{rec},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, rec
}

// TestLoopSummaryFailure resumes a history far over the window with a
// summarizer that is overloaded: the run still completes on the window,
// and the compaction event says why.
func TestLoopSummaryFailure(t *testing.T) {
	overloaded := &model.APIError{Provider: "anthropic", StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"}
	rt := &router{
		main:    modeltest.NewScripted(modeltest.Text("carried on")).WithContextWindow(testWindow),
		summary: modeltest.NewScripted(modeltest.Fail(overloaded)),
	}
	a, rec := newLoop(t, rt, &Summarize{Provider: rt})
	conv := agent.NewConversation("resumed", newHistoryGen(12).history(600)...)
	out, err := a.RunToEnd(context.Background(), conv, "continue")
	if err != nil || out.Kind != agent.Complete {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	checkRequests(t, rt.main.Requests(), "")
	if len(rec.events) != 1 {
		t.Fatalf("%d compaction events, want 1", len(rec.events))
	}
	ev := rec.events[0]
	if ev.Strategy != StrategyWindow || !strings.Contains(ev.Fallback, "overloaded_error") || ev.OmittedMessages == 0 {
		t.Errorf("compaction event %+v, want a window naming the summary failure", ev)
	}
	req := rt.main.Requests()[0]
	if !strings.Contains(req.Messages[0].Text(), "omitted to fit the context window") {
		t.Error("the windowed request lacks its marker")
	}
	if last := req.Messages[len(req.Messages)-1]; last.Text() != "continue" {
		t.Errorf("the request does not end with the new input: %q", clip(last.Text(), 80))
	}
}

// TestLoopCompactCommand is /compact in a chat: Compact between runs, then
// the next run's request is headed by the summary and its compaction
// event carries the summary for the journal.
func TestLoopCompactCommand(t *testing.T) {
	rt := &router{
		main:    modeltest.NewScripted(modeltest.Text("first"), modeltest.Text("second")).WithContextWindow(testWindow),
		summary: modeltest.NewScripted(modeltest.Text("COMPACTED: earlier tasks done.")),
	}
	s := &Summarize{Provider: rt, KeepRecent: 4}
	a, rec := newLoop(t, rt, s)
	conv := agent.NewConversation("chat", newHistoryGen(13).history(40)...)
	ctx := context.Background()
	if _, err := a.RunToEnd(ctx, conv, "hello"); err != nil {
		t.Fatal(err)
	}
	if len(rec.events) != 0 || rt.summary.Calls() != 0 {
		t.Fatalf("compaction before /compact: %+v", rec.events)
	}
	info, err := s.Compact(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	if info.Summary != "COMPACTED: earlier tasks done." || info.KeptMessages > 6 {
		t.Fatalf("compact info = %+v", info)
	}
	if _, err := a.RunToEnd(ctx, conv, "next"); err != nil {
		t.Fatal(err)
	}
	req := rt.main.Requests()[1]
	if !strings.HasPrefix(req.Messages[0].Text(), SummaryHeader+"\nCOMPACTED") || req.System != systemPrompt {
		t.Errorf("request after /compact: system %q, first message %q", req.System, clip(req.Messages[0].Text(), 80))
	}
	if err := checkPairs(req.Messages); err != nil {
		t.Error(err)
	}
	if len(rec.events) != 1 || rec.events[0].Summary != info.Summary || rec.events[0].Summarized != info.Summarized {
		t.Errorf("compaction events %+v, want one carrying the summary", rec.events)
	}
}

// TestLoopStrategyError: a misconfigured strategy fails the run at the
// first call with a clear error.
func TestLoopStrategyError(t *testing.T) {
	rt := &router{main: modeltest.NewScripted(modeltest.Text("never")), summary: modeltest.NewScripted()}
	a, _ := newLoop(t, rt, &Summarize{})
	out, err := a.RunToEnd(context.Background(), agent.NewConversation("x"), "hi")
	if !errors.Is(err, ErrInvalidStrategy) || out.Kind != agent.Failed || !strings.Contains(err.Error(), "Summarize.Provider is nil") {
		t.Errorf("outcome %+v, err %v", out, err)
	}
}

// TestCheckersCatchViolations makes sure the acceptance checks can fail.
func TestCheckersCatchViolations(t *testing.T) {
	bad := [][]model.Message{
		{u("q"), tr(1, "c1")},                        // result without its call
		{u("q"), ac("c1"), a("x"), tr(1, "c1")},      // separated
		{u("q"), ac("c1", "c2"), tr(1, "c1")},        // a call without result
		{u("q"), ac("c1"), tr(1, "c2")},              // wrong id
		{u("q"), ac("c1")},                           // trailing call
		{tr(1, "c0"), u("q"), ac("c1"), tr(1, "c1")}, // orphan head
	}
	for i, msgs := range bad {
		if checkPairs(msgs) == nil {
			t.Errorf("case %d: checkPairs accepted a broken history", i)
		}
	}
	good := []model.Message{u("q"), ac("c1", "c2"), tr(1, "c1", "c2"), a("done")}
	if err := checkPairs(good); err != nil {
		t.Errorf("checkPairs refused a good history: %v", err)
	}
	req := &model.Request{System: "s", Messages: good, MaxTokens: 10}
	if summaryFits(req, 10) == nil {
		t.Error("summaryFits accepted an oversized request")
	}
}
