package agent

import (
	"slices"

	"github.com/reinharness/rein/model"
)

// Token estimation. Without a tokenizer, ~4 bytes of English or code per
// token is the usual rule of thumb; the fixed overheads stand for the role
// and framing tokens every chat template adds. The estimate is calibrated
// against the server's reported input tokens as soon as one call reported
// usage, so the rule only has to be roughly right.
const (
	bytesPerToken   = 4
	messageOverhead = 4 // role + separators
	partOverhead    = 3 // tool-call / tool-result framing: id, name, delimiters
)

// Calibration is clamped so one odd usage report (a server that counts only
// uncached tokens, a tiny request) cannot make the estimates absurd.
const (
	minScale = 0.5
	maxScale = 4.0
	// minCalibrationTokens is the smallest estimated request worth
	// calibrating from: below it the fixed overheads dominate the ratio.
	minCalibrationTokens = 256
)

// EstimateMessageTokens estimates the tokens m costs in a request: its
// text, reasoning, tool names, arguments and results at ~4 bytes per token,
// plus per-message and per-part overheads. Signatures and redacted
// reasoning are opaque to the model's context accounting and not counted.
func EstimateMessageTokens(m model.Message) int {
	n := messageOverhead
	bytes := 0
	for _, p := range m.Parts {
		switch p.Kind {
		case model.PartText, model.PartReasoning:
			bytes += len(p.Text)
		case model.PartToolCall:
			n += partOverhead
			if p.ToolCall != nil {
				bytes += len(p.ToolCall.ID) + len(p.ToolCall.Name) + len(p.ToolCall.Args)
			}
		case model.PartToolResult:
			n += partOverhead
			if p.ToolResult != nil {
				bytes += len(p.ToolResult.CallID) + len(p.ToolResult.Content)
			}
		}
	}
	return n + EstimateTextTokens(bytes)
}

// EstimateTextTokens estimates the tokens of n bytes of text.
func EstimateTextTokens(n int) int {
	return (n + bytesPerToken - 1) / bytesPerToken
}

// Conversation is the harness's state and its single source of truth: the
// ordered messages of one conversation plus incremental token accounting.
//
// Append keeps a running prefix sum of per-message estimates, so the cost of
// any suffix of the history is known in O(1) and appending is O(new
// messages): nothing is ever re-estimated. A Conversation is not safe for
// concurrent use; run one Run at a time on it.
type Conversation struct {
	id   string
	msgs []model.Message
	// prefix[i] is the raw estimate of msgs[:i]; len(prefix) == len(msgs)+1.
	prefix []int
	// lastUser is the index of the latest user message, -1 if none.
	lastUser int
	// scale calibrates raw estimates to the server's token counts.
	scale float64
	usage model.Usage
	// plan is the model's current plan (the todo_write tool, plan.go).
	plan []PlanItem
}

// NewConversation returns a conversation holding history. An empty id is
// replaced by a random one. The messages are kept, not copied: the caller
// must not modify them afterwards.
func NewConversation(id string, history ...model.Message) *Conversation {
	if id == "" {
		id = randomIDs{}.NewID("run")
	}
	c := &Conversation{
		id:       id,
		msgs:     make([]model.Message, 0, len(history)+8),
		prefix:   make([]int, 1, len(history)+9),
		lastUser: -1,
		scale:    1,
	}
	c.Append(history...)
	return c
}

// ID returns the conversation's id; runs on it use it as their RunID.
func (c *Conversation) ID() string { return c.id }

// Len returns the number of messages.
func (c *Conversation) Len() int { return len(c.msgs) }

// Messages returns the history. The slice is shared with the conversation
// (no copy is made on the hot path of every model call) and must be treated
// as read-only; its capacity is clipped, so appending to it never writes
// into the conversation.
func (c *Conversation) Messages() []model.Message { return slices.Clip(c.msgs) }

// Append adds messages to the end of the history and accounts for them.
// The caller must not modify them afterwards.
func (c *Conversation) Append(m ...model.Message) {
	for _, msg := range m {
		if msg.Role == model.RoleUser {
			c.lastUser = len(c.msgs)
		}
		c.msgs = append(c.msgs, msg)
		c.prefix = append(c.prefix, c.prefix[len(c.prefix)-1]+EstimateMessageTokens(msg))
	}
}

// EstimatedTokens returns the estimated tokens of messages[from:], in O(1).
// from is clamped to [0, Len()].
func (c *Conversation) EstimatedTokens(from int) int {
	return c.EstimatedRange(from, len(c.msgs))
}

// EstimatedRange returns the estimated tokens of messages[from:to], in
// O(1). Both bounds are clamped to [0, Len()].
func (c *Conversation) EstimatedRange(from, to int) int {
	n := len(c.msgs)
	from = min(max(from, 0), n)
	to = min(max(to, from), n)
	return c.scaled(c.prefix[to] - c.prefix[from])
}

// LastUserIndex returns the index of the latest user message (the current
// task), or -1 when there is none.
func (c *Conversation) LastUserIndex() int { return c.lastUser }

// LastUsage returns the usage the server reported for the latest model call
// made on this conversation (zero before the first).
func (c *Conversation) LastUsage() model.Usage { return c.usage }

// Scale returns the calibration factor applied to raw estimates (1 until a
// usage report calibrated it).
func (c *Conversation) Scale() float64 { return c.scale }

// ObserveUsage records the usage of a model call whose request was
// estimated at estimated tokens (history, system prompt and tool specs, in
// current calibrated units) and recalibrates the estimates from the
// server's count. Cache reads and writes are included because some servers
// leave cached tokens out of input_tokens; a server that counts them twice
// only makes the estimates cautious.
func (c *Conversation) ObserveUsage(u model.Usage, estimated int) {
	c.usage = u
	reported := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	if reported <= 0 || estimated < minCalibrationTokens {
		return
	}
	s := c.scale * float64(reported) / float64(estimated)
	c.scale = min(max(s, minScale), maxScale)
}

func (c *Conversation) scaled(raw int) int {
	if c.scale == 1 {
		return raw
	}
	return int(float64(raw)*c.scale + 0.5)
}
