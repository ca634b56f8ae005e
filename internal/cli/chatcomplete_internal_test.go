package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePromptQuery: only an input that ends inside a /prompt
// argument's value asks for completion; earlier pairs are its context and
// escapes are decoded.
func TestParsePromptQuery(t *testing.T) {
	const p = `/prompt everything completable-prompt `
	for _, tc := range []struct {
		line string
		want *promptQuery
	}{
		{p + `{"department":"En`, &promptQuery{server: "everything", prompt: "completable-prompt", arg: "department", prefix: "En", done: map[string]string{}, start: len(p + `{"department":"`)}},
		{p + `{"department":"Sales", "name":"`, &promptQuery{server: "everything", prompt: "completable-prompt", arg: "name", done: map[string]string{"department": "Sales"}, start: len(p + `{"department":"Sales", "name":"`)}},
		{p + `{ "q" : "a\"b\u00e9`, &promptQuery{server: "everything", prompt: "completable-prompt", arg: "q", prefix: `a"bé`, done: map[string]string{}, start: len(p + `{ "q" : "`)}},
		{p + `{"department":"Sales"}`, nil},
		{p + `{"department":"Sales",`, nil},
		{p + `{"depart`, nil},
		{p + `{"q":"a\`, nil},
		{p + `{"q":"\u00`, nil},
		{p + `{"q":1,"r":"x`, nil},
		{`/prompt everything {"q":"x`, nil},
		{`/mcp complete everything p q {"q":"x`, nil},
		{`hello "world`, nil},
	} {
		got, ok := parsePromptQuery(tc.line)
		if tc.want == nil {
			if ok {
				t.Errorf("%q asked completion for %+v", tc.line, got)
			}
			continue
		}
		if !ok {
			t.Errorf("%q asked no completion", tc.line)
			continue
		}
		if diff := cmp.Diff(*tc.want, got, cmp.AllowUnexported(promptQuery{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.line, diff)
		}
	}
}

// TestJSONStringBody: a candidate goes into the JSON string as its
// escaped inside, which decodes back to it.
func TestJSONStringBody(t *testing.T) {
	for _, v := range []string{"Engineering", `say "hi"`, `a\b`, "<b>&", "tab\there"} {
		var back string
		if err := json.Unmarshal([]byte(`"`+jsonStringBody(v)+`"`), &back); err != nil || back != v {
			t.Errorf("%q → %q → %q (%v)", v, jsonStringBody(v), back, err)
		}
	}
	if got := jsonStringBody("<b>&"); got != "<b>&" {
		t.Errorf("HTML escaped: %q", got)
	}
}

// FuzzParsePromptQuery: any input parses without a panic, and a query's
// start points just past the quote that opens the value being typed,
// whose decoded text is the prefix.
func FuzzParsePromptQuery(f *testing.F) {
	for _, s := range []string{`/prompt s p {"a":"x`, `/prompt s p {"a":"x","b":"\u00e9`, `/prompt s p {"a":"x\`, `/prompt s p {`, `/prompt  s  p  {"":"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		q, ok := parsePromptQuery(line)
		if !ok {
			return
		}
		if q.start < 1 || q.start > len(line) || line[q.start-1] != '"' || !strings.HasPrefix(line, "/prompt ") {
			t.Fatalf("query %+v for %q", q, line)
		}
		var prefix string
		if err := json.Unmarshal([]byte(`"`+line[q.start:]+`"`), &prefix); err != nil || prefix != q.prefix {
			t.Fatalf("prefix %q, but the value's text %q decodes to %q (%v)", q.prefix, line[q.start:], prefix, err)
		}
	})
}
