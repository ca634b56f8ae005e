package agent

import (
	"context"
	"sort"
	"strconv"

	"github.com/reinharness/rein/model"
)

// ContextStrategy chooses the history sent on each model call.
//
// Prepare returns the history to send for the next call within budget
// tokens (0 = unbounded) and a non-nil CompactionInfo when it omitted or
// rewrote anything. The budget already excludes the system prompt, the
// instructions, the tool specs and the room reserved for the answer, which
// travel outside the history and can never be compacted away. Prepare must
// not modify c or the messages it holds, must never return a tool-result
// message without the assistant message that made the calls right before
// it, and may return c.Messages() itself. It is called from the run's
// goroutine; implementations shared by concurrent runs must be safe for
// concurrent use.
type ContextStrategy interface {
	Prepare(ctx context.Context, c *Conversation, budget int) ([]model.Message, *CompactionInfo, error)
}

// Window is the default ContextStrategy: a token-budget window over the
// newest messages.
//
// When the history does not fit it drops the oldest messages first, cutting
// only in front of a non-tool message so a tool result always travels with
// the call that produced it; keeps the latest user message (the current
// task) even when the messages around it go; and says what it did with a
// marker the model can read. Costs come from the Conversation's prefix sums,
// so choosing the cut is O(log n) and only the kept messages are copied.
// Window is stateless and safe for concurrent use.
type Window struct{}

// windowMarkerTokens is a generous estimate of the marker text.
const windowMarkerTokens = messageOverhead + 20

// Prepare implements ContextStrategy.
func (Window) Prepare(_ context.Context, c *Conversation, budget int) ([]model.Message, *CompactionInfo, error) {
	msgs := c.Messages()
	n := len(msgs)
	if budget <= 0 || c.EstimatedTokens(0) <= budget {
		return msgs, nil, nil
	}
	lastSafe := n - 1
	for lastSafe >= 0 && msgs[lastSafe].Role == model.RoleTool {
		lastSafe--
	}
	if lastSafe <= 0 {
		// No cut point leaves anything out without orphaning a tool
		// result: send it all and let the server judge.
		return msgs, nil, nil
	}
	task := c.LastUserIndex()
	var s int
	keepTask := false
	if task > 0 && c.EstimatedTokens(task)+windowMarkerTokens <= budget {
		// The window can start at or before the task: find the earliest
		// start that fits.
		s = 1 + sort.Search(task, func(i int) bool {
			return c.EstimatedTokens(i+1)+windowMarkerTokens <= budget
		})
	} else {
		// Even the task and everything after it do not fit: keep the task
		// on its own and the newest messages that fit after it.
		lo := task + 1
		keepTask = task >= 0
		fixed := windowMarkerTokens
		if keepTask {
			fixed += c.EstimatedRange(task, task+1)
		}
		s = lo + sort.Search(lastSafe-lo+1, func(i int) bool {
			return c.EstimatedTokens(lo+i)+fixed <= budget
		})
		// Best effort when nothing fits: the last turn still goes out.
		s = min(s, lastSafe)
		if s <= task {
			s, keepTask = task, false
		}
	}
	for s < n && msgs[s].Role == model.RoleTool {
		s++
	}
	return windowed(c, msgs, s, task, keepTask)
}

// windowed assembles the marker, the kept task (when it lies before s) and
// msgs[s:].
func windowed(c *Conversation, msgs []model.Message, s, task int, keepTask bool) ([]model.Message, *CompactionInfo, error) {
	n := len(msgs)
	kept := n - s
	if keepTask {
		kept++
	}
	omitted := n - kept
	if omitted == 0 {
		// The only cut that fits the rules keeps everything.
		return msgs, nil, nil
	}
	marker := model.TextPart("[rein: " + strconv.Itoa(omitted) +
		" earlier messages omitted to fit the context window]")
	out := make([]model.Message, 0, kept+1)
	first := -1 // the user message the marker merges into
	switch {
	case keepTask:
		first = task
	case msgs[s].Role == model.RoleUser:
		first = s
		s++
	}
	if first >= 0 {
		parts := make([]model.Part, 0, len(msgs[first].Parts)+1)
		parts = append(parts, marker)
		parts = append(parts, msgs[first].Parts...)
		out = append(out, model.Message{Role: model.RoleUser, Parts: parts})
	} else {
		out = append(out, model.Message{Role: model.RoleUser, Parts: []model.Part{marker}})
	}
	out = append(out, msgs[s:]...)
	est := windowMarkerTokens + c.EstimatedTokens(s)
	if first >= 0 {
		est += c.EstimatedRange(first, first+1)
	}
	return out, &CompactionInfo{
		Strategy:        "window",
		OmittedMessages: omitted,
		KeptMessages:    kept,
		EstimatedTokens: est,
	}, nil
}
