package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/model"
)

// contextWindow is the model's context window in tokens: the configured
// one, else what the server reports (llama.cpp's /props, which the
// provider caches once asked, as the agent's first request does), 0 when
// unknown. wait bounds a question still to be asked.
func (s *chatSession) contextWindow(wait time.Duration) int {
	if w := s.cfg.Model.ContextWindow; w > 0 {
		return w
	}
	cw, ok := s.provider.(model.ContextWindower)
	if !ok {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	n, err := cw.ContextWindow(ctx)
	if err != nil {
		return 0
	}
	return max(n, 0)
}

// contextGauge is the status line's context: "12.3k/32k 38%" of the
// last request's input in the window.
func contextGauge(used, window int) string {
	return fmt.Sprintf("%s/%s %d%%", humanTokens(used), humanTokens(window), min(100, used*100/window))
}

// contextLine is /status's context line.
func (s *chatSession) contextLine() string {
	win := s.contextWindow(5 * time.Second)
	switch {
	case win <= 0:
		return "context: window unknown (set [model] context_window)"
	case s.lastInput == 0:
		return fmt.Sprintf("context: window %s tokens, no request yet", humanTokens(win))
	}
	return fmt.Sprintf("context: %s (%d of %d tokens in the last request)", contextGauge(s.lastInput, win), s.lastInput, win)
}

// shownState is a server's state as /mcp and the status line tell it: a
// server that failed is "failed" while rein retries it, not
// "connecting" (Status reports a retry in flight as connecting).
func shownState(st mcp.Status) mcp.State {
	if st.State == mcp.StateConnecting && st.Err != nil {
		return mcp.StateFailed
	}
	return st.State
}

// watchMCP refreshes the status line's MCP segment whenever a server
// connects or fails, instead of at the next turn's end only (the line
// said "0 up" while /mcp showed the server connected).
func (s *chatSession) watchMCP() {
	if s.front == nil || s.mcp == nil {
		return
	}
	f := func() { s.front.send(tui.MCPStatusMsg(s.mcpSummary())) }
	s.mcp.onChange.Store(&f)
}

// resetUsage starts the token count over, for a new session (/clear);
// used, when not nil, is the usage recorded by a resumed session, which
// the count continues from (--continue, /resume).
func (s *chatSession) resetUsage(used *model.Usage) {
	s.usage, s.lastInput, s.turns = model.Usage{}, 0, 0
	if used != nil {
		s.usage = *used
	}
}
