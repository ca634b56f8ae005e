package jsonscan_test

import (
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinharness/rein/internal/jsonscan"
)

// engine is how the providers configure the json/v2 engine, which the
// scanner must never contradict.
var engine = jsonv2.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// TestSkip checks which values Skip takes and which it leaves to the
// engine. Declining valid input is allowed (the caller falls back);
// accepting invalid input is not.
func TestSkip(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":[1,-0.5e+3,true,false,null,"x\u00e9\ud83d\ude00\n"],"b":{}}`, true},
		{` [ ] `, true},
		{"\"\xff\xfe\"", true}, // the engine accepts invalid UTF-8
		{`{"a\u0041":1}`, true},
		{`"\ud83d"`, false}, // lone surrogate: declined
		{`"\ude00"`, false},
		{`01`, false},
		{`1.`, false},
		{`-`, false},
		{`.5`, false},
		{`1e`, false},
		{`+1`, false},
		{`tru`, false},
		{`nul`, false},
		{`"\x"`, false},
		{`"\u12"`, false},
		{"\"\x01\"", false},
		{`"abc`, false},
		{`{"a":1,}`, false},
		{`[1,]`, false},
		{`[,1]`, false},
		{`{"a" 1}`, false},
		{`{,"a":1}`, false},
		{`{1:1}`, false},
		{`[1 2]`, false},
		{`1 2`, false},
		{``, false},
		{strings.Repeat("[", 65) + strings.Repeat("]", 65), false}, // deeper than the fast path goes
		{strings.Repeat("[", 64) + strings.Repeat("]", 64), true},
	}
	for _, tt := range tests {
		var s jsonscan.Scanner
		s.Reset([]byte(tt.in))
		s.Skip()
		if got := s.Done(); got != tt.want {
			t.Errorf("Skip(%q) accepted = %v, want %v", tt.in, got, tt.want)
		}
		if tt.want && !jsontext.Value(tt.in).IsValid(engine) {
			t.Errorf("test case %q is not valid for the engine", tt.in)
		}
	}
}

// TestString checks decoding, including every escape, against the engine.
func TestString(t *testing.T) {
	for _, in := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u0000\u001f\u00e9\u2603\uFFFD"`, `"\ud83d\ude00 and \uD83D\uDE00"`,
		`"☃ 😀 ünïcödé"`, `"` + strings.Repeat("long text without escapes ", 20) + `"`,
	} {
		var s jsonscan.Scanner
		s.Reset([]byte(in))
		v := s.String()
		if !s.Done() {
			t.Errorf("String(%q) declined", in)
			continue
		}
		var want string
		if err := jsonv2.Unmarshal([]byte(in), &want, engine); err != nil {
			t.Fatal(err)
		}
		var c jsonscan.Strings
		if got := string(v.AppendTo(nil)); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if got := c.Make(v); got != want || c.Make(v) != want {
			t.Errorf("Strings.Make(%q) = %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{"\"\xff\"", "\"\xed\xa0\x80\"", `"\ud800"`, `"\ud800\u0041"`, `5`, `null`} {
		var s jsonscan.Scanner
		s.Reset([]byte(in))
		s.String()
		if s.Done() {
			t.Errorf("String(%q) accepted, want it left to the engine", in)
		}
	}
}

// FuzzScanner is the differential check of the scanner against the
// engine: whatever Skip, String or Int accept, the engine accepts too, and
// decodes to the same value.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0.5e+3,true,false,null,"x\u00e9\ud83d\ude00\n"],"b":{}}`, `"a\"b\\c\/d\b\f\n\r\t\u0000"`, `"\ud83d\ude00"`,
		`0`, `123456789`, `1234567890`, `-1`, `1.5`, `01`, "\"\xff\"", `"\ud800"`, `[[[]]]`, `{"a\u0041":"b"}`, ` 7 `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var s jsonscan.Scanner
		s.Reset(in)
		s.Skip()
		if s.Done() && !jsontext.Value(in).IsValid(engine) {
			t.Fatalf("Skip accepted %q, which the engine rejects", in)
		}
		s.Reset(in)
		if v := s.String(); s.Done() {
			var want string
			if err := jsonv2.Unmarshal(in, &want, engine); err != nil {
				t.Fatalf("String accepted %q, which the engine rejects: %v", in, err)
			}
			if got := string(v.AppendTo(nil)); got != want {
				t.Fatalf("String(%q) = %q, the engine says %q", in, got, want)
			}
		}
		s.Reset(in)
		if n := s.Int(); s.Done() {
			var want int
			if err := jsonv2.Unmarshal(in, &want, engine); err != nil || n != want {
				t.Fatalf("Int(%q) = %d, the engine says %d, %v", in, n, want, err)
			}
		}
	})
}
