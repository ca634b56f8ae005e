package history

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// errEmptySummary reports a summary call that answered no text.
var errEmptySummary = errors.New("the model answered the summary request with no text")

// minChunkTokens is the least transcript a summary call must be able to
// take for summarizing to be worth a call.
const minChunkTokens = 128

// due reports whether the history after the summary has reached the
// threshold, and no recent failure asks to wait.
func (s *Summarize) due(c *agent.Conversation, st *summaryState, budget int) bool {
	if c.Len() < st.retryAt {
		return false
	}
	cost := c.EstimatedTokens(st.through)
	if st.summary != "" {
		cost += scaled(c, agent.EstimateMessageTokens(model.Message{Role: model.RoleUser, Parts: s.head(c, st.summary, budget)}))
	}
	return float64(cost) >= s.threshold()*float64(budget)
}

// cutPoint returns where the verbatim tail starts once msgs[through:k] is
// summarized: the newest KeepRecent messages, fewer when they exceed half
// the threshold's tokens (budget > 0), moved forward to a cut point, and
// never past the start of the last turn. k <= through means there is
// nothing to summarize.
func (s *Summarize) cutPoint(c *agent.Conversation, through, budget int) int {
	msgs := c.Messages()
	n := len(msgs)
	lastSafe := n - 1
	for lastSafe > through && msgs[lastSafe].Role == model.RoleTool {
		lastSafe--
	}
	k := max(through, n-s.keepRecent())
	if budget > 0 {
		tail := int(s.threshold() * float64(budget) / 2)
		k += sort.Search(n-k, func(i int) bool { return c.EstimatedRange(k+i, n) <= tail })
	}
	for k < n && msgs[k].Role == model.RoleTool {
		k++
	}
	return min(k, lastSafe)
}

// maxSummaryTokens returns the cap of one summary for a budget (0 =
// unbounded): an eighth of the budget at most, so that a summary call
// with the summary so far, a transcript and its answer fits in one call
// in the usual case.
func (s *Summarize) maxSummaryTokens(budget int) int {
	m := s.MaxSummaryTokens
	if m <= 0 {
		m = DefaultMaxSummaryTokens
	}
	if budget > 0 {
		m = min(m, budget/8)
	}
	return m
}

// summaryBytes is the longest summary kept for a budget, in bytes. The
// estimates are raw (the agent's ~4 bytes a token) while budget and the
// cap are in server tokens, which the conversation's calibration converts.
func (s *Summarize) summaryBytes(c *agent.Conversation, budget int) int {
	return int(float64(s.maxSummaryTokens(budget))/c.Scale()) * bytesPerToken
}

// summarize folds msgs into prev and returns the new summary. Each summary
// call must fit the budget: the prompt, the summary so far, a piece of
// transcript, and room for the answer. Usually one call takes all of
// msgs; when it cannot (a resumed history far over the budget) they are
// folded piece by piece, each call taking what fits. With budget 0 one
// call takes everything.
func (s *Summarize) summarize(ctx context.Context, c *agent.Conversation, prev string, msgs []model.Message, budget int) (string, error) {
	maxOut := s.maxSummaryTokens(budget)
	prompt := s.prompt()
	outBytes := s.summaryBytes(c, budget)
	// The fixed part of a call: the system prompt, the fences, the
	// message framing, and a token for each of three roundings.
	fixed := agent.EstimateTextTokens(len(prompt)) + agent.EstimateTextTokens(summaryFrameBytes) + 4 + 3
	for i := 0; i < len(msgs); {
		chunkBytes := 0
		if budget > 0 {
			allow := int(float64(budget-maxOut)/c.Scale()) - fixed - agent.EstimateTextTokens(len(prev))
			if maxOut < 1 || allow < minChunkTokens {
				return "", fmt.Errorf("a budget of %d tokens leaves no room to summarize with a %d-token prompt; use a model with a larger context window or a shorter summary prompt",
					budget, agent.EstimateTextTokens(len(prompt)))
			}
			chunkBytes = allow * bytesPerToken
		}
		var chunk string
		chunk, i = takeChunk(msgs, i, chunkBytes)
		sum, err := s.call(ctx, prev, chunk, maxOut)
		if err != nil {
			return "", err
		}
		prev = clip(sum, outBytes)
	}
	return prev, nil
}

// call makes one summary call.
func (s *Summarize) call(ctx context.Context, prev, transcript string, maxOut int) (string, error) {
	req := &model.Request{
		Model:     s.Model,
		System:    s.prompt(),
		Messages:  []model.Message{model.UserText(summaryInput(prev, transcript))},
		MaxTokens: maxOut,
	}
	resp, err := model.Collect(s.Provider.Stream(ctx, req))
	if err != nil {
		return "", fmt.Errorf("summary call: %w", err)
	}
	text := strings.TrimSpace(resp.Message.Text())
	if text == "" {
		return "", errEmptySummary
	}
	return text, nil
}

// oneLine flattens an error message into one bounded line for an event.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return clip(s, 300)
}
