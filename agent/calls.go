package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/tool"
)

// callState is one tool call's way through a turn.
type callState struct {
	call model.ToolCall
	// decision is the one the tool.decision event points to: kept here,
	// in memory the turn already has, rather than allocated per call.
	decision Decision
	// canon is the canonical form of the arguments (RFC 8785), the repeat
	// guard's notion of "same arguments": often call.Args itself (see
	// isCanonical), so it is read-only, like the arguments.
	canon []byte
	// problem, when set, says why the arguments cannot be used; the call
	// is refused with it.
	problem string
	tool    tool.Tool
	key     string
	// run marks a call the policy allowed.
	run bool
	// denied marks a policy or approver denial (not an unknown tool).
	denied bool
	// unanswered marks a denial only because no one could be asked
	// (unanswered.go); it is not counted as a denial.
	unanswered bool
	result     model.ToolResult
	// structured is the tool's Structured result (Event.ToolStructured).
	structured json.RawMessage
	finish     bool
	// recorded is the tool.result event journaled as soon as the call
	// finished, so a crash later in the turn cannot lose a result that
	// exists; recordErr is the journal's refusal of it.
	recorded  *Event
	recordErr error
	steerCall // PreToolUse state (steering.go)
}

// sanitizeAssistant makes an assistant message safe to record and to send
// back: every tool call gets a non-empty ID unique within the message (a
// duplicate or missing ID is replaced, so each call can get exactly one
// result), and arguments that are not a JSON object are replaced by "{}"
// (model APIs reject them on the next request) with the problem noted for
// the call's result. It returns the message and the calls' states in order.
// It rewrites the message's own parts, which the model.Builder created
// fresh for this response. The states come from arrays.
func sanitizeAssistant(msg model.Message, ids IDs, arrays *turnArrays) (model.Message, []callState) {
	n := 0
	for _, p := range msg.Parts {
		if p.Kind == model.PartToolCall && p.ToolCall != nil {
			n++
		}
	}
	if n == 0 {
		return msg, nil
	}
	states := arrays.states.take(n)[:0]
	var seen map[string]bool
	if n > 1 {
		seen = make(map[string]bool, n)
	}
	for i := range msg.Parts {
		p := &msg.Parts[i]
		if p.Kind != model.PartToolCall || p.ToolCall == nil {
			continue
		}
		tc := p.ToolCall
		if tc.ID == "" || seen[tc.ID] {
			tc.ID = ids.NewID("call")
		}
		if seen != nil {
			seen[tc.ID] = true
		}
		canon, problem := canonicalArgs(tc.Args)
		if problem != "" || len(tc.Args) == 0 {
			tc.Args = []byte(`{}`)
		}
		states = append(states, callState{call: *tc, canon: canon, problem: problem})
	}
	return msg, states
}

// emptyObject is the canonical form of no arguments. It is shared: no one
// writes to a canon.
var emptyObject = []byte(`{}`)

// canonicalArgs returns the canonical JSON of args — args itself when it
// is canonical already — or why they are not a usable JSON object.
// Duplicate member names are refused: a policy and a tool could read
// different values from them.
func canonicalArgs(args []byte) ([]byte, string) {
	switch string(args) {
	case "", "{}":
		return emptyObject, ""
	}
	if isCanonical(args) {
		return args, ""
	}
	v := jsontext.Value(slices.Clone(args))
	if err := v.Canonicalize(); err != nil {
		return nil, "the arguments are not valid JSON (" + err.Error() + "); call the tool again with a JSON object"
	}
	if len(v) == 0 || v[0] != '{' {
		return nil, "the arguments must be a JSON object, not " + kindName(v) + "; call the tool again with a JSON object"
	}
	return v, ""
}

// kindName names the kind of a valid JSON value for the model.
func kindName(v jsontext.Value) string {
	switch v.Kind() {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a JSON " + v.Kind().String()
}

// repeatGuard spots the same tool called with the same arguments and
// getting the same result again and again: a model stuck in a loop. Results
// are compared with their volatile parts (durations, timestamps) masked, so
// a command that fails the same way in 8ms and then in 20ms still counts.
type repeatGuard struct {
	name, content string
	// canon is a copy of the last call's canonical arguments, in a buffer
	// reused from call to call.
	canon []byte
	// masked is content with maskVolatile applied, computed only when a
	// later result needs the comparison.
	masked    string
	hasMasked bool
	isError   bool
	count     int
}

// observe records one finished call in call order and reports whether it
// made limit identical calls in a row.
func (g *repeatGuard) observe(st *callState, limit int) bool {
	if g.count > 0 && st.call.Name == g.name && bytes.Equal(st.canon, g.canon) &&
		st.result.IsError == g.isError && g.sameResult(st.result.Content) {
		g.count++
	} else {
		*g = repeatGuard{name: st.call.Name, canon: append(g.canon[:0], st.canon...), content: st.result.Content,
			isError: st.result.IsError, count: 1}
	}
	return g.count >= limit
}

// sameResult compares content with the previous result: equal bytes, or
// equal once volatile parts are masked. The masked form of the latest
// result is kept for the next comparison.
func (g *repeatGuard) sameResult(content string) bool {
	if content == g.content {
		return true
	}
	if !g.hasMasked {
		g.masked, g.hasMasked = maskVolatile(g.content), true
	}
	m := maskVolatile(content)
	if m != g.masked {
		return false
	}
	g.content = content
	g.masked = m
	return true
}

// onToolCallStart reports a tool call the model began to stream. The call
// is copied without arguments: the event must not share the provider's
// memory, and the arguments are not known yet. The id is the provider's;
// sanitizeAssistant may still replace a duplicate or missing one, so
// consumers match on the tool.call event for anything that counts.
func (r *run) onToolCallStart(c *model.ToolCall) bool {
	if c == nil || c.Name == "" {
		return true
	}
	started := model.ToolCall{ID: c.ID, Name: clip(c.Name, tool.MaxNameLen)}
	if err := r.emit(Event{Type: EventToolCallStarted, ToolCall: &started}); err != nil {
		r.streamErr = err
		return false
	}
	return true
}

// errorResult is an is_error result for st.
func errorResult(st *callState, content string) model.ToolResult {
	return model.ToolResult{CallID: st.call.ID, Name: st.call.Name, Content: content, IsError: true}
}

// plural formats n and a noun with an English plural.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// clip shortens s, which may be model output, to at most n bytes on a
// UTF-8 boundary, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
