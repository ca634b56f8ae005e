package openai

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/reinharness/rein/model"
)

// maxArgsSnippet bounds how much of a broken argument string an error
// quotes: enough to recognise the problem, not a whole file the model was
// trying to write.
const maxArgsSnippet = 120

// maxToolArgs bounds the assembled arguments of one tool call, so a
// hostile stream cannot grow them without end.
const maxToolArgs = 16 << 20

// argFragment is one "arguments" value of a tool call on the wire. Servers
// send it as a JSON string holding (a fragment of) the arguments, and some
// OpenAI-compatible servers send the complete arguments as a JSON object.
type argFragment struct {
	text   []byte // the decoded string value, or the raw object/array bytes
	object bool   // text holds raw JSON (the server sent a non-string value)
}

// UnmarshalJSON accepts a string, an object (or any other JSON value) and
// null.
func (a *argFragment) UnmarshalJSON(b []byte) error {
	a.text, a.object = a.text[:0], false
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		a.text = append(a.text, s...)
	default:
		a.text, a.object = append(a.text, b...), true
	}
	return nil
}

// callBuilder assembles one tool call from its streamed fragments: the id
// and name arrive with the first fragment, the arguments in pieces.
type callBuilder struct {
	index   int // the call's index on the wire
	id      string
	name    string
	args    []byte
	object  bool // args came as a JSON value rather than string fragments
	started bool // its EventToolCallStart was yielded
}

// addArgs appends one argument fragment.
func (b *callBuilder) addArgs(f *argFragment) error {
	if len(f.text) == 0 {
		return nil
	}
	if len(b.args)+len(f.text) > maxToolArgs {
		return fmt.Errorf("%w: tool call %d: arguments exceed %d MiB", ErrMalformedResponse, b.index, maxToolArgs>>20)
	}
	if f.object || b.object {
		// A JSON value is the complete arguments; it cannot be combined with
		// other fragments.
		if len(b.args) > 0 {
			return fmt.Errorf("%w: tool call %d mixes argument fragments with a JSON object", ErrMalformedResponse, b.index)
		}
		b.object = true
	}
	b.args = append(b.args, f.text...)
	return nil
}

// build completes the call: it fills a missing id and parses the
// arguments, repairing them lightly when needed. Arguments that are no
// JSON object even after the repair are passed through as they came
// (trimmed, and bounded by maxToolArgs on the way in): they are the model's
// mistake, not the server's, so rather than fail the whole response the
// call carries them and the agent answers it with an is_error result
// naming the problem (model.ToolCall documents this).
func (b *callBuilder) build(responseID string) *model.ToolCall {
	args, err := finishArgs(b.args)
	if err != nil {
		args = json.RawMessage(bytes.Clone(bytes.TrimSpace(b.args)))
	}
	id := b.id
	if id == "" {
		id = fallbackCallID(responseID, b.index, b.name, args)
	}
	return &model.ToolCall{ID: id, Name: b.name, Args: args}
}

// fallbackCallID derives an id for a call the server sent without one. It
// is deterministic, so replaying a recorded stream gives the same id, and
// it mixes in the name and arguments so that servers which also omit the
// response id do not produce the same id on every turn.
func fallbackCallID(responseID string, index int, name string, args []byte) string {
	h := sha256.New()
	h.Write([]byte(responseID))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(index)))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(args)
	return "call_" + hex.EncodeToString(h.Sum(nil)[:12])
}

// finishArgs turns assembled argument text into a JSON object. Empty
// arguments mean "no arguments" ({}). Invalid JSON gets a light, safe repair
// (see repairArgs); what cannot be repaired is an error, never a guess: the
// arguments may drive a destructive tool.
func finishArgs(raw []byte) (json.RawMessage, error) {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return json.RawMessage("{}"), nil
	}
	if obj, ok := asObject(s, 0); ok {
		return obj, nil
	}
	if obj, ok := repairArgs(s); ok {
		return obj, nil
	}
	return nil, fmt.Errorf("arguments are not a JSON object: %s", snippet(s))
}

// asObject returns s as a JSON object when it is one, when it is a JSON
// string holding one (double-encoded arguments, as some servers send), or
// null (no arguments).
func asObject(s []byte, depth int) (json.RawMessage, bool) {
	if !json.Valid(s) {
		return nil, false
	}
	switch s[0] {
	case '{':
		return json.RawMessage(bytes.Clone(s)), true
	case 'n':
		return json.RawMessage("{}"), true
	case '"':
		if depth > 0 {
			return nil, false
		}
		var inner string
		if json.Unmarshal(s, &inner) != nil {
			return nil, false
		}
		t := bytes.TrimSpace([]byte(inner))
		if len(t) == 0 || t[0] != '{' {
			return nil, false
		}
		return asObject(t, depth+1)
	}
	return nil, false
}

// repairArgs fixes the mistakes small local models make around otherwise
// complete arguments: a Markdown code fence, stray tokens before or after
// the object, and trailing commas. It never invents content, so truncated
// arguments stay an error.
func repairArgs(s []byte) (json.RawMessage, bool) {
	s = stripFence(s)
	if obj, ok := asObject(s, 0); ok {
		return obj, true
	}
	if i, j := bytes.IndexByte(s, '{'), bytes.LastIndexByte(s, '}'); i >= 0 && j > i {
		s = s[i : j+1]
		if obj, ok := asObject(s, 1); ok {
			return obj, true
		}
	}
	if fixed := dropTrailingCommas(s); len(fixed) != len(s) {
		if obj, ok := asObject(fixed, 1); ok {
			return obj, true
		}
	}
	return nil, false
}

// stripFence removes a surrounding ``` or ```json fence.
func stripFence(s []byte) []byte {
	if !bytes.HasPrefix(s, []byte("```")) {
		return s
	}
	s = s[3:]
	if nl := bytes.IndexByte(s, '\n'); nl >= 0 && bytes.IndexByte(s[:nl], '{') < 0 {
		s = s[nl+1:] // the info string, e.g. "json"
	}
	s = bytes.TrimSpace(s)
	s = bytes.TrimSuffix(s, []byte("```"))
	return bytes.TrimSpace(s)
}

// dropTrailingCommas removes commas that directly precede a closing brace
// or bracket (ignoring whitespace), outside string literals.
func dropTrailingCommas(s []byte) []byte {
	out := make([]byte, 0, len(s))
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\r' || s[j] == '\t') {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// snippet quotes the start of s for an error message, with anything that
// looks like a secret redacted.
func snippet(s []byte) string {
	if len(s) <= maxArgsSnippet {
		return strconv.Quote(redactMessage(string(s)))
	}
	return strconv.Quote(redactMessage(cut(string(s), maxArgsSnippet))) + fmt.Sprintf(" (%d bytes)", len(s))
}

// cut shortens s to at most n bytes without splitting a UTF-8 sequence,
// marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
