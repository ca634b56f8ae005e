package session

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
)

// Sub-agents' events (agent.Event.AgentPath set) share the session's
// journal with the root run's. They never shape the root's conversation;
// Load keeps their tool calls by the root call that started them, so that
// Resume can tell the model what an interrupted task call had finished.

// Summary bounds: a resumed conversation must not be swamped by the
// record of a busy sub-agent.
const (
	maxChildCalls      = 50
	maxChildResultText = 300
)

// rootCallID is the id of the root's task call an agent path descends
// from: "task:call_1/reviewer/task:call_7/general" → "call_1".
func rootCallID(path string) string {
	first, _, _ := strings.Cut(path, "/")
	_, id, ok := strings.Cut(first, ":")
	if !ok {
		return ""
	}
	return id
}

// addChild folds a sub-agent's tool call or result into Children.
func (b *rebuilder) addChild(ev agent.Event) {
	root := rootCallID(ev.AgentPath)
	if root == "" {
		return
	}
	s := b.snap
	switch {
	case ev.Type == agent.EventToolCall && ev.ToolCall != nil:
		if s.Children == nil {
			s.Children = map[string][]ChildCall{}
		}
		s.Children[root] = append(s.Children[root], ChildCall{AgentPath: ev.AgentPath, Call: *ev.ToolCall})
	case ev.Type == agent.EventToolResult && ev.ToolResult != nil:
		calls := s.Children[root]
		for i := len(calls) - 1; i >= 0; i-- {
			if calls[i].AgentPath == ev.AgentPath && calls[i].Call.ID == ev.ToolResult.CallID && calls[i].Result == nil {
				r := *ev.ToolResult
				calls[i].Result = &r
				break
			}
		}
	}
}

// childSummary describes what the sub-agents under an interrupted task
// call had finished, for the result Resume gives that call; "" when they
// recorded nothing.
func childSummary(calls []ChildCall) string {
	if len(calls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nThe sub-agent had made these tool calls before rein stopped (none is re-run; finished ones need not be repeated):")
	for i, c := range calls {
		if i == maxChildCalls {
			fmt.Fprintf(&b, "\n- … and %d more", len(calls)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s %s: ", c.Call.Name, textclip.Line(htmlUnescaper.Replace(string(c.Call.Args)), 200))
		switch {
		case c.Result == nil:
			b.WriteString("interrupted, may have run partly")
		case c.Result.IsError:
			b.WriteString("failed: " + textclip.Line(c.Result.Content, maxChildResultText))
		default:
			b.WriteString("finished: " + textclip.Line(c.Result.Content, maxChildResultText))
		}
	}
	return b.String()
}

// htmlUnescaper undoes encoding/json's HTML escaping of stored arguments,
// so the model reads `a >> b` as it wrote it.
var htmlUnescaper = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")

// interruptedResult is the result Resume gives a call journaled as
// started: InterruptedRunning, and for a task call what its sub-agents
// had finished.
func interruptedResult(c model.ToolCall, children []ChildCall) model.ToolResult {
	return model.ToolResult{CallID: c.ID, Name: c.Name, Content: InterruptedRunning + childSummary(children), IsError: true}
}
