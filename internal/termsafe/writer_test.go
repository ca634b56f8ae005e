package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// inert reports the first character of s a terminal would obey: a C0
// control but newline and tab, DEL, C1, a format character or invalid
// UTF-8 ("" if none).
func inert(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || (r != '\n' && r != '\t' && hidden(r)) {
			return s[i : i+size]
		}
		i += size
	}
	return ""
}

func TestWriter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"osc52 \x1b]52;c;aGk=\x07\n", `osc52 \x1b]52;c;aGk=\x07` + "\n"},
		{"title \x1b]0;pwned\x1b\\", `title \x1b]0;pwned\x1b\`},
		{"dcs \x1bP1$qm\x1b\\ apc \x1b_x\x1b\\", `dcs \x1bP1$qm\x1b\ apc \x1b_x\x1b\`},
		{"c1 \u009b2J raw \x9b2J", `c1 \u009b2J raw \x9b2J`},
		{"bidi \u202etxt.exe\u202c \u2066x\u2069 \u200e\u200f\u061c", `bidi \u202etxt.exe\u202c \u2066x\u2069 \u200e\u200f\u061c`},
		{"cr\roverwrite", `cr\roverwrite`},
		{`already \x1b escaped`, `already \x1b escaped`}, // idempotent on escaped text
	}
	for _, tt := range tests {
		var b bytes.Buffer
		w := NewWriter(&b)
		n, err := w.Write([]byte(tt.in))
		if err != nil || n != len(tt.in) {
			t.Errorf("Write(%q) = %d, %v", tt.in, n, err)
		}
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("Write(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	var b bytes.Buffer
	if w := NewWriter(&b); NewWriter(w) != w {
		t.Error("NewWriter wraps a Writer twice")
	}
}

func TestJSONWriterKeepsJSON(t *testing.T) {
	v := map[string]string{"title": "a\x1b]0;x\x07 \u009b2J \u202eb\u202c \x7f \U000e0041"}
	var b bytes.Buffer
	if err := json.NewEncoder(NewJSONWriter(&b)).Encode(v); err != nil {
		t.Fatal(err)
	}
	if bad := inert(strings.TrimSuffix(b.String(), "\n")); bad != "" {
		t.Errorf("JSON output holds %q raw: %s", bad, b.String())
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("not JSON any more: %v\n%s", err, b.String())
	}
	if diff := cmp.Diff(v, back); diff != "" {
		t.Errorf("decodes differently (-want +got):\n%s", diff)
	}
}

// FuzzWriter: whatever is written, nothing a terminal obeys comes out,
// and the JSON writer keeps any JSON value the same value.
func FuzzWriter(f *testing.F) {
	f.Add("\x1b]52;c;aGk=\x07\u009b\u202e\r\n\t\x9b\xff")
	f.Add(`\x1b`)
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		NewWriter(&b).Write([]byte(s))
		if bad := inert(b.String()); bad != "" {
			t.Fatalf("Writer let %q through for %q", bad, s)
		}
		data, _ := json.Marshal(s)
		var j bytes.Buffer
		NewJSONWriter(&j).Write(data)
		if bad := inert(j.String()); bad != "" {
			t.Fatalf("JSONWriter let %q through for %q", bad, s)
		}
		var want, back string
		json.Unmarshal(data, &want)
		if err := json.Unmarshal(j.Bytes(), &back); err != nil || back != want {
			t.Fatalf("JSONWriter changed the value of %q: %q, want %q (%v)", s, back, want, err)
		}
	})
}
