package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// ErrInvalidStrategy reports a strategy configured with values it cannot
// work with.
var ErrInvalidStrategy = errors.New("invalid context strategy")

// Window is the strategy that sends the newest messages that fit: within
// the call's token budget (and MaxTokens, when set), and at most
// MaxMessages conversation messages (when set).
//
// It drops the oldest messages first and cuts only in front of a non-tool
// message, so a tool result always travels with its call. The latest user
// message (the current task) is kept even when the messages around it go,
// if it fits. A marker says how many messages were left out. Choosing the
// cut costs O(log n) estimates; only the kept messages are copied. Window
// is stateless and safe for concurrent use.
type Window struct {
	// MaxMessages caps the conversation messages sent (the marker is not
	// counted); 0 means no cap.
	MaxMessages int
	// MaxTokens caps the history's estimated tokens below the budget the
	// agent derives from the context window; 0 means the budget alone.
	MaxTokens int
}

// Prepare implements agent.ContextStrategy.
func (w Window) Prepare(_ context.Context, c *agent.Conversation, budget int) ([]model.Message, *agent.CompactionInfo, error) {
	if w.MaxMessages < 0 || w.MaxTokens < 0 {
		return nil, nil, fmt.Errorf("memory: %w: Window{MaxMessages: %d, MaxTokens: %d} has a negative limit; use 0 for none",
			ErrInvalidStrategy, w.MaxMessages, w.MaxTokens)
	}
	msgs, info := newFitter(c, 0, nil, tighter(budget, w.MaxTokens), w.MaxMessages).fit()
	if info != nil {
		info.Strategy = StrategyWindow
	}
	return msgs, info, nil
}

// tighter returns the smaller positive token limit, 0 when neither is set.
func tighter(a, b int) int {
	switch {
	case a <= 0:
		return max(b, 0)
	case b <= 0:
		return a
	}
	return min(a, b)
}
