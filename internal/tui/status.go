package tui

import (
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
)

// MCPStatusMsg replaces the status line's MCP servers only: servers
// connect and fail between turns, when nothing else changes.
type MCPStatusMsg string

// statusLine is the bottom line: model, preset, context, tokens, cost,
// MCP servers, session; cut to the terminal's width.
func (m *Model) statusLine() string {
	s := m.status
	var parts []string
	add := func(label, v string) {
		if v != "" {
			parts = append(parts, label+termsafe.Line(v))
		}
	}
	add("", s.Model)
	add("", s.Preset)
	add("ctx ", s.Context)
	add("tokens ", s.Tokens)
	add("", s.Cost)
	add("mcp ", s.MCP)
	add("session ", s.Session)
	return m.st.status.Render(clipLine(strings.Join(parts, " · "), m.width))
}
