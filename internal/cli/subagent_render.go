package cli

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/termsafe"
)

// childEvent shows a sub-agent's tool activity on stderr, indented under
// the task call by its depth and labelled with its agent's name:
//
//	→ task {"prompt":"find the tests",…}
//	  [general] → grep {"pattern":"func Test"}
//	  [general] ← internal/cli/run_test.go:12:…
//
// Its text is not streamed: only its final answer matters, and it comes
// back as the task call's result.
func (r *textRenderer) childEvent(ev agent.Event) {
	pad := strings.Repeat("  ", max(ev.Depth, 1)) + "[" + termsafe.Line(ev.Agent) + "] "
	switch ev.Type {
	case agent.EventToolCall:
		if ev.ToolCall == nil {
			return
		}
		r.endLine()
		fmt.Fprintf(r.err, "%s→ %s %s\n", pad, termsafe.Line(ev.ToolCall.Name), termsafe.Text(compactLine(r.ex.scrub(compactJSON(ev.ToolCall.Args)))))
	case agent.EventToolDecision:
		if d := ev.Decision; d != nil && d.Action == "deny" && d.By != "harness" {
			fmt.Fprintf(r.err, "%s✗ %s\n", pad, denialLine(r.ex, d))
		}
	case agent.EventToolResult:
		if ev.ToolResult == nil {
			return
		}
		prefix := "← "
		if ev.ToolResult.IsError {
			prefix = "← error: "
		}
		fmt.Fprintf(r.err, "%s%s%s\n", pad, prefix, termsafe.Text(compactLine(r.ex.scrub(ev.ToolResult.Content))))
	}
}
