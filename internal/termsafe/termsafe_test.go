package termsafe

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"ls -la":                         "ls -la",
		"rm -rf x\r\x1b[2Kls -la":        `rm -rf x\r\x1b[2Kls -la`,
		"a\nb\tc":                        `a\nb\tc`,
		"bell\x07 del\x7f nul\x00":       `bell\x07 del\x7f nul\x00`,
		"csi\u009b2J nel\u0085":          `csi\u009b2J nel\u0085`,
		"rtl\u202eevil\u202c iso\u2066x": `rtl\u202eevil\u202c iso\u2066x`,
		"zw\u200bsp\u200d\u2060\ufeff":   `zw\u200bsp\u200d\u2060\ufeff`,
		"tag\U000e0041":                  `tag\U000e0041`,
		"bad\xff\xc3utf8":                `bad\xff\xc3utf8`,
		`grep 'a\.b' \(x\)`:              `grep 'a\.b' \(x\)`,
		`printf 'a\nb' \\ \x1b`:          `printf 'a\\nb' \\\ \\x1b`,
		"trailing\\":                     "trailing\\",
		"\\\x1b":                         `\\\x1b`,
		"héllo wörld ✓ 日本":               "héllo wörld ✓ 日本",
		"sep\u2028par\u2029":             `sep\u2028par\u2029`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeKeepsLayout(t *testing.T) {
	if got, want := Escape("a\n\tb\r\n\x1b[31m"), "a\n\tb\\r\n\\x1b[31m"; got != want {
		t.Errorf("Escape = %q, want %q", got, want)
	}
	if got, want := Text("code: \"a\\nb\"\n\x1b]0;title\x07"), "code: \"a\\nb\"\n\\x1b]0;title\\x07"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

// unescape inverts Line and Escape.
func unescape(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		n := 0
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
			i++
			continue
		case 'r', 'n', 't':
			b.WriteByte(map[byte]byte{'r': '\r', 'n': '\n', 't': '\t'}[s[i+1]])
			i++
			continue
		case 'x':
			n = 2
		case 'u':
			n = 4
		case 'U':
			n = 8
		default:
			b.WriteByte('\\')
			continue
		}
		if i+2+n > len(s) {
			t.Fatalf("truncated escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
		if err != nil {
			t.Fatalf("bad escape in %q: %v", s, err)
		}
		if n == 2 {
			b.WriteByte(byte(v))
		} else {
			b.WriteRune(rune(v))
		}
		i += 1 + n
	}
	return b.String()
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "ls", "rm -rf x\r\x1b[2Kls -la", "a\\x1b", "\\\\\\", "\xff\xfe", "\u202e\u200b", "\\\u202e", "\t\n", "\\\n", "\\\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, fn := range map[string]func(string) string{"Line": Line, "Escape": Escape, "Text": Text} {
			out := fn(s)
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not UTF-8", name, s, out)
			}
			for _, r := range out {
				if hidden(r) && !(name != "Line" && (r == '\n' || r == '\t')) {
					t.Fatalf("%s(%q) = %q holds %U", name, s, out, r)
				}
			}
			if name != "Text" {
				if back := unescape(t, out); back != s {
					t.Fatalf("%s(%q) = %q reads back as %q", name, s, out, back)
				}
			}
		}
	})
}

func BenchmarkLine(b *testing.B) {
	plain := strings.Repeat("go test ./... && git status --short | head -20 ", 4)
	for b.Loop() {
		Line(plain)
	}
}

func TestJSON(t *testing.T) {
	in := "{\"t\":\"a\x7fb\u0085c\u009bd\u202ee\u200bf\U000e0041g ✓\"}\n"
	out := JSON(in)
	want := "{\"t\":\"a\\u007fb\\u0085c\\u009bd\\u202ee\\u200bf\\udb40\\udc41g ✓\"}\n"
	if out != want {
		t.Fatalf("JSON = %q, want %q", out, want)
	}
	var a, b map[string]string
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil || a["t"] != b["t"] {
		t.Errorf("the escaped JSON decodes to %q (%v), want %q", b["t"], err, a["t"])
	}
}
