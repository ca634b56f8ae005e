package history

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// summaryFits reports an error when a summary request does not fit
// budget: its system prompt, its messages and the room for its answer.
func summaryFits(req *model.Request, budget int) error {
	got := agent.EstimateTextTokens(len(req.System)) + estimate(req.Messages) + req.MaxTokens
	if got > budget {
		return fmt.Errorf("summary request needs %d tokens, over the budget %d", got, budget)
	}
	return nil
}

// checkView checks a summarized request history: pairs intact, headed by
// the summary, within the budget.
func checkView(t *testing.T, got []model.Message, summary string, budget int) {
	t.Helper()
	if err := checkPairs(got); err != nil {
		t.Fatal(err)
	}
	if got[0].Role != model.RoleUser || !strings.HasPrefix(got[0].Text(), SummaryHeader+"\n"+summary) {
		t.Fatalf("first message %q does not carry the summary %q", clip(got[0].Text(), 200), summary)
	}
	if e := estimate(got); budget > 0 && e > budget {
		t.Fatalf("request history is %d tokens, over the budget %d", e, budget)
	}
}

func TestSummarizeBelowThreshold(t *testing.T) {
	p := modeltest.NewScripted()
	s := &Summarize{Provider: p}
	c := agent.NewConversation("b", newHistoryGen(1).history(40)...)
	budget := c.EstimatedTokens(0) * 2 // at 50%
	got, info, err := s.Prepare(context.Background(), c, budget)
	if err != nil || info != nil || len(got) != c.Len() {
		t.Fatalf("got %d messages, info %+v, err %v; want the whole history untouched", len(got), info, err)
	}
	if p.Calls() != 0 {
		t.Errorf("%d summary calls below the threshold", p.Calls())
	}
}

func TestSummarizeAtThreshold(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("  S1: the user wants X.  "))
	s := &Summarize{Provider: p, Model: "m1"}
	hist := newHistoryGen(2).history(60)
	c := agent.NewConversation("t", hist...)
	budget := int(float64(c.EstimatedTokens(0))/0.85) + 1 // at 85%
	ctx := context.Background()

	got, info, err := s.Prepare(ctx, c, budget)
	if err != nil {
		t.Fatal(err)
	}
	if p.Calls() != 1 {
		t.Fatalf("%d summary calls, want 1", p.Calls())
	}
	checkView(t, got, "S1: the user wants X.", budget)
	k := info.Summarized
	if info.Strategy != StrategySummarize || info.Summary != "S1: the user wants X." || k <= 0 || info.Fallback != "" {
		t.Fatalf("info = %+v", info)
	}
	if hist[k].Role == model.RoleTool {
		t.Fatalf("summary ends at message %d, a tool message", k)
	}
	if tail := c.EstimatedTokens(k); tail > int(0.8*float64(budget)/2) && k < len(hist)-DefaultKeepRecent {
		t.Errorf("kept %d tokens verbatim, more than half the threshold", tail)
	}
	if info.OmittedMessages+info.KeptMessages != len(hist) || estimate(got) > info.EstimatedTokens {
		t.Errorf("info %+v does not describe %d messages sent at %d tokens", info, len(got), estimate(got))
	}

	req := p.Requests()[0]
	if req.System != DefaultSummaryPrompt || req.Model != "m1" || req.MaxTokens != min(DefaultMaxSummaryTokens, budget/8) {
		t.Errorf("summary request: system %q…, model %q, max tokens %d", clip(req.System, 40), req.Model, req.MaxTokens)
	}
	if err := summaryFits(req, budget); err != nil {
		t.Error(err)
	}
	in := req.Messages[0].Text()
	if !strings.Contains(in, hist[0].Text()) || !strings.Contains(in, hist[k-1].Parts[0].Text) && hist[k-1].Role != model.RoleTool {
		t.Errorf("summary transcript lacks the summarized messages")
	}
	if strings.Contains(in, "<summary>") {
		t.Errorf("first summary request carries a previous summary")
	}

	// The next call reuses the summary without a call and without
	// reporting its text again.
	got2, info2, err := s.Prepare(ctx, c, budget)
	if err != nil {
		t.Fatal(err)
	}
	if p.Calls() != 1 || info2.Summary != "" || info2.Summarized != k {
		t.Errorf("second call: %d calls, info %+v", p.Calls(), info2)
	}
	if diff := cmp.Diff(got, got2); diff != "" {
		t.Errorf("second view differs (-first +second):\n%s", diff)
	}
}

func TestSummarizeIncremental(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("S1"), modeltest.Text("S2"), modeltest.Text("S3"))
	s := &Summarize{Provider: p, KeepRecent: 4}
	g := newHistoryGen(3)
	hist := g.history(60)
	c := agent.NewConversation("i", hist...)
	budget := int(float64(c.EstimatedTokens(0))/0.9) + 1
	ctx := context.Background()
	_, info, err := s.Prepare(ctx, c, budget)
	if err != nil || info.Summary != "S1" {
		t.Fatalf("first: info %+v, err %v", info, err)
	}
	k1 := info.Summarized
	// Grow the conversation until the next summary is due.
	for p.Calls() == 1 {
		more := g.turn(nil)
		c.Append(more...)
		got, info, err := s.Prepare(ctx, c, budget)
		if err != nil {
			t.Fatal(err)
		}
		if p.Calls() == 1 {
			checkView(t, got, "S1", budget)
			continue
		}
		checkView(t, got, "S2", budget)
		if info.Summary != "S2" || info.Summarized <= k1 {
			t.Fatalf("second summary: info %+v, first covered %d", info, k1)
		}
	}
	req := p.Requests()[1]
	in := req.Messages[0].Text()
	if !strings.Contains(in, "<summary>\nS1\n</summary>") {
		t.Errorf("second summary request lacks the first summary:\n%s", clip(in, 300))
	}
	first := c.Messages()[k1]
	if !strings.Contains(in, "["+string(first.Role)+"]\n"+cutRunes(first.Parts[0].Text, 40)) {
		t.Errorf("second summary request does not start where the first stopped")
	}
	if strings.Contains(in, hist[0].Text()) {
		t.Errorf("second summary request summarizes the first message again")
	}
	if err := summaryFits(req, budget); err != nil {
		t.Error(err)
	}
}

func TestSummarizeFallback(t *testing.T) {
	apiErr := &model.APIError{Provider: "openai", StatusCode: 500, Message: "boom\nsecond line"}
	tests := []struct {
		name string
		turn modeltest.Turn
		want string
	}{
		{"error", modeltest.Fail(apiErr), "openai API error 500: boom second line"},
		{"empty", modeltest.Text("   "), "no text"},
		{"broken stream", modeltest.Text("partial").ThenFail(model.ErrIncompleteStream), "ended before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := modeltest.NewScripted(tt.turn)
			s := &Summarize{Provider: p}
			g := newHistoryGen(4)
			c := agent.NewConversation("f", g.history(120)...)
			budget := c.EstimatedTokens(0) / 2 // far over: the window must cut
			ctx := context.Background()
			got, info, err := s.Prepare(ctx, c, budget)
			if err != nil {
				t.Fatal(err)
			}
			if info.Strategy != StrategyWindow || !strings.Contains(info.Fallback, "summary failed") ||
				!strings.Contains(info.Fallback, tt.want) || strings.Contains(info.Fallback, "\n") {
				t.Fatalf("info = %+v, want a window with a one-line fallback note naming %q", info, tt.want)
			}
			if err := checkWindowView(got, budget); err != nil {
				t.Fatal(err)
			}
			// No retry until the history has grown.
			if _, info, _ := s.Prepare(ctx, c, budget); p.Calls() != 1 || info.Fallback != "" {
				t.Fatalf("retried at once: %d calls, info %+v", p.Calls(), info)
			}
			// The history is twice the budget: the retry may fold it in
			// more than one call.
			p.Add(modeltest.Text("recovered"), modeltest.Text("recovered"), modeltest.Text("recovered"))
			for p.Calls() == 1 {
				c.Append(g.turn(nil)...)
				if got, info, err = s.Prepare(ctx, c, budget); err != nil {
					t.Fatal(err)
				}
			}
			if info.Summary != "recovered" {
				t.Fatalf("after the retry: info %+v", info)
			}
			checkView(t, got, "recovered", budget)
		})
	}
}

// checkWindowView checks a windowed request history.
func checkWindowView(got []model.Message, budget int) error {
	if err := checkPairs(got); err != nil {
		return err
	}
	if !strings.Contains(got[0].Text(), "omitted to fit the context window") {
		return errors.New("windowed history lacks the marker")
	}
	if e := estimate(got); e > budget {
		return errors.New("windowed history over the budget")
	}
	return nil
}

func TestSummarizeCancelled(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Hang())
	s := &Summarize{Provider: p}
	c := agent.NewConversation("x", newHistoryGen(5).history(60)...)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := s.Prepare(ctx, c, c.EstimatedTokens(0))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's error", err)
	}
	// Nothing was remembered as a failure: the next call tries again.
	p.Add(modeltest.Text("S"))
	_, info, err := s.Prepare(context.Background(), c, c.EstimatedTokens(0))
	if err != nil || info.Summary != "S" {
		t.Fatalf("after cancellation: info %+v, err %v", info, err)
	}
}

func TestCompact(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Fail(errors.New("down")), modeltest.Text("C1"))
	s := &Summarize{Provider: p, KeepRecent: 6}
	hist := newHistoryGen(6).history(50)
	c := agent.NewConversation("c", hist...)
	ctx := context.Background()
	budget := c.EstimatedTokens(0) * 4 // far below the threshold
	if _, info, err := s.Prepare(ctx, c, budget); err != nil || info != nil {
		t.Fatalf("before: info %+v, err %v", info, err)
	}

	if _, err := s.Compact(ctx, c); err == nil || !strings.Contains(err.Error(), "down") {
		t.Fatalf("failed compact: err = %v", err)
	}
	if got, info, _ := s.Prepare(ctx, c, budget); info != nil || len(got) != len(hist) {
		t.Fatalf("a failed compact changed the view: info %+v", info)
	}

	info, err := s.Compact(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	k := info.Summarized
	if info.Summary != "C1" || info.Strategy != StrategySummarize || k <= 0 || len(hist)-k > 6+1 {
		t.Fatalf("compact info = %+v", info)
	}
	got, info2, err := s.Prepare(ctx, c, budget)
	if err != nil {
		t.Fatal(err)
	}
	checkView(t, got, "C1", budget)
	if info2.Summary != "C1" || info2.Summarized != k {
		t.Errorf("first Prepare after compact should report the summary for the journal: %+v", info2)
	}
	if _, info3, _ := s.Prepare(ctx, c, budget); info3.Summary != "" {
		t.Errorf("summary reported twice: %+v", info3)
	}

	if _, err := s.Compact(ctx, c); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("compact with nothing new: err = %v, want ErrNothingToCompact", err)
	}
	if p.Calls() != 2 {
		t.Errorf("%d calls, want 2", p.Calls())
	}
}

func TestRestore(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("R1"))
	s := &Summarize{Provider: p}
	hist := newHistoryGen(8).history(80)
	c := agent.NewConversation("sess", hist...)
	budget := int(float64(c.EstimatedTokens(0))/0.85) + 1
	want, info, err := s.Prepare(context.Background(), c, budget)
	if err != nil || info.Summary == "" {
		t.Fatalf("info %+v, err %v", info, err)
	}
	// A new process: the journal hands back the compaction event.
	fresh := modeltest.NewScripted() // any call would fail
	s2 := &Summarize{Provider: fresh}
	if s2.Restore("sess", &agent.CompactionInfo{Strategy: StrategySummarize, Summarized: info.Summarized}) {
		t.Error("Restore accepted an event without a summary")
	}
	if !s2.Restore("sess", info) {
		t.Fatal("Restore refused the summary")
	}
	c2 := agent.NewConversation("sess", hist...)
	got, info2, err := s2.Prepare(context.Background(), c2, budget)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resumed view differs (-before +after):\n%s", diff)
	}
	if fresh.Calls() != 0 || info2.Summary != "" || info2.Summarized != info.Summarized {
		t.Errorf("after restore: %d calls, info %+v", fresh.Calls(), info2)
	}

	// A summary that does not match the history is dropped.
	for _, bad := range []int{len(hist) + 1, 3} {
		s3 := &Summarize{Provider: modeltest.NewScripted()}
		badInfo := *info
		badInfo.Summarized = bad
		if bad == 3 {
			for hist[bad].Role != model.RoleTool {
				bad++
			}
			badInfo.Summarized = bad
		}
		s3.Restore("sess", &badInfo)
		small := agent.NewConversation("sess", hist...)
		got, info3, err := s3.Prepare(context.Background(), small, 0)
		if err != nil || info3 != nil || len(got) != len(hist) {
			t.Errorf("stale summary through %d was used: info %+v, err %v", bad, info3, err)
		}
	}
	s2.Forget("sess")
	if got, _, _ := s2.Prepare(context.Background(), c2, 0); len(got) != len(hist) {
		t.Error("Forget kept the summary")
	}
}

// TestSummarizeChunks resumes a history far over the budget: the summary
// is folded piece by piece, every summary call fits, and the result fits.
func TestSummarizeChunks(t *testing.T) {
	sp := modeltest.NewScripted()
	for i := range 200 {
		sp.Add(modeltest.Text("chunk summary " + strconv.Itoa(i)))
	}
	s := &Summarize{Provider: sp, MaxSummaryTokens: 300}
	c := agent.NewConversation("big", newHistoryGen(9).history(2000)...)
	budget := 6000
	got, info, err := s.Prepare(context.Background(), c, budget)
	if err != nil {
		t.Fatal(err)
	}
	calls := sp.Calls()
	if calls < 2 {
		t.Fatalf("%d summary calls for a history %d× the budget", calls, c.EstimatedTokens(0)/budget)
	}
	reqs := sp.Requests()
	for i, req := range reqs {
		if err := summaryFits(req, budget); err != nil {
			t.Errorf("summary call %d: %v", i, err)
		}
		if i > 0 && !strings.Contains(req.Messages[0].Text(), "<summary>\nchunk summary "+strconv.Itoa(i-1)+"\n</summary>") {
			t.Errorf("summary call %d does not fold the previous one", i)
		}
	}
	last := "chunk summary " + strconv.Itoa(calls-1)
	checkView(t, got, last, budget)
	if info.Summary != last {
		t.Errorf("info.Summary = %q, want %q", info.Summary, last)
	}
}

func TestSummaryClipped(t *testing.T) {
	sp := modeltest.NewScripted(modeltest.Text(strings.Repeat("é", 50_000)))
	s := &Summarize{Provider: sp, MaxSummaryTokens: 100}
	c := agent.NewConversation("x", newHistoryGen(10).history(60)...)
	budget := c.EstimatedTokens(0)
	got, info, err := s.Prepare(context.Background(), c, budget)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(info.Summary); n > 100*bytesPerToken {
		t.Errorf("summary of %d bytes kept, cap %d", n, 100*bytesPerToken)
	}
	if !strings.Contains(info.Summary, "[clipped") {
		t.Error("clipped summary lacks its marker")
	}
	checkView(t, got, info.Summary, budget)
}

func TestSummarizeInvalid(t *testing.T) {
	c := agent.NewConversation("x", u("hi"))
	p := modeltest.NewScripted()
	for _, s := range []*Summarize{
		{},
		{Provider: p, KeepRecent: -1},
		{Provider: p, MaxSummaryTokens: -1},
		{Provider: p, Threshold: math.NaN()},
		{Provider: p, Threshold: -0.5},
	} {
		if _, _, err := s.Prepare(context.Background(), c, 100); !errors.Is(err, ErrInvalidStrategy) {
			t.Errorf("%+v: Prepare err = %v, want ErrInvalidStrategy", s, err)
		}
		if _, err := s.Compact(context.Background(), c); !errors.Is(err, ErrInvalidStrategy) {
			t.Errorf("%+v: Compact err = %v, want ErrInvalidStrategy", s, err)
		}
	}
}

func TestSummarizeBudgetTooSmall(t *testing.T) {
	p := modeltest.NewScripted(modeltest.Text("never"))
	s := &Summarize{Provider: p}
	c := agent.NewConversation("x", newHistoryGen(11).history(30)...)
	_, info, err := s.Prepare(context.Background(), c, 300)
	if err != nil {
		t.Fatal(err)
	}
	if p.Calls() != 0 || !strings.Contains(info.Fallback, "larger context window") {
		t.Errorf("%d calls, info %+v; want no call and a fallback naming the fix", p.Calls(), info)
	}
}

// TestBytesPerToken keeps transcript byte limits in step with the agent's
// estimator.
func TestBytesPerToken(t *testing.T) {
	for _, k := range []int{1, 7, 1000} {
		if got := agent.EstimateTextTokens(k * bytesPerToken); got != k {
			t.Errorf("EstimateTextTokens(%d) = %d, want %d", k*bytesPerToken, got, k)
		}
	}
}

// TestSummarizeKeepsTask: in one long task the summary soon covers the
// user's request; the request is still sent in the user's own words.
func TestSummarizeKeepsTask(t *testing.T) {
	g := newHistoryGen(14)
	task := u("TASK: migrate the build to Bazel and keep CI green")
	hist := []model.Message{task}
	for len(hist) < 200 {
		cs := g.calls()
		ids := make([]string, len(cs))
		for i, c := range cs {
			ids[i] = c.ID
		}
		hist = append(hist, ac(ids...), tr(200+g.rng.IntN(800), ids...))
	}
	c := agent.NewConversation("task", hist...)
	s := &Summarize{Provider: modeltest.NewScripted(modeltest.Text("S")).Repeat()}
	budget := int(float64(c.EstimatedTokens(0))/0.9) + 1
	got, info, err := s.Prepare(context.Background(), c, budget)
	if err != nil {
		t.Fatal(err)
	}
	checkView(t, got, "S", budget)
	if info.Summarized <= 0 || !strings.HasSuffix(got[0].Text(), task.Text()) {
		t.Errorf("first message %q does not carry the task after the summary", clip(got[0].Text(), 200))
	}
	if info.KeptMessages+info.OmittedMessages != len(hist) || info.KeptMessages != len(hist)-info.Summarized+1 {
		t.Errorf("info %+v: the task counts as kept", info)
	}
}

// TestCompactDiscoversBudget: a /compact before any model call (a resumed
// chat) sizes its summary calls from the provider's context window.
func TestCompactDiscoversBudget(t *testing.T) {
	p := modeltest.NewScripted().WithContextWindow(4000)
	for i := range 100 {
		p.Add(modeltest.Text("part " + strconv.Itoa(i)))
	}
	s := &Summarize{Provider: p}
	c := agent.NewConversation("resumed", newHistoryGen(15).history(300)...)
	info, err := s.Compact(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if p.Calls() < 2 || info.Summary != "part "+strconv.Itoa(p.Calls()-1) {
		t.Fatalf("%d calls, info %+v", p.Calls(), info)
	}
	for i, req := range p.Requests() {
		if err := summaryFits(req, 4000-4000/8); err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

// TestSummarizeConcurrent shares one Summarize between runs on different
// conversations (run with -race).
func TestSummarizeConcurrent(t *testing.T) {
	s := &Summarize{Provider: modeltest.NewScripted(modeltest.Text("S")).Repeat()}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newHistoryGen(uint64(100 + w))
			c := agent.NewConversation("conv-"+strconv.Itoa(w), g.history(40)...)
			budget := c.EstimatedTokens(0) * 2
			for range 30 {
				c.Append(g.turn(nil)...)
				got, _, err := s.Prepare(context.Background(), c, budget)
				if err != nil {
					t.Error(err)
					return
				}
				if err := checkPairs(got); err != nil {
					t.Error(err)
					return
				}
				if estimate(got) > budget {
					t.Errorf("conversation %d: over the budget", w)
					return
				}
			}
			s.Forget(c.ID())
		}()
	}
	wg.Wait()
}
