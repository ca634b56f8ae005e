package hooks

import (
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// TestMatcherMCPClaudeSpelling: a hook matcher written for Claude Code
// names an MCP tool mcp__server__tool; rein calls it server__tool, and
// the matcher applies to it in either spelling.
func TestMatcherMCPClaudeSpelling(t *testing.T) {
	for _, tc := range []struct {
		matcher, call string
		want          bool
	}{
		{"mcp__memory__store", "memory__store", true},
		{"mcp__memory__.*", "memory__store", true},
		{"mcp__memory__store|Bash", "memory__store", true},
		{"memory__store", "memory__store", true},
		{"mcp__memory__store", "memory__recall", false},
		{"mcp__memory__.*", "git__log", false},
		{"mcp__memory", "memory__store", false}, // a plain name is compared whole, as Claude Code does
		{"mcp__.*", "run_command", false},
	} {
		g := Group{Matcher: tc.matcher}
		if err := g.compile(); err != nil {
			t.Fatal(err)
		}
		p := agent.SteerPoint{Event: agent.SteerPreToolUse, Call: &model.ToolCall{Name: tc.call}}
		if got := g.Matches(subject(p)...); got != tc.want {
			t.Errorf("matcher %q on %s = %v, want %v", tc.matcher, tc.call, got, tc.want)
		}
	}
}
