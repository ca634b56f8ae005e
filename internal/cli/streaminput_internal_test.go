package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseStreamInput(t *testing.T) {
	tests := []struct {
		line, want, err string
	}{
		{`{"type":"user","message":{"role":"user","content":"hi there"}}`, "hi there", ""},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"session_id":"default","parent_tool_use_id":null}`, "a\n\nb", ""},
		{`{"type":"assistant","message":{"role":"assistant","content":"x"}}`, "", `type is "assistant"`},
		{`{"type":"user"}`, "", `no "message"`},
		{`{"type":"user","message":{"role":"system","content":"x"}}`, "", `role is "system"`},
		{`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{}}]}}`, "", `content block 1 is of type "image"`},
		{`{"type":"user","message":{"role":"user","content":42}}`, "", "a string or a list of text blocks"},
		{`{"type":"user","message":{"role":"user","content":"  "}}`, "", "empty"},
		{`{"type":"user","message":{"role":"user","content":"a"}} {"type":"user"}`, "", "more than one JSON value"},
		{`{"type":"user","message":{"role":"user","content":"trunc`, "", "not a JSON object"},
		{`hello`, "", "not a JSON object"},
		{``, "", "not a JSON object"},
	}
	for _, tt := range tests {
		got, err := parseStreamInput([]byte(tt.line))
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %q, %v; want %q", tt.line, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one containing %q", tt.line, err, tt.err)
		}
	}
}

// FuzzParseStreamInput: any line is either refused with a one-line
// reason or gives non-empty text; it never panics.
func FuzzParseStreamInput(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"hi"}}`))
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"}]}}`))
	f.Add([]byte(`{"type":"user","message":null}`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		text, err := parseStreamInput(line)
		if err != nil {
			if text != "" || err.Error() == "" {
				t.Fatalf("error %v with text %q", err, text)
			}
			return
		}
		if strings.TrimSpace(text) == "" {
			t.Fatalf("accepted empty text from %q", line)
		}
		if utf8.ValidString(string(line)) && !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 text %q from valid line", text)
		}
	})
}
