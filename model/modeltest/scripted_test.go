package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
)

func TestScriptedTurns(t *testing.T) {
	boom := errors.New("boom")
	usage := model.Usage{InputTokens: 7, OutputTokens: 2}
	tests := []struct {
		name    string
		turn    Turn
		want    []model.Event
		wantErr error
	}{
		{"text", Text("hi"), []model.Event{
			{Kind: model.EventTextDelta, Text: "hi"},
			{Kind: model.EventStop, StopReason: model.StopEndTurn},
		}, nil},
		{"tool calls", ToolCalls(model.ToolCall{ID: "1", Name: "a"}, model.ToolCall{ID: "2", Name: "b", Args: json.RawMessage(`{"x":1}`)}),
			[]model.Event{
				{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: "1", Name: "a", Args: json.RawMessage(`{}`)}},
				{Kind: model.EventToolCall, ToolCall: &model.ToolCall{ID: "2", Name: "b", Args: json.RawMessage(`{"x":1}`)}},
				{Kind: model.EventStop, StopReason: model.StopToolUse},
			}, nil},
		{"with usage", Text("hi").WithUsage(usage), []model.Event{
			{Kind: model.EventTextDelta, Text: "hi"},
			{Kind: model.EventUsage, Usage: &usage},
			{Kind: model.EventStop, StopReason: model.StopEndTurn},
		}, nil},
		{"fail", Fail(boom), nil, boom},
		{"then fail", Text("par").ThenFail(boom), []model.Event{{Kind: model.EventTextDelta, Text: "par"}}, boom},
		{"events verbatim", Events(model.Event{Kind: model.EventTextDelta, Text: "x"}),
			[]model.Event{{Kind: model.EventTextDelta, Text: "x"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScripted(tt.turn)
			var got []model.Event
			var gotErr error
			for ev, err := range s.Stream(context.Background(), &model.Request{}) {
				if err != nil {
					gotErr = err
					break
				}
				got = append(got, ev)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if !errors.Is(gotErr, tt.wantErr) {
				t.Errorf("error = %v, want %v", gotErr, tt.wantErr)
			}
		})
	}
}

func TestScriptedExhaustedAndRepeat(t *testing.T) {
	s := NewScripted(Text("one"))
	if _, err := model.Collect(s.Stream(context.Background(), &model.Request{})); err != nil {
		t.Fatal(err)
	}
	_, err := model.Collect(s.Stream(context.Background(), &model.Request{}))
	if !errors.Is(err, ErrScriptExhausted) || s.Calls() != 2 || s.Remaining() != 0 {
		t.Fatalf("past the script: err %v, calls %d", err, s.Calls())
	}
	s.Add(Text("two"))
	resp, err := model.Collect(s.Stream(context.Background(), &model.Request{}))
	if err != nil || resp.Message.Text() != "two" {
		t.Fatalf("added turn: %v %v", resp, err)
	}
	r := NewScripted(Text("a"), Text("b")).Repeat()
	var texts []string
	for range 5 {
		resp, err := model.Collect(r.Stream(context.Background(), &model.Request{}))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, resp.Message.Text())
	}
	if diff := cmp.Diff([]string{"a", "b", "a", "b", "a"}, texts); diff != "" {
		t.Errorf("repeat (-want +got):\n%s", diff)
	}
}

func TestScriptedRecordsDeepCopies(t *testing.T) {
	s := NewScripted(Text("a"), Text("b"))
	temp := 0.5
	req := &model.Request{
		Model:       "m",
		Messages:    []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(model.ToolCall{ID: "1", Args: json.RawMessage(`{"a":1}`)})}}},
		Temperature: &temp,
		Extra:       map[string]any{"k": "v"},
	}
	_, _ = model.Collect(s.Stream(context.Background(), req))
	req.Messages[0].Parts[0].ToolCall.Args[2] = 'Z'
	req.Messages[0].Parts[0].ToolCall.ID = "changed"
	temp = 9
	req.Extra["k"] = "changed"
	got := s.Requests()[0]
	if tc := got.Messages[0].Parts[0].ToolCall; string(tc.Args) != `{"a":1}` || tc.ID != "1" || *got.Temperature != 0.5 || got.Extra["k"] != "v" {
		t.Errorf("recorded request changed with the caller's: %+v", got)
	}
	// Requests returns copies too.
	got.Model = "mutated"
	if s.Requests()[0].Model != "m" {
		t.Error("Requests returned shared requests")
	}
	n := NewScripted(Text("a")).WithoutRecording()
	_, _ = model.Collect(n.Stream(context.Background(), req))
	if len(n.Requests()) != 0 {
		t.Error("WithoutRecording still recorded")
	}
}

func TestScriptedEventsAreIndependent(t *testing.T) {
	s := NewScripted(ToolCalls(model.ToolCall{ID: "1", Name: "a", Args: json.RawMessage(`{"x":1}`)})).Repeat()
	for ev := range s.Stream(context.Background(), &model.Request{}) {
		if ev.ToolCall != nil {
			ev.ToolCall.Args[1] = 'Z'
		}
	}
	resp, err := model.Collect(s.Stream(context.Background(), &model.Request{}))
	if err != nil || string(resp.Message.ToolCalls()[0].Args) != `{"x":1}` {
		t.Fatalf("a consumer's change leaked into the script: %v %v", resp, err)
	}
}

func TestScriptedHangAndCancel(t *testing.T) {
	s := NewScripted(Hang(), Text("after"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := model.Collect(s.Stream(ctx, &model.Request{}))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("hang: err %v after %v", err, time.Since(start))
	}
	_, err = model.Collect(s.Stream(ctx, &model.Request{}))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a done context must end the stream: %v", err)
	}
}

func TestScriptedConcurrent(t *testing.T) {
	const n = 50
	turns := make([]Turn, n)
	for i := range turns {
		turns[i] = Text("x")
	}
	s := NewScripted(turns...).WithContextWindow(4096)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := model.Collect(s.Stream(context.Background(), &model.Request{Model: "m"}))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s.Calls() != n || len(s.Requests()) != n || s.Remaining() != 0 {
		t.Errorf("calls %d, requests %d, remaining %d", s.Calls(), len(s.Requests()), s.Remaining())
	}
	if w, err := s.ContextWindow(context.Background()); w != 4096 || err != nil {
		t.Errorf("ContextWindow = %d, %v", w, err)
	}
}
