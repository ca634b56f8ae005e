package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

func u(s string) model.Message { return model.UserText(s) }
func a(s string) model.Message { return model.AssistantText(s) }

// ac is an assistant message calling the tools with the given ids.
func ac(ids ...string) model.Message {
	m := model.Message{Role: model.RoleAssistant}
	for _, id := range ids {
		m.Parts = append(m.Parts, model.ToolCallPart(model.ToolCall{ID: id, Name: "t", Args: []byte(`{}`)}))
	}
	return m
}

// tr is the tool message answering ids, each result size bytes long.
func tr(size int, ids ...string) model.Message {
	rs := make([]model.ToolResult, len(ids))
	for i, id := range ids {
		rs[i] = model.ToolResult{CallID: id, Name: "t", Content: strings.Repeat("r", size)}
	}
	return model.ToolResults(rs...)
}

// merged is the user message a marker (and a head) merge into.
func merged(first model.Message, lead ...model.Part) model.Message {
	return model.Message{Role: model.RoleUser, Parts: append(lead, first.Parts...)}
}

func TestWindowExact(t *testing.T) {
	big := 400 // a tool result of ~100 tokens
	task := u("the task")
	hist := []model.Message{
		u(strings.Repeat("q", 400)), a("first answer"), // 0, 1
		task,                // 2
		ac("c1"),            // 3
		tr(big, "c1"),       // 4
		ac("c2", "c3"),      // 5
		tr(big, "c2", "c3"), // 6
		ac("c4"),            // 7
		tr(big, "c4"),       // 8
	}
	c := agent.NewConversation("w", hist...)
	est := func(from int) int { return c.EstimatedTokens(from) }
	taskTok := c.EstimatedRange(2, 3)
	tests := []struct {
		name   string
		w      Window
		budget int
		want   []model.Message
		info   *agent.CompactionInfo
	}{
		{name: "fits", budget: est(0), want: hist},
		{name: "unbounded", budget: 0, want: hist},
		{
			name: "drops the oldest turn, marker merges into the task", budget: est(2) + markerTokens,
			want: append([]model.Message{merged(task, marker(2, false))}, hist[3:]...),
			info: &agent.CompactionInfo{Strategy: StrategyWindow, OmittedMessages: 2, KeptMessages: 7, EstimatedTokens: est(2) + markerTokens},
		},
		{
			// One token short of starting at the task: the window starts
			// after it, and never at the tool message 6 (the cut moves on
			// to 7), but the task itself is kept.
			name: "keeps the task, never cuts between call and result", budget: est(5) + taskTok + markerTokens - 1,
			want: append([]model.Message{merged(task, marker(6, false))}, hist[7:]...),
			info: &agent.CompactionInfo{Strategy: StrategyWindow, OmittedMessages: 6, KeptMessages: 3, EstimatedTokens: est(7) + taskTok + markerTokens},
		},
		{
			name: "task does not fit: newest turn alone", budget: est(7) + markerTokens,
			want: append([]model.Message{{Role: model.RoleUser, Parts: []model.Part{marker(7, false)}}}, hist[7:]...),
			info: &agent.CompactionInfo{Strategy: StrategyWindow, OmittedMessages: 7, KeptMessages: 2, EstimatedTokens: est(7) + markerTokens},
		},
		{
			name: "nothing fits: the last turn still goes", budget: 10,
			want: append([]model.Message{{Role: model.RoleUser, Parts: []model.Part{marker(7, false)}}}, hist[7:]...),
			info: &agent.CompactionInfo{Strategy: StrategyWindow, OmittedMessages: 7, KeptMessages: 2, EstimatedTokens: est(7) + markerTokens},
		},
		{
			name: "max tokens tighter than the budget", w: Window{MaxTokens: est(2) + markerTokens}, budget: est(0) * 2,
			want: append([]model.Message{merged(task, marker(2, false))}, hist[3:]...),
			info: &agent.CompactionInfo{Strategy: StrategyWindow, OmittedMessages: 2, KeptMessages: 7, EstimatedTokens: est(2) + markerTokens},
		},
		{
			name: "max messages", w: Window{MaxMessages: 5},
			want: append([]model.Message{merged(task, marker(4, false))}, hist[5:]...),
			info: &agent.CompactionInfo{Strategy: StrategyWindow, OmittedMessages: 4, KeptMessages: 5, EstimatedTokens: est(5) + taskTok + markerTokens},
		},
		{
			name: "max messages counts the task", w: Window{MaxMessages: 3},
			want: append([]model.Message{merged(task, marker(6, false))}, hist[7:]...),
			info: &agent.CompactionInfo{Strategy: StrategyWindow, OmittedMessages: 6, KeptMessages: 3, EstimatedTokens: est(7) + taskTok + markerTokens},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, info, err := tt.w.Prepare(context.Background(), c, tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.info, info); diff != "" {
				t.Errorf("info (-want +got):\n%s", diff)
			}
			if err := checkPairs(got); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestWindowMarkerMergesIntoUserAtCut(t *testing.T) {
	hist := []model.Message{u("one"), a(strings.Repeat("x", 400)), u("two"), a("b"), u("three"), a("c")}
	c := agent.NewConversation("m", hist...)
	got, info, err := Window{MaxMessages: 4}.Prepare(context.Background(), c, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The task (message 4) lies in the window; the window starts at the
	// user message 2, into which the marker merges.
	want := []model.Message{merged(hist[2], marker(2, false)), hist[3], hist[4], hist[5]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if info.OmittedMessages != 2 || info.KeptMessages != 4 {
		t.Errorf("info = %+v", info)
	}
}

func TestWindowInvalid(t *testing.T) {
	c := agent.NewConversation("x", u("hi"))
	for _, w := range []Window{{MaxMessages: -1}, {MaxTokens: -5}} {
		if _, _, err := w.Prepare(context.Background(), c, 100); !errors.Is(err, ErrInvalidStrategy) {
			t.Errorf("%+v: err = %v, want ErrInvalidStrategy", w, err)
		}
	}
}

func TestWindowDoesNotModifyConversation(t *testing.T) {
	hist := newHistoryGen(7).history(300)
	c := agent.NewConversation("x", hist...)
	before := cloneMessages(c.Messages())
	for _, budget := range []int{50, 500, 5000} {
		if _, _, err := (Window{MaxMessages: 30}).Prepare(context.Background(), c, budget); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(before, c.Messages()); diff != "" {
		t.Errorf("conversation changed (-before +after):\n%s", diff)
	}
}

func cloneMessages(msgs []model.Message) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		out[i] = model.Message{Role: m.Role, Parts: append([]model.Part(nil), m.Parts...)}
	}
	return out
}

// TestWindowProperties checks the invariants on random histories, budgets
// and caps: pairs intact, the history starts with a user turn, counts add
// up, the estimate is an upper bound, and the budget and cap hold
// whenever the last turn alone satisfies them.
func TestWindowProperties(t *testing.T) {
	g := newHistoryGen(11)
	for trial := range 300 {
		hist := g.history(1 + g.rng.IntN(200))
		c := agent.NewConversation("p", hist...)
		total := c.EstimatedTokens(0)
		budget := g.rng.IntN(total + total/4 + 1)
		w := Window{}
		if g.rng.IntN(3) == 0 {
			w.MaxMessages = 1 + g.rng.IntN(len(hist)+5)
		}
		if err := checkWindow(c, w, budget); err != nil {
			t.Fatalf("trial %d (n=%d, budget=%d, %+v): %v", trial, len(hist), budget, w, err)
		}
	}
}

func checkWindow(c *agent.Conversation, w Window, budget int) error {
	hist := c.Messages()
	n := len(hist)
	got, info, err := w.Prepare(context.Background(), c, budget)
	if err != nil {
		return err
	}
	if err := checkPairs(got); err != nil {
		return err
	}
	if info == nil {
		if len(got) != n {
			return fmt.Errorf("no compaction reported but %d of %d messages sent", len(got), n)
		}
		over := (budget > 0 && c.EstimatedTokens(0) > budget) || (w.MaxMessages > 0 && n > w.MaxMessages)
		if over && lastTurn(hist) > 0 {
			return fmt.Errorf("nothing omitted from an over-limit history with a cut point at %d", lastTurn(hist))
		}
		return nil
	}
	if len(got) == 0 || got[0].Role != model.RoleUser {
		return fmt.Errorf("windowed history does not start with a user message")
	}
	if info.OmittedMessages+info.KeptMessages != n || info.OmittedMessages <= 0 {
		return fmt.Errorf("info %+v does not add up to %d messages", info, n)
	}
	if !strings.Contains(got[0].Text(), "omitted to fit the context window") {
		return fmt.Errorf("first message lacks the marker: %q", got[0].Text())
	}
	if e := estimate(got); e > info.EstimatedTokens {
		return fmt.Errorf("sent %d tokens, reported %d", e, info.EstimatedTokens)
	}
	// The messages after the head are the conversation's newest.
	if diff := cmp.Diff(hist[n-len(got)+1:], got[1:]); diff != "" {
		return fmt.Errorf("tail is not the conversation's suffix:\n%s", diff)
	}
	b := tighter(budget, w.MaxTokens)
	if b > 0 && minimalCost(c) <= b && info.EstimatedTokens > b {
		return fmt.Errorf("estimated %d tokens over the budget %d", info.EstimatedTokens, b)
	}
	if w.MaxMessages > 0 && n-lastTurn(hist) <= w.MaxMessages && info.KeptMessages > w.MaxMessages {
		return fmt.Errorf("kept %d messages over the cap %d", info.KeptMessages, w.MaxMessages)
	}
	return nil
}

// lastTurn returns the index of the last message a window may start at.
func lastTurn(hist []model.Message) int {
	i := len(hist) - 1
	for i > 0 && hist[i].Role == model.RoleTool {
		i--
	}
	return i
}

func TestFull(t *testing.T) {
	hist := newHistoryGen(3).history(100)
	c := agent.NewConversation("f", hist...)
	total := c.EstimatedTokens(0)
	for _, budget := range []int{0, total, total / 2} {
		got, info, err := Full{}.Prepare(context.Background(), c, budget)
		if err != nil || info != nil || len(got) != len(hist) {
			t.Errorf("budget %d: %d messages, info %v, err %v; want all, nil, nil", budget, len(got), info, err)
		}
	}
	if _, _, err := (Full{Strict: true}).Prepare(context.Background(), c, total); err != nil {
		t.Errorf("strict at the budget: %v", err)
	}
	_, _, err := Full{Strict: true}.Prepare(context.Background(), c, total-1)
	if !errors.Is(err, ErrOverBudget) || !strings.Contains(err.Error(), "window or summarize") {
		t.Errorf("strict over the budget: err = %v, want ErrOverBudget naming the fix", err)
	}
}
