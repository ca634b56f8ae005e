package history

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// The acceptance test: a 2,000-message conversation built by the real
// agent loop, with a scripted model, real tool calls (some parallel) and
// results of varying sizes, under each strategy that bounds the history.

const (
	testWindow    = 12_000 // the model's context window, tokens
	testMaxTokens = 1_000  // room for each answer
	systemPrompt  = "You are the compaction test agent. SYSTEM-MARK-5521"
)

// router is the one provider the agent and the summarizer share: summary
// calls (recognised by the summary prompt) are answered from one script,
// the agent's calls from another, so the test does not need to know in
// advance when a summary falls due. Both scripts record their requests.
type router struct {
	main, summary *modeltest.Scripted
}

func (r *router) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	if req.System == DefaultSummaryPrompt {
		return r.summary.Stream(ctx, req)
	}
	return r.main.Stream(ctx, req)
}

func (r *router) ContextWindow(ctx context.Context) (int, error) { return r.main.ContextWindow(ctx) }

// fetchTool returns a result of the requested size.
func fetchTool() tool.Tool {
	type in struct {
		Size int `json:"size"`
		N    int `json:"n"`
	}
	return tool.Func("fetch", "Fetches a document of the given size.", func(_ context.Context, a in) (string, error) {
		return text(fmt.Sprintf("result %d", a.N), a.Size), nil
	})
}

// script is the agent's side of the conversation: per run, the user input
// and the model's turns (tool-call turns, then a closing text).
type script struct {
	inputs []string
	turns  []modeltest.Turn
	msgs   int // messages the runs will append
}

func newScript(seed uint64, minMessages int) *script {
	g := newHistoryGen(seed)
	s := &script{}
	for s.msgs < minMessages {
		g.run++
		s.inputs = append(s.inputs, text(fmt.Sprintf("task %d:", g.run), 20+g.rng.IntN(400)))
		s.msgs++
		for range g.rng.IntN(5) {
			s.turns = append(s.turns, modeltest.ToolCalls(g.calls()...))
			s.msgs += 2
		}
		s.turns = append(s.turns, modeltest.Text(text(fmt.Sprintf("done %d", g.run), 20+g.rng.IntN(300))))
		s.msgs++
	}
	return s
}

// instructionsFixture writes a user AGENTS.md and two workspace ones and
// loads them as a run would.
func instructionsFixture(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	user := t.TempDir()
	sub := filepath.Join(ws, "pkg", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, body := range map[string]string{
		filepath.Join(user, InstructionsFile): "Answer briefly. RULE-USER-1203",
		filepath.Join(ws, InstructionsFile):   "Run the tests before finishing. RULE-ROOT-7731",
		filepath.Join(sub, InstructionsFile):  "This package is generated; do not edit. RULE-SUB-4410",
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text, files, err := LoadInstructions(ws, sub, user, 0)
	if err != nil || len(files) != 3 {
		t.Fatalf("instructions: files %v, err %v", files, err)
	}
	return text
}

// compactionRecorder keeps the agent's compaction events.
type compactionRecorder struct {
	mu     sync.Mutex
	events []agent.CompactionInfo
}

func (r *compactionRecorder) OnEvent(_ context.Context, ev agent.Event) {
	if ev.Type == agent.EventCompaction {
		r.mu.Lock()
		r.events = append(r.events, *ev.Compaction)
		r.mu.Unlock()
	}
}

func TestCompactionAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three 2,000-message conversations")
	}
	instructions := instructionsFixture(t)
	for _, tt := range []struct {
		name     string
		strategy func(p model.Provider) agent.ContextStrategy
	}{
		{"window by tokens", func(model.Provider) agent.ContextStrategy { return Window{} }},
		{"window by messages", func(model.Provider) agent.ContextStrategy { return Window{MaxMessages: 60} }},
		{"summarize", func(p model.Provider) agent.ContextStrategy { return &Summarize{Provider: p, KeepRecent: 8} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := newScript(42, 2000)
			rt := &router{
				main:    modeltest.NewScripted(sc.turns...).WithContextWindow(testWindow),
				summary: modeltest.NewScripted(),
			}
			for i := range 400 {
				rt.summary.Add(modeltest.Text(fmt.Sprintf("SUMMARY-%d: the user asked for tasks; fetches were made.", i)))
			}
			strategy := tt.strategy(rt)
			rec := &compactionRecorder{}
			tools, err := tool.NewSet(fetchTool())
			if err != nil {
				t.Fatal(err)
			}
			a, err := agent.New(agent.Config{
				Provider:     rt,
				System:       systemPrompt,
				Instructions: instructions,
				Params:       model.Request{MaxTokens: testMaxTokens},
				Tools:        tools,
				Context:      strategy,
				Hooks:        []agent.Hook{rec},
			})
			if err != nil {
				t.Fatal(err)
			}
			conv := agent.NewConversation("acceptance", nil...)
			for i, input := range sc.inputs {
				out, err := a.RunToEnd(context.Background(), conv, input)
				if err != nil || out.Kind != agent.Complete {
					t.Fatalf("run %d: outcome %+v, err %v", i, out, err)
				}
			}
			if conv.Len() < 2000 || conv.Len() != sc.msgs {
				t.Fatalf("conversation has %d messages, want the script's %d (≥ 2000)", conv.Len(), sc.msgs)
			}
			checkRequests(t, rt.main.Requests(), instructions)
			t.Logf("%d messages, %d model calls, %d summary calls, %d compaction events",
				conv.Len(), rt.main.Calls(), rt.summary.Calls(), len(rec.events))
			if len(rec.events) == 0 {
				t.Fatal("no compaction event was emitted")
			}
			if s, ok := strategy.(*Summarize); ok {
				checkSummaries(t, rt.summary.Requests(), rt.main.Requests(), rec.events)
				checkResume(t, s, conv, rec.events)
			}
		})
	}
}

// checkRequests checks every model call the agent made.
func checkRequests(t *testing.T, reqs []*model.Request, instructions string) {
	t.Helper()
	over, peak := 0, 0
	for i, req := range reqs {
		if !strings.Contains(req.System, systemPrompt) || !strings.Contains(req.System, instructions) {
			t.Fatalf("request %d lacks the system prompt or the AGENTS.md text", i)
		}
		if err := checkPairs(req.Messages); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if req.Messages[0].Role != model.RoleUser {
			t.Fatalf("request %d starts with a %s message", i, req.Messages[0].Role)
		}
		fixed := agent.EstimateTextTokens(len(req.System))
		for _, s := range req.Tools {
			fixed += 3 + agent.EstimateTextTokens(len(s.Name)+len(s.Description)+len(s.InputSchema))
		}
		budget := testWindow - req.MaxTokens - fixed
		if got := estimate(req.Messages); got > budget {
			t.Fatalf("request %d: history of %d tokens over the budget of %d", i, got, budget)
		}
		if estimate(req.Messages) > budget/2 {
			over++
		}
		peak = max(peak, estimate(req.Messages)*100/budget)
	}
	t.Logf("largest history: %d%% of the budget", peak)
	if over == 0 {
		t.Error("no request came near the budget: the test does not exercise compaction")
	}
}

// checkSummaries checks the summary calls and their use: each fits, each
// after the first folds in the previous summary, every agent request after
// the first summary is headed by the latest one, and each summary was
// reported once in a compaction event.
func checkSummaries(t *testing.T, sums, mains []*model.Request, events []agent.CompactionInfo) {
	t.Helper()
	if len(sums) < 2 {
		t.Fatalf("%d summary calls; the test wants incremental summaries", len(sums))
	}
	for i, req := range sums {
		if err := summaryFits(req, testWindow-testMaxTokens); err != nil {
			t.Errorf("summary call %d: %v", i, err)
		}
		if i > 0 && !strings.Contains(req.Messages[0].Text(), fmt.Sprintf("<summary>\nSUMMARY-%d:", i-1)) {
			t.Errorf("summary call %d does not fold in summary %d", i, i-1)
		}
	}
	var reported []string
	for _, ev := range events {
		if ev.Summary != "" {
			reported = append(reported, ev.Summary)
		}
		if ev.Fallback != "" {
			t.Errorf("unexpected fallback: %s", ev.Fallback)
		}
	}
	if len(reported) != len(sums) {
		t.Errorf("%d summaries reported in events, %d made", len(reported), len(sums))
	}
	headed := 0
	for _, req := range mains {
		if strings.HasPrefix(req.Messages[0].Text(), SummaryHeader) {
			headed++
		}
	}
	if headed == 0 || !strings.HasPrefix(mains[len(mains)-1].Messages[0].Text(), SummaryHeader+"\n"+reported[len(reported)-1]) {
		t.Errorf("%d requests headed by a summary; the last is not headed by the latest summary", headed)
	}
}

// checkResume restores the summary from the journalled events into a new
// Summarize, as a resumed session would, and checks that the next request
// is the one the original would have sent, without a summary call.
func checkResume(t *testing.T, orig *Summarize, conv *agent.Conversation, events []agent.CompactionInfo) {
	t.Helper()
	raw, err := json.Marshal(events) // through the journal's encoding
	if err != nil {
		t.Fatal(err)
	}
	var stored []agent.CompactionInfo
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	noCalls := modeltest.NewScripted()
	resumed := &Summarize{Provider: noCalls, KeepRecent: orig.KeepRecent}
	for i := range stored {
		resumed.Restore(conv.ID(), &stored[i])
	}
	again := agent.NewConversation(conv.ID(), conv.Messages()...)
	again.Append(model.UserText("one more task"))
	conv.Append(model.UserText("one more task"))
	budget := testWindow - testMaxTokens - 500
	want, _, err := orig.Prepare(context.Background(), conv, budget)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := resumed.Prepare(context.Background(), again, budget)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resumed request differs (-original +resumed):\n%s", diff)
	}
	if noCalls.Calls() != 0 {
		t.Errorf("the resumed strategy made %d summary calls", noCalls.Calls())
	}
}
