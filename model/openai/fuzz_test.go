package openai_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/openai"
)

// toolArgsStream encodes args as the arguments of one streamed tool call:
// split into string fragments at rune boundaries chosen by seed (servers
// send whole JSON strings, so a fragment never splits a rune), or as one
// raw JSON value when asObject is set.
func toolArgsStream(args string, seed uint64, asObject bool) string {
	first := `{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":%s}}]}}]}`
	next := `{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}}]}`
	finish := `{"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`
	if asObject {
		return sse(fmt.Sprintf(first, args), finish)
	}
	var chunks []string
	rest := args
	for i := 0; ; i++ {
		n := len(rest)
		if seed != 0 {
			n = min(n, int(seed%7))
			seed /= 7
		}
		for n < len(rest) && !utf8.RuneStart(rest[n]) {
			n++
		}
		frag, _ := json.Marshal(rest[:n])
		tmpl := next
		if i == 0 {
			tmpl = first
		}
		chunks = append(chunks, fmt.Sprintf(tmpl, frag))
		rest = rest[n:]
		if rest == "" {
			break
		}
	}
	return sse(append(chunks, finish)...)
}

// FuzzToolCallArgs checks tool-argument assembly and repair: whatever the
// fragments, the result is a JSON object or ErrMalformedResponse, a valid
// object is never altered, and empty arguments mean {}.
func FuzzToolCallArgs(f *testing.F) {
	for _, s := range []string{
		`{"location":"Florence, Italy"}`, `{"a": 2, "b": 3}`, ``, `  `, `null`, `"{\"k\":1}"`,
		"```json\n{\"k\":1}\n```", `{"a":1,}`, `<|call|>{"a":1}<|end|>`, `{"path":"x","content":"trunc`,
		`[1,2]`, `"just a string"`, `{"emoji":"☃ 😀"}`, `{"nested":{"deep":[{"x":null}]}}`, "\xff\xfe",
	} {
		f.Add(s, uint64(0), false)
		f.Add(s, uint64(123456789), false)
		f.Add(s, uint64(0), true)
	}
	f.Fuzz(func(t *testing.T, args string, seed uint64, asObject bool) {
		trimmed := strings.TrimSpace(args)
		if asObject && (trimmed == "" || !json.Valid([]byte(trimmed))) {
			asObject = false // a raw value must be valid JSON to embed in a chunk
		}
		evs, err := collectEvents(openai.ParseStream(strings.NewReader(toolArgsStream(args, seed, asObject))))
		isObject := json.Valid([]byte(trimmed)) && strings.HasPrefix(trimmed, "{")
		if err != nil {
			if !errors.Is(err, openai.ErrMalformedResponse) {
				t.Fatalf("error %v is not ErrMalformedResponse", err)
			}
			if isObject && utf8.ValidString(args) {
				t.Fatalf("valid object arguments %q rejected: %v", args, err)
			}
			return
		}
		var call *model.ToolCall
		for _, ev := range evs {
			if ev.Kind == model.EventToolCall {
				if call != nil {
					t.Fatalf("two tool calls from one: %+v", evs)
				}
				call = ev.ToolCall
			}
		}
		if call == nil || evs[len(evs)-1].Kind != model.EventStop {
			t.Fatalf("events %+v: want one tool call and a final stop", evs)
		}
		got := bytes.TrimSpace(call.Args)
		if !json.Valid(got) || len(got) == 0 || got[0] != '{' {
			// Passed through for the agent to refuse: only what no
			// repair could turn into an object.
			if _, err := openai.FinishArgs(got); err == nil || len(got) == 0 {
				t.Fatalf("arguments %q became %q, not a JSON object, though they can be repaired", args, call.Args)
			}
			return
		}
		switch {
		case trimmed == "":
			if string(got) != "{}" {
				t.Fatalf("empty arguments became %q, want {}", got)
			}
		case isObject && utf8.ValidString(args):
			if string(got) != trimmed {
				t.Fatalf("valid arguments %q were altered to %q", trimmed, got)
			}
		}
		direct, err := openai.FinishArgs([]byte(args))
		if err == nil && (!json.Valid(direct) || bytes.TrimSpace(direct)[0] != '{') {
			t.Fatalf("FinishArgs(%q) = %q, not a JSON object", args, direct)
		}
	})
}
