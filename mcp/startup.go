package mcp

import (
	"context"
	"time"

	"github.com/reinharness/rein/tool"
)

// noGrace makes Tools wait for every server until its startup timeout.
const noGrace time.Duration = -1

// ToolsWithin is Tools for a caller that must not wait long: a server that
// is not required is waited for at most grace after Start (0: not at all),
// and one still connecting then is left out silently — it keeps
// connecting in the background, Config.OnConnected says when it is up, and
// a failure is reported once, when its own startup timeout passes. A
// required server is waited for until its startup timeout, and fails the
// call as in Tools. A negative grace is treated as 0.
func (m *Manager) ToolsWithin(ctx context.Context, grace time.Duration) ([]tool.Tool, error) {
	return m.tools(ctx, max(grace, 0))
}

// ServerTools returns the tools of the server called name if it is
// connected now, without waiting or connecting: what a caller adds when
// Config.OnConnected reports the server. It returns nil for a server that
// is not up, disabled or unknown.
func (m *Manager) ServerTools(name string) []tool.Tool {
	for _, s := range m.servers {
		if s.cfg.Name != name {
			continue
		}
		if sess, _, _, _, _ := s.state(); sess == nil {
			return nil
		}
		return s.adapt()
	}
	return nil
}

// Connecting returns the names of the enabled servers whose first
// connection attempt has not ended, in name order: the servers a run
// that is ending went without.
func (m *Manager) Connecting() []string {
	var out []string
	for _, s := range m.servers {
		select {
		case <-s.ready:
		default:
			out = append(out, s.cfg.Name)
		}
	}
	return out
}
