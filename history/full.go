package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// ErrOverBudget reports a history that does not fit its budget under a
// strategy that may not leave anything out (Full with Strict).
var ErrOverBudget = errors.New("history exceeds the context budget")

// Full is the strategy that sends the whole history on every call.
//
// It never omits or rewrites anything, so it never reports a compaction.
// A history over the budget is sent anyway and the server judges it,
// unless Strict is set. Full is stateless and safe for concurrent use.
type Full struct {
	// Strict makes Prepare fail with ErrOverBudget when the history is
	// estimated over the budget, instead of sending a request the server
	// is likely to reject: the run then ends with a clear error rather
	// than a provider's context-length message.
	Strict bool
}

// Prepare implements agent.ContextStrategy.
func (f Full) Prepare(_ context.Context, c *agent.Conversation, budget int) ([]model.Message, *agent.CompactionInfo, error) {
	if f.Strict && budget > 0 {
		if est := c.EstimatedTokens(0); est > budget {
			return nil, nil, fmt.Errorf("memory: %w: %d messages are about %d tokens and the model call leaves room for %d; use the window or summarize strategy, or a model with a larger context window",
				ErrOverBudget, c.Len(), est, budget)
		}
	}
	return c.Messages(), nil, nil
}
