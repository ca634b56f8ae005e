package agent

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

func TestConversationAccounting(t *testing.T) {
	msgs := randomHistory(rand.New(rand.NewPCG(1, 2)), 200)
	c := NewConversation("x")
	for i, m := range msgs {
		c.Append(m)
		if c.Len() != i+1 {
			t.Fatalf("Len = %d after %d appends", c.Len(), i+1)
		}
	}
	for from := -1; from <= len(msgs)+1; from++ {
		want := 0
		for i := max(from, 0); i < len(msgs); i++ {
			want += EstimateMessageTokens(msgs[i])
		}
		if got := c.EstimatedTokens(from); got != want {
			t.Fatalf("EstimatedTokens(%d) = %d, want %d", from, got, want)
		}
	}
	if got, want := c.EstimatedRange(5, 3), 0; got != want {
		t.Errorf("EstimatedRange(5, 3) = %d, want %d", got, want)
	}
	last := -1
	for i, m := range msgs {
		if m.Role == model.RoleUser {
			last = i
		}
	}
	if c.LastUserIndex() != last {
		t.Errorf("LastUserIndex = %d, want %d", c.LastUserIndex(), last)
	}
	// Appending to the returned slice never writes into the conversation.
	got := c.Messages()
	_ = append(got, model.UserText("sneaky"))
	c.Append(model.AssistantText("real"))
	if c.Messages()[c.Len()-1].Text() != "real" {
		t.Error("append to Messages() leaked into the conversation")
	}
}

func TestEstimateMessageTokens(t *testing.T) {
	tests := []struct {
		name string
		msg  model.Message
		want int
	}{
		{"empty", model.Message{Role: model.RoleUser}, 4},
		{"text", model.UserText(strings.Repeat("a", 40)), 4 + 10},
		{"call", model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(call("id", "name", `{"k":"v"}`))}},
			4 + 3 + 4}, // 2+4+9 = 15 bytes
		{"result", model.ToolResults(model.ToolResult{CallID: "id", Content: strings.Repeat("r", 98)}), 4 + 3 + 25},
		{"signature ignored", model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ReasoningPart("abcd", strings.Repeat("s", 400))}}, 5},
	}
	for _, tt := range tests {
		if got := EstimateMessageTokens(tt.msg); got != tt.want {
			t.Errorf("%s: EstimateMessageTokens = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestCalibration(t *testing.T) {
	c := NewConversation("x", model.UserText(strings.Repeat("a", 4000)))
	raw := c.EstimatedTokens(0)
	c.ObserveUsage(model.Usage{InputTokens: 2 * raw}, raw)
	if got := c.EstimatedTokens(0); got != 2*raw {
		t.Errorf("after 2x report: %d, want %d", got, 2*raw)
	}
	c.ObserveUsage(model.Usage{InputTokens: 1}, c.EstimatedTokens(0)) // absurd report: clamped
	if got := c.Scale(); got != minScale {
		t.Errorf("scale = %v, want clamp %v", got, minScale)
	}
	c.ObserveUsage(model.Usage{InputTokens: 5}, 10) // too small to calibrate from
	if got := c.Scale(); got != minScale {
		t.Errorf("scale = %v after tiny request, want unchanged", got)
	}
}

func TestWindowFits(t *testing.T) {
	c := NewConversation("x", model.UserText("hi"), model.AssistantText("hello"))
	for _, budget := range []int{0, 1000} {
		got, info, err := Window{}.Prepare(context.Background(), c, budget)
		if err != nil || info != nil || len(got) != 2 {
			t.Errorf("budget %d: %d messages, info %+v, err %v", budget, len(got), info, err)
		}
	}
}

func TestWindowKeepsTaskAndMarks(t *testing.T) {
	filler := strings.Repeat("f", 400) // ~100 tokens
	var hist []model.Message
	for i := range 10 {
		hist = append(hist, model.UserText(fmt.Sprintf("old %d %s", i, filler)), model.AssistantText("ok "+filler))
	}
	hist = append(hist, model.UserText("THE TASK"))
	for i := range 5 {
		id := fmt.Sprint("c", i)
		hist = append(hist,
			model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(call(id, "read", `{}`))}},
			model.ToolResults(model.ToolResult{CallID: id, Content: filler}))
	}
	c := NewConversation("x", hist...)
	tests := []struct {
		name        string
		budget      int
		wantOmitted int
		wantFirst   string // text of the first message sent
	}{
		// Everything from the task on fits: cut just before it or earlier.
		{"cut at a user message", c.EstimatedTokens(18) + windowMarkerTokens, 18, "[rein: 18 earlier messages omitted to fit the context window]old 9 "},
		{"cut at an assistant message", c.EstimatedTokens(18) + windowMarkerTokens - 1, 19, "[rein: 19 earlier messages omitted to fit the context window]"},
		// Not even the task's turn fits: the task is kept alone with the
		// newest turns after it.
		{"task kept alone", 400, 24, "[rein: 24 earlier messages omitted to fit the context window]THE TASK"},
		// Nothing fits: the task and the last turn still go.
		{"best effort", 10, 28, "[rein: 28 earlier messages omitted to fit the context window]THE TASK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, info, err := Window{}.Prepare(context.Background(), c, tt.budget)
			if err != nil || info == nil {
				t.Fatalf("info %v, err %v", info, err)
			}
			if info.OmittedMessages != tt.wantOmitted || info.KeptMessages+info.OmittedMessages != c.Len() {
				t.Errorf("info = %+v, want %d omitted of %d", info, tt.wantOmitted, c.Len())
			}
			if first := got[0].Text(); !strings.HasPrefix(first, tt.wantFirst) {
				t.Errorf("first message = %.120q, want prefix %q", first, tt.wantFirst)
			}
			if p := historyProblem(got, true); p != "" {
				t.Errorf("%s\n%s", p, dumpHistory(got))
			}
			if !containsText(got, "THE TASK") {
				t.Error("the task was dropped")
			}
			if got[len(got)-1].Role != model.RoleTool {
				t.Error("the newest message was dropped")
			}
		})
	}
}

func containsText(msgs []model.Message, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Text(), s) {
			return true
		}
	}
	return false
}

// TestWindowProperty sends random histories through random budgets: the
// window never sends a tool result without its call, keeps the latest
// task and the newest message, fits the budget whenever a fitting window
// exists, and reports what it omitted.
func TestWindowProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for iter := range 3000 {
		hist := randomHistory(rng, 1+rng.IntN(60))
		c := NewConversation("p", hist...)
		budget := 1 + rng.IntN(c.EstimatedTokens(0)+50)
		got, info, err := Window{}.Prepare(context.Background(), c, budget)
		if err != nil {
			t.Fatal(err)
		}
		if p := historyProblem(got, false); p != "" {
			t.Fatalf("iteration %d, budget %d: %s\nsent:\n%s\nhistory:\n%s", iter, budget, p, dumpHistory(got), dumpHistory(hist))
		}
		if info == nil {
			if len(got) != len(hist) {
				t.Fatalf("iteration %d: no compaction info but %d of %d messages sent", iter, len(got), len(hist))
			}
			continue
		}
		if info.KeptMessages+info.OmittedMessages != len(hist) || info.OmittedMessages == 0 {
			t.Fatalf("iteration %d: info %+v for %d messages", iter, info, len(hist))
		}
		if u := c.LastUserIndex(); u >= 0 && !containsParts(got, hist[u]) {
			t.Fatalf("iteration %d: latest user message dropped\n%s", iter, dumpHistory(got))
		}
		if !cmp.Equal(got[len(got)-1], hist[len(hist)-1]) && len(got) > 1 {
			t.Fatalf("iteration %d: newest message dropped", iter)
		}
		if got[0].Role != model.RoleUser || !strings.HasPrefix(got[0].Text(), "[rein: ") {
			t.Fatalf("iteration %d: first message is not the marker: %+v", iter, got[0])
		}
		if info.EstimatedTokens > budget && fittingWindowExists(c, budget) {
			t.Fatalf("iteration %d: sent %d tokens over budget %d although a fitting window exists", iter, info.EstimatedTokens, budget)
		}
	}
}

// fittingWindowExists reports whether some valid cut keeping the task fits.
func fittingWindowExists(c *Conversation, budget int) bool {
	msgs := c.Messages()
	u := c.LastUserIndex()
	for s := 1; s < len(msgs); s++ {
		if msgs[s].Role == model.RoleTool {
			continue
		}
		cost := windowMarkerTokens + c.EstimatedTokens(s)
		if u >= 0 && u < s {
			cost += c.EstimatedRange(u, u+1)
		}
		if cost <= budget {
			// Only cuts at or before the last non-tool message count.
			last := len(msgs) - 1
			for last >= 0 && msgs[last].Role == model.RoleTool {
				last--
			}
			if s <= last {
				return true
			}
		}
	}
	return false
}

func containsParts(msgs []model.Message, want model.Message) bool {
	for _, m := range msgs {
		if len(m.Parts) >= len(want.Parts) && cmp.Equal(m.Parts[len(m.Parts)-len(want.Parts):], want.Parts) {
			return true
		}
	}
	return false
}

// randomHistory returns a valid history of about n messages: user turns,
// assistant answers and tool-call turns with their results.
func randomHistory(rng *rand.Rand, n int) []model.Message {
	var out []model.Message
	id := 0
	text := func() string { return strings.Repeat("w", rng.IntN(400)) }
	for len(out) < n {
		switch rng.IntN(4) {
		case 0:
			out = append(out, model.UserText("task "+text()))
		case 1:
			out = append(out, model.AssistantText(text()))
		default:
			k := 1 + rng.IntN(3)
			am := model.Message{Role: model.RoleAssistant}
			var rs []model.ToolResult
			for range k {
				id++
				cid := fmt.Sprint("c", id)
				am.Parts = append(am.Parts, model.ToolCallPart(call(cid, "t", `{"x":"`+text()+`"}`)))
				rs = append(rs, model.ToolResult{CallID: cid, Content: text()})
			}
			out = append(out, am, model.ToolResults(rs...))
		}
	}
	return out
}

// TestSystemPromptSurvivesWindow runs a long conversation through a small
// window: every request carries the system prompt and instructions, and
// no request sends a result without its call.
func TestSystemPromptSurvivesWindow(t *testing.T) {
	turns := make([]modeltest.Turn, 0, 41)
	for i := range 40 {
		turns = append(turns, modeltest.ToolCalls(call(fmt.Sprint("c", i), "echo", `{"pad":"`+strings.Repeat("p", 300)+fmt.Sprint(i)+`"}`)))
	}
	turns = append(turns, modeltest.Text("done"))
	p := modeltest.NewScripted(turns...).WithContextWindow(2000)
	a := mustAgent(t, Config{Provider: p, System: "SYSTEM", Instructions: "RULES", Tools: mustSet(t, echoTool())})
	c := NewConversation("")
	r := collect(t, a, context.Background(), c, "the task")
	if r.outcome.Kind != Complete {
		t.Fatalf("outcome %+v", r.outcome)
	}
	comp := r.ofType(EventCompaction)
	if len(comp) == 0 {
		t.Fatal("no compaction event although the history outgrew the window")
	}
	for i, req := range p.Requests() {
		if req.System != "SYSTEM\n\nRULES" {
			t.Fatalf("request %d system = %q", i, req.System)
		}
		if p := historyProblem(req.Messages, false); p != "" {
			t.Fatalf("request %d: %s", i, p)
		}
		if !containsText(req.Messages, "the task") {
			t.Fatalf("request %d lost the task", i)
		}
	}
	if c.Len() != 2+40*2 {
		t.Errorf("the conversation itself holds %d messages; the window must not drop history", c.Len())
	}
	last := p.Requests()[40]
	if len(last.Messages) >= c.Len() || comp[len(comp)-1].Compaction.OmittedMessages == 0 {
		t.Errorf("last request sent %d of %d messages", len(last.Messages), c.Len())
	}
}

// windowProvider answers like a scripted model and reports a context
// window, failing the first asks.
type windowProvider struct {
	*modeltest.Scripted
	failures int
	asked    int
}

func (w *windowProvider) ContextWindow(ctx context.Context) (int, error) {
	w.asked++
	if w.asked <= w.failures {
		return 0, fmt.Errorf("props endpoint down")
	}
	return 1000, nil
}

func TestContextWindowAskedOnce(t *testing.T) {
	p := &windowProvider{Scripted: modeltest.NewScripted(modeltest.Text("a"), modeltest.Text("b"), modeltest.Text("c")), failures: 1}
	a := mustAgent(t, Config{Provider: p})
	big := strings.Repeat("x", 12000) // ~3000 tokens: over a 1000-token window and worth asking about
	c := NewConversation("", model.UserText(big), model.AssistantText("ok"))
	r1 := collect(t, a, context.Background(), c, "first")
	if len(r1.ofType(EventCompaction)) != 0 || p.asked != 1 {
		t.Fatalf("first run: %d compactions, asked %d; a failed ask leaves the history unbounded", len(r1.ofType(EventCompaction)), p.asked)
	}
	for i := range 2 {
		r := collect(t, a, context.Background(), c, "again")
		if len(r.ofType(EventCompaction)) != 1 || p.asked != 2 {
			t.Fatalf("run %d: %d compactions, asked %d times; want the window learned once", i+2, len(r.ofType(EventCompaction)), p.asked)
		}
	}
}

// A short conversation cannot overflow any window in use, so the provider
// is not asked (a bad key then fails on the real call, in one request).
func TestContextWindowNotAskedForSmallRequests(t *testing.T) {
	p := &windowProvider{Scripted: modeltest.NewScripted(modeltest.Text("a"), modeltest.Text("b"))}
	a := mustAgent(t, Config{Provider: p})
	c := NewConversation("")
	collect(t, a, context.Background(), c, "hello")
	if p.asked != 0 {
		t.Fatalf("asked for the context window %d times for a tiny request; want 0", p.asked)
	}
	collect(t, a, context.Background(), c, strings.Repeat("y", 12000))
	if p.asked != 1 {
		t.Fatalf("asked %d times once the request grew past %d tokens; want 1", p.asked, minProbeTokens)
	}
}
