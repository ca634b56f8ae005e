package agent

import (
	"context"
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// partialThenHang streams text deltas and a tool call it never finishes,
// then waits for the request's end, telling started when the deltas are
// out; later calls answer from next.
type partialThenHang struct {
	deltas  []string
	started chan struct{}
	next    *modeltest.Scripted
	calls   int
}

func (p *partialThenHang) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	p.calls++
	if p.calls > 1 {
		return p.next.Stream(ctx, req)
	}
	return func(yield func(model.Event, error) bool) {
		for _, d := range p.deltas {
			if !yield(model.Event{Kind: model.EventTextDelta, Text: d}, nil) {
				return
			}
		}
		if !yield(model.Event{Kind: model.EventToolCallStart, ToolCall: &model.ToolCall{ID: "c1", Name: "echo"}}, nil) {
			return
		}
		close(p.started)
		<-ctx.Done()
		yield(model.Event{}, ctx.Err())
	}
}

// TestCancelledAnswerIsKept: a run cancelled while the model streams keeps
// what it had said, with a note that it was cut off (and without the tool
// call it had begun), so the next run's request does not hold two user
// messages in a row and the model knows its answer was interrupted.
func TestCancelledAnswerIsKept(t *testing.T) {
	next := modeltest.NewScripted(modeltest.Text("ok"))
	p := &partialThenHang{deltas: []string{"Once upon", " a time"}, started: make(chan struct{}), next: next}
	a := mustAgent(t, Config{Provider: p})
	c := NewConversation("")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-p.started
		cancel()
	}()
	r := collect(t, a, ctx, c, "tell a story")
	if r.outcome.Kind != Cancelled {
		t.Fatalf("outcome %v, want cancelled", r.outcome.Kind)
	}
	want := []model.Message{
		model.UserText("tell a story"),
		model.AssistantText("Once upon a time\n\n[rein: answer interrupted: run cancelled]"),
	}
	if diff := cmp.Diff(want, c.Messages()); diff != "" {
		t.Fatalf("history after the cancel (-want +got):\n%s", diff)
	}
	if msgs := r.ofType(EventMessage); len(msgs) != 2 || msgs[1].Message.Text() != want[1].Text() {
		t.Errorf("the cut answer was not reported as a message event: %+v", msgs)
	}
	checkHistory(t, c.Messages())

	collect(t, a, context.Background(), c, "go on")
	reqs := next.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests after the cancel, want 1", len(reqs))
	}
	var roles []model.Role
	for _, m := range reqs[0].Messages {
		roles = append(roles, m.Role)
	}
	if diff := cmp.Diff([]model.Role{model.RoleUser, model.RoleAssistant, model.RoleUser}, roles); diff != "" {
		t.Errorf("roles of the next request (-want +got):\n%s", diff)
	}
}

// TestCancelledBeforeAnyTextIsNoted: cancelled before the model said
// anything, the history still gets the note.
func TestCancelledBeforeAnyTextIsNoted(t *testing.T) {
	p := &partialThenHang{started: make(chan struct{}), next: modeltest.NewScripted()}
	a := mustAgent(t, Config{Provider: p})
	c := NewConversation("")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-p.started
		cancel()
	}()
	collect(t, a, ctx, c, "hello")
	want := []model.Message{model.UserText("hello"), model.AssistantText("[rein: answer interrupted: run cancelled]")}
	if diff := cmp.Diff(want, c.Messages()); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}
