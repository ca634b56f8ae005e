package agent

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/tool"
)

// TestChunkTake: every slice handed out is zeroed, has exactly the
// capacity asked for, and shares no element with any other, whatever the
// sizes asked for.
func TestChunkTake(t *testing.T) {
	var c chunk[int]
	var all [][]int
	for i, n := range []int{1, 3, 1, 4, 2, 7, 33, 1, 32, 5, 1, 1, 16, 40, 2} {
		s := c.take(n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("take(%d) #%d: len %d cap %d", n, i, len(s), cap(s))
		}
		for j := range s {
			if s[j] != 0 {
				t.Fatalf("take(%d) #%d: element %d is %d, not zero", n, i, j, s[j])
			}
			s[j] = i + 1
		}
		// An append reallocates instead of reaching the next slice.
		_ = append(s, -1)
		all = append(all, s)
	}
	for i, s := range all {
		for j, v := range s {
			if v != i+1 {
				t.Fatalf("slice %d element %d is %d: another take or append wrote it", i, j, v)
			}
		}
	}
}

// TestEventsOutliveTheirTurn: a consumer that keeps every event sees, once
// the run is over, each call's tool.call, tool.decision and tool.result as
// they were when yielded — across enough turns to share and fill several
// of the run's chunks.
func TestEventsOutliveTheirTurn(t *testing.T) {
	const k = 70
	m := &countingModel{k: k}
	for i := range k {
		m.args = append(m.args, []byte(`{"n":`+strconv.Itoa(i)+`}`))
	}
	type in struct {
		N int `json:"n"`
	}
	noop := tool.Func("noop", "Does nothing.", func(_ context.Context, v in) (string, error) { return "r" + strconv.Itoa(v.N), nil })
	set, err := tool.NewSet(noop)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{Provider: m, Tools: set, MaxSteps: k + 2})
	if err != nil {
		t.Fatal(err)
	}
	var kept []Event
	for ev, err := range a.Run(context.Background(), NewConversation("keep"), "go") {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, ev)
	}
	var calls, decisions, results []string
	for _, ev := range kept {
		switch ev.Type {
		case EventToolCall:
			calls = append(calls, ev.ToolCall.ID+" "+string(ev.ToolCall.Args))
		case EventToolDecision:
			decisions = append(decisions, ev.Decision.CallID+" "+ev.Decision.Action)
		case EventToolResult:
			results = append(results, ev.ToolResult.CallID+" "+ev.ToolResult.Content)
		}
	}
	var wantCalls, wantDecisions, wantResults []string
	for i := range k {
		id := "c" + strconv.Itoa(i)
		wantCalls = append(wantCalls, id+` {"n":`+strconv.Itoa(i)+`}`)
		wantDecisions = append(wantDecisions, id+" allow")
		wantResults = append(wantResults, id+" r"+strconv.Itoa(i))
	}
	for _, c := range []struct {
		what      string
		want, got []string
	}{{"tool.call", wantCalls, calls}, {"tool.decision", wantDecisions, decisions}, {"tool.result", wantResults, results}} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s events kept by the consumer (-want +got):\n%s", c.what, diff)
		}
	}
}
