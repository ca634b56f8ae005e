package model

// EventKind tells which fields of an Event are set.
type EventKind uint8

// Event kinds, in the order a provider typically yields them.
const (
	// EventTextDelta carries Text: a fragment of visible assistant text.
	EventTextDelta EventKind = iota + 1
	// EventReasoningDelta carries Text: a fragment of reasoning.
	EventReasoningDelta
	// EventReasoningEnd closes a reasoning block; it carries the block's
	// Signature (may be empty) or its Redacted payload.
	EventReasoningEnd
	// EventToolCall carries a complete ToolCall with parsed arguments.
	EventToolCall
	// EventUsage carries Usage; it may arrive more than once, each a
	// cumulative snapshot for this call (the last one wins).
	EventUsage
	// EventStop carries StopReason; it is the last event of a successful
	// stream.
	EventStop
	// EventToolCallStart announces a tool call the model began to stream,
	// before its arguments are complete: ToolCall carries the call's ID and
	// Name and no Args. It is advisory, for showing progress: the
	// EventToolCall that follows is the call, and a consumer must not act
	// on the start alone (Builder ignores it). The Anthropic provider
	// sends it at a tool_use block's start; the OpenAI provider as soon as
	// a call's name and id are known, which for servers that send no id is
	// just before the complete call, with the id derived for it. A
	// non-streamed response may not carry it. (It is numbered last so the
	// older kinds keep their values.)
	EventToolCallStart
)

// String names the kind.
func (k EventKind) String() string {
	switch k {
	case EventTextDelta:
		return "text_delta"
	case EventReasoningDelta:
		return "reasoning_delta"
	case EventReasoningEnd:
		return "reasoning_end"
	case EventToolCall:
		return "tool_call"
	case EventUsage:
		return "usage"
	case EventStop:
		return "stop"
	case EventToolCallStart:
		return "tool_call_start"
	}
	return "unknown"
}

// Event is one item of a provider stream.
type Event struct {
	Kind       EventKind
	Text       string
	Signature  string
	Redacted   string
	ToolCall   *ToolCall
	Usage      *Usage
	StopReason StopReason
}

// StopReason is why the model stopped, normalised across providers.
type StopReason string

// Normalised stop reasons. Providers map theirs onto these and keep
// anything unknown as StopOther.
const (
	StopEndTurn       StopReason = "end_turn"
	StopToolUse       StopReason = "tool_use"
	StopMaxTokens     StopReason = "max_tokens"
	StopSequence      StopReason = "stop_sequence"
	StopContentFilter StopReason = "content_filter"
	StopOther         StopReason = "other"
)

// Usage is token accounting reported by the server for one call.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
	// Timings is llama.cpp's per-request timing block, when present.
	Timings *Timings `json:"timings,omitempty"`
}

// Add accumulates u2 into u (Timings are not summed; the latest wins).
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CacheReadTokens += u2.CacheReadTokens
	u.CacheWriteTokens += u2.CacheWriteTokens
	u.ReasoningTokens += u2.ReasoningTokens
	if u2.Timings != nil {
		u.Timings = u2.Timings
	}
}

// Timings is llama.cpp's `timings` object.
type Timings struct {
	PromptN            int     `json:"prompt_n"`
	PromptMS           float64 `json:"prompt_ms"`
	PromptPerSecond    float64 `json:"prompt_per_second"`
	PredictedN         int     `json:"predicted_n"`
	PredictedMS        float64 `json:"predicted_ms"`
	PredictedPerSecond float64 `json:"predicted_per_second"`
	CacheN             int     `json:"cache_n,omitempty"`
}
