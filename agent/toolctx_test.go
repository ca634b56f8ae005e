package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// TestToolContextCarriesCallIDAndLogger: every invocation gets its call's
// id (tool.CallID) and Config.Logger with call_id and tool attributes
// (tool.Logger); without a Logger, tools get a discarding one, never nil.
func TestToolContextCarriesCallIDAndLogger(t *testing.T) {
	for _, withLogger := range []bool{true, false} {
		var mu sync.Mutex
		var buf bytes.Buffer
		seen := map[string]bool{}
		probe := newTool("probe", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
			mu.Lock()
			seen[tool.CallID(ctx)] = true
			mu.Unlock()
			tool.Logger(ctx).Info("probing")
			return &tool.Result{Content: "ok"}, nil
		})
		p := modeltest.NewScripted(modeltest.ToolCalls(call("a1", "probe", `{"n":1}`), call("a2", "probe", `{"n":2}`)), modeltest.Text("done"))
		cfg := Config{Provider: p, Tools: mustSet(t, probe)}
		if withLogger {
			cfg.Logger = slog.New(slog.NewTextHandler(&syncWriter{w: &buf, mu: &mu}, nil))
		}
		if _, err := mustAgent(t, cfg).RunToEnd(context.Background(), NewConversation("s"), "go"); err != nil {
			t.Fatal(err)
		}
		if !seen["a1"] || !seen["a2"] || len(seen) != 2 {
			t.Errorf("call ids seen by the tool: %v, want a1 and a2", seen)
		}
		out := buf.String()
		for _, want := range []string{"call_id=a1 tool=probe", "call_id=a2 tool=probe"} {
			if withLogger && !strings.Contains(out, want) {
				t.Errorf("log %q lacks %q", out, want)
			}
		}
		if !withLogger && out != "" {
			t.Errorf("no logger configured, yet %q was written", out)
		}
	}
}

// syncWriter serialises writes from concurrent tool calls.
type syncWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestToolProgressCarriesTheCallID: what a tool reports through
// tool.ReportProgress reaches Config.ToolProgress with its own call's id
// and tool name, for parallel calls too.
func TestToolProgressCarriesTheCallID(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	probe := newTool("probe", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		tool.ReportProgress(ctx, "working on "+tool.CallID(ctx))
		return &tool.Result{Content: "ok"}, nil
	})
	p := modeltest.NewScripted(modeltest.ToolCalls(call("a1", "probe", `{"n":1}`), call("a2", "probe", `{"n":2}`)), modeltest.Text("done"))
	cfg := Config{Provider: p, Tools: mustSet(t, probe), ToolProgress: func(callID, name, text string) {
		mu.Lock()
		defer mu.Unlock()
		got[callID] = name + ": " + text
	}}
	if _, err := mustAgent(t, cfg).RunToEnd(context.Background(), NewConversation("s"), "go"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a1": "probe: working on a1", "a2": "probe: working on a2"}
	if len(got) != 2 || got["a1"] != want["a1"] || got["a2"] != want["a2"] {
		t.Errorf("progress = %v, want %v", got, want)
	}
}
