package session

import (
	"bytes"
	"encoding/json"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/telemetry/redact"
)

// encoded is one event ready to be inserted.
type encoded struct {
	typ     string
	time    int64
	payload []byte
	idem    string // "" is stored as NULL
	callID  string // "" is stored as NULL
}

// encodeEvent redacts ev (remembering long texts in memo) and encodes it. The payload is the agent.Event
// JSON (the stream-json shape) without the session id, which the row
// already holds, so that a fork can copy payloads unchanged.
func encodeEvent(memo *redact.Memo, ev agent.Event) (encoded, error) {
	ev = memo.Event(ev)
	ev.RunID = ""
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Unescaped, a tool call's arguments are stored as the model sent
	// them ("2>&1", not "2\u003e\u00261"), and a resumed conversation
	// sends the same bytes back.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		return encoded{}, fmt.Errorf("encoding a %s event: %w", ev.Type, err)
	}
	payload := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return encoded{
		typ:     string(ev.Type),
		time:    ev.Time.UnixNano(),
		payload: payload,
		idem:    ev.IdempotencyKey,
		callID:  callID(ev),
	}, nil
}

// callID is the tool call an event concerns, "" for none.
func callID(ev agent.Event) string {
	switch {
	case ev.ToolCall != nil:
		return ev.ToolCall.ID
	case ev.ToolResult != nil:
		return ev.ToolResult.CallID
	case ev.Decision != nil:
		return ev.Decision.CallID
	}
	return ""
}

// decodeEvent decodes a stored payload for session id. Payloads are
// decoded with the json/v2 engine (about twice as fast as encoding/json
// here, which is most of a resume's time); they were written by
// encoding/json from the same tags, and v2 honours json.RawMessage's
// methods, so both read the same — except where the two engines' defaults
// differ on what the payload holds: a time.Duration (VerifyInfo's
// duration_ns) is written by encoding/json as integer nanoseconds, which
// v2 refuses by default, so decodeOptions restores v1's reading of it.
func decodeEvent(id string, payload []byte) (agent.Event, error) {
	var ev agent.Event
	if err := jsonv2.Unmarshal(payload, &ev, decodeOptions); err != nil {
		return agent.Event{}, err
	}
	ev.RunID = id
	return ev, nil
}

// decodeOptions make json/v2 read what encoding/json wrote: durations
// as integer nanoseconds. TestEveryEventTypeRoundTrips checks every
// field of every event type against it.
var decodeOptions = jsonv1.FormatDurationAsNano(true)

// stateEvent is the part of an event Load needs: the conversation, the
// state of its tool calls, its summaries and its plan. Decoding only these fields skips the rest
// (times, usage, outcomes) of thousands of events.
type stateEvent struct {
	Type       agent.EventType       `json:"type"`
	Message    *model.Message        `json:"message"`
	ToolCall   *model.ToolCall       `json:"tool_call"`
	Decision   *agent.Decision       `json:"decision"`
	ToolResult *model.ToolResult     `json:"tool_result"`
	Compaction *agent.CompactionInfo `json:"compaction"`
	Plan       []agent.PlanItem      `json:"plan"`
	AgentPath  string                `json:"agent_path"`
}

// decodeState decodes the fields of a stored payload that Load uses.
func decodeState(payload []byte) (agent.Event, error) {
	var se stateEvent
	if err := jsonv2.Unmarshal(payload, &se, decodeOptions); err != nil {
		return agent.Event{}, err
	}
	return agent.Event{Type: se.Type, Message: se.Message, ToolCall: se.ToolCall, Decision: se.Decision, ToolResult: se.ToolResult, Compaction: se.Compaction, Plan: se.Plan, AgentPath: se.AgentPath}, nil
}

// nullable maps "" to SQL NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// isDelta reports the high-volume streaming events that a message event
// repeats in full.
func isDelta(t agent.EventType) bool {
	return t == agent.EventTextDelta || t == agent.EventReasoningDelta
}

// isBarrier reports events that are committed before Append returns:
// a tool.call must be durable before its tool runs, and a message carries
// the conversation itself (the prompt, the answer, the tool results). The
// events in between (decisions, results, usage) ride along with the next
// barrier, which follows within the same turn.
func isBarrier(t agent.EventType) bool {
	switch t {
	case agent.EventToolCall, agent.EventMessage, agent.EventSessionCompleted:
		return true
	}
	return false
}

// userText returns the text of a user message event, for the title: its
// first text part, the user's prompt, without the context hooks appended
// as further parts.
func userText(ev agent.Event) string {
	if ev.Type != agent.EventMessage || ev.Message == nil || ev.Message.Role != model.RoleUser {
		return ""
	}
	return ev.Message.FirstText()
}
