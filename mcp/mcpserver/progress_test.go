package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/reinharness/rein/tool"
)

// chattyTool reports n lines of output as progress, then returns.
func chattyTool(n, width int) tool.Tool {
	type in struct{}
	return tool.Func("chatty", "Print lines.", func(ctx context.Context, _ in) (string, error) {
		for i := range n {
			tool.ReportProgress(ctx, fmt.Sprintf("line %d %s\n", i, strings.Repeat("x", width)))
		}
		return "done", nil
	})
}

type progressNote struct {
	Token    any     `json:"progressToken"`
	Progress float64 `json:"progress"`
	Message  string  `json:"message"`
}

// progressClient serves a chatty tool on stdio in era and records the
// progress notifications a raw client receives.
func progressClient(t *testing.T, n, width int, era string) (*rawClient, func() []progressNote) {
	set, err := tool.NewSet(chattyTool(n, width))
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, Config{Tools: set, MaxResultBytes: -1})
	var mu sync.Mutex
	var notes []progressNote
	c := newRawStdio(t, s, "")
	c.onNotify = func(method string, params json.RawMessage) {
		var p progressNote
		if method == "notifications/progress" && json.Unmarshal(params, &p) == nil {
			mu.Lock()
			notes = append(notes, p)
			mu.Unlock()
		}
	}
	if era == legacy {
		c.callInto("initialize", map[string]any{"protocolVersion": legacy, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw-test", "version": "1"}}, &json.RawMessage{})
		c.notify("notifications/initialized", map[string]any{})
	}
	return c, func() []progressNote {
		mu.Lock()
		defer mu.Unlock()
		return append([]progressNote(nil), notes...)
	}
}

func callMeta(era string, meta map[string]any) map[string]any {
	if era == modern {
		meta["io.modelcontextprotocol/protocolVersion"] = modern
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "raw-test", "version": "1"}
	}
	return map[string]any{"name": "chatty", "arguments": map[string]any{}, "_meta": meta}
}

// TestProgressForwarded: a tool's reported output reaches a client that
// sent a progressToken as notifications/progress carrying that token,
// complete, in order, before the result, with increasing progress; a call
// without a token gets none. Both eras, over stdio.
func TestProgressForwarded(t *testing.T) {
	for _, era := range []string{legacy, modern} {
		t.Run(era, func(t *testing.T) {
			c, notes := progressClient(t, 50, 10, era)
			if _, err := c.call("tools/call", callMeta(era, map[string]any{"progressToken": "tok-1"})); err != nil {
				t.Fatal(err)
			}
			got := notes() // the result came after every notification
			if len(got) == 0 {
				t.Fatal("no progress notifications")
			}
			var text strings.Builder
			last := 0.0
			for _, n := range got {
				if n.Token != "tok-1" {
					t.Errorf("progressToken %v, want tok-1", n.Token)
				}
				if n.Progress <= last {
					t.Errorf("progress %v after %v: not increasing", n.Progress, last)
				}
				last = n.Progress
				text.WriteString(n.Message)
			}
			for i := range 50 {
				if want := fmt.Sprintf("line %d xxxxxxxxxx\n", i); !strings.Contains(text.String(), want) {
					t.Fatalf("line %d missing from the forwarded output %q", i, text.String())
				}
			}
			if len(got) >= 50 {
				t.Errorf("%d notifications for 50 quick lines: output is not batched", len(got))
			}
			before := len(notes())
			if _, err := c.call("tools/call", callMeta(era, map[string]any{})); err != nil {
				t.Fatal(err)
			}
			if after := len(notes()); after != before {
				t.Errorf("a call without a progressToken got %d notifications", after-before)
			}
		})
	}
}

// TestProgressBounded: a tool printing far more than the budget forwards
// at most the budget (in chunks no larger than the chunk bound) and says
// how much it left out.
func TestProgressBounded(t *testing.T) {
	c, notes := progressClient(t, 2000, 1000, legacy) // ~2 MB of output
	if _, err := c.call("tools/call", callMeta(legacy, map[string]any{"progressToken": 7})); err != nil {
		t.Fatal(err)
	}
	total := 0
	got := notes()
	for _, n := range got {
		if len(n.Message) > progressChunk+200 {
			t.Errorf("a notification of %d bytes, over the %d chunk bound", len(n.Message), progressChunk)
		}
		total += len(n.Message)
	}
	if total > progressBudget+200 {
		t.Errorf("%d bytes forwarded, over the %d budget", total, progressBudget)
	}
	if len(got) == 0 || !strings.Contains(got[len(got)-1].Message, "more bytes of output not forwarded") {
		t.Errorf("the last notification does not say output was left out")
	}
}
