package textclip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is two bytes: never split
		{"日本語", 4, "日…"},
		{"abc", 0, "…"},
		{"abc", -5, "…"},
		{"", 0, ""},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":          "plain words",
		"two\nlines":           "two lines",
		" padded\r\n\tand  x ": "padded and x",
		"":                     "",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("a\nbcdef", 3); got != "a b…" {
		t.Errorf("Line = %q", got)
	}
}

// FuzzClip: whatever the input, a clip of valid UTF-8 is valid UTF-8,
// a prefix of the input plus at most the ellipsis, and no longer than
// n plus the ellipsis.
func FuzzClip(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add("日本語テキスト", 5)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Clip(s, n)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Clip(%q, %d) = %q: invalid UTF-8", s, n, got)
		}
		body := strings.TrimSuffix(got, Ellipsis)
		if !strings.HasPrefix(s, body) {
			t.Fatalf("Clip(%q, %d) = %q: not a prefix", s, n, got)
		}
		if len(body) > max(n, 0) && got != s {
			t.Fatalf("Clip(%q, %d) = %q: longer than %d", s, n, got, n)
		}
		if l := OneLine(s); strings.ContainsAny(l, "\r\n") {
			t.Fatalf("OneLine(%q) = %q keeps a line break", s, l)
		}
	})
}

func TestRunes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"日本語テキスト", 3, "日本語…"}, // runes, not bytes
		{"abc", 0, "…"},
		{"abc", -1, "…"},
		{"", 0, ""},
	} {
		if got := Runes(c.s, c.n); got != c.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"one line":                  "one line",
		"  summary  \ndetail\nmore": "summary",
		"\n\nlate":                  "late",
		"crlf\r\nnext":              "crlf",
		"":                          "",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRunes: a rune clip of valid UTF-8 is valid UTF-8, a prefix of the
// input plus at most the ellipsis, and at most n runes before it.
func FuzzRunes(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add("日本語テキスト", 5)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Runes(s, n)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Runes(%q, %d) = %q: invalid UTF-8", s, n, got)
		}
		body := strings.TrimSuffix(got, Ellipsis)
		if !strings.HasPrefix(s, body) {
			t.Fatalf("Runes(%q, %d) = %q: not a prefix", s, n, got)
		}
		if got != s && utf8.RuneCountInString(body) > max(n, 0) {
			t.Fatalf("Runes(%q, %d) = %q: more than %d runes", s, n, got, n)
		}
		if l := FirstLine(s); strings.ContainsAny(l, "\r\n") {
			t.Fatalf("FirstLine(%q) = %q keeps a line break", s, l)
		}
	})
}
