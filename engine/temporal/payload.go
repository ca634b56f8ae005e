package temporal

import (
	"encoding/json"
	"fmt"

	"github.com/reinharness/rein/model"
)

// Temporal refuses payloads over 2 MB (its blob size limit); a refused
// payload fails the workflow task again and again, so the session would
// hang rather than fail. These bounds keep every payload rein makes under
// it with room for the envelope.
const (
	// maxPayload bounds one activity input or output.
	maxPayload = 1800 << 10
	// maxCarried bounds the history a continuation carries.
	maxCarried = 1500 << 10
	// droppedResult replaces old tool results when a continuation's
	// history must shrink.
	droppedResult = "[this result was dropped when the session continued as new, to keep it under Temporal's payload limit; call the tool again if you need it]"
)

// errPayloadTooLarge reports a model request Temporal could not carry.
var errPayloadTooLarge = fmt.Errorf("the conversation is larger than a Temporal payload can carry (%d KiB): lower [agent] max_result_bytes or set model.context_window so older messages are left out", maxPayload>>10)

// payloadSize is v's JSON size.
func payloadSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// fitHistory returns msgs, with the oldest tool results replaced by a
// note until the history's JSON fits in limit. The messages, their order
// and every call's pairing with its result stay, and so do the prompts.
// msgs is not modified.
func fitHistory(msgs []model.Message, limit int) []model.Message {
	size := payloadSize(msgs)
	if size <= limit {
		return msgs
	}
	out := make([]model.Message, len(msgs))
	copy(out, msgs)
	for i := range out {
		if size <= limit {
			break
		}
		parts := out[i].Parts
		copied := false
		for j, p := range parts {
			if p.ToolResult == nil || len(p.ToolResult.Content) <= len(droppedResult) {
				continue
			}
			if !copied {
				parts = append([]model.Part(nil), parts...)
				copied = true
			}
			r := *p.ToolResult
			size -= len(r.Content) - len(droppedResult)
			r.Content, r.IsError = droppedResult, false
			parts[j].ToolResult = &r
		}
		out[i].Parts = parts
	}
	return out
}
