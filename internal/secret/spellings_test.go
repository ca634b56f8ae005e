package secret

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// secretAlphabet is what generated secrets are made of: the characters of
// API keys, passwords and tokens, with those that URL encoders treat
// differently.
const secretAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=-_.~!*'()@:;&?#$, %"

func randomSecret(r *rand.Rand) string {
	b := make([]byte, 12+r.IntN(37))
	for i := range b {
		b[i] = secretAlphabet[r.IntN(len(secretAlphabet))]
	}
	// A secret does not start or end with a space (Register trims).
	b[0], b[len(b)-1] = 'k', '9'
	return string(b)
}

// Encoders as the tools named spell them, written from their
// documentation rather than from forms.
var spellers = []struct {
	name   string
	encode func(string) string
	kind   byte // 'b' base64, 'h' hex, 'u' URL, 'r' raw
}{
	{"raw", func(s string) string { return s }, 'r'},
	{"base64", func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }, 'b'},
	{"base64url", func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }, 'b'},
	{"base64raw", func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) }, 'b'},
	{"base64rawurl", func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }, 'b'},
	{"hex", func(s string) string { return hex.EncodeToString([]byte(s)) }, 'h'},
	{"HEX", func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) }, 'h'},
	{"go-QueryEscape", url.QueryEscape, 'u'},
	{"go-PathEscape", url.PathEscape, 'u'},
	{"py-quote", func(s string) string { return escapeExcept(s, "_.-~/", false, true) }, 'u'},
	{"py-quote_plus", func(s string) string { return escapeExcept(s, "_.-~", true, true) }, 'u'},
	{"js-encodeURIComponent", func(s string) string { return escapeExcept(s, "-_.!~*'()", false, true) }, 'u'},
	{"js-encodeURI", func(s string) string { return escapeExcept(s, "-_.!~*'();/?:@&=+$,#", false, true) }, 'u'},
	{"lower-percent", func(s string) string { return escapeExcept(s, "_.-~", false, false) }, 'u'},
	{"lower-percent-plus", func(s string) string { return escapeExcept(s, "_.-~", true, false) }, 'u'},
}

// escapeExcept percent-encodes every byte but ASCII letters, digits and
// keep, a space as "+" when plus is set.
func escapeExcept(s, keep string, plus, upper bool) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0):
			b.WriteByte(c)
		case c == ' ' && plus:
			b.WriteByte('+')
		default:
			f := "%%%02X"
			if !upper {
				f = "%%%02x"
			}
			fmt.Fprintf(&b, f, c)
		}
	}
	return b.String()
}

// wrappers lay an encoded text out as tools print it.
var wrappers = []struct {
	name string
	wrap func(string) string
}{
	{"as-is", func(s string) string { return s }},
	{"base64-76", func(s string) string { return wrap(s, 76, "\n") }},
	{"openssl-64", func(s string) string { return wrap(s, 64, "\n") }},
	{"xxd-p-60", func(s string) string { return wrap(s, 60, "\n") }},
	{"crlf-76", func(s string) string { return wrap(s, 76, "\r\n") }},
	{"narrow-7", func(s string) string { return wrap(s, 7, "\n") }},
	{"spaced-4", func(s string) string { return wrap(s, 4, " ") }},
	{"json-escaped-76", func(s string) string { return wrap(s, 76, `\n`) }},
	{"indented-40", func(s string) string { return wrap(s, 40, "\n    ") }},
}

func wrap(s string, width int, sep string) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width])
		b.WriteString(sep)
		s = s[width:]
	}
	b.WriteString(s)
	return b.String()
}

// contexts put the secret inside what gets encoded: alone, as a line of
// an .env file (base64 .env, xxd -p .env), after "user:" as a Basic
// authorization header encodes it, and after one or two bytes, the other
// base64 alignments.
var contexts = []struct{ before, after string }{
	{"", ""}, {"AWS_SECRET_ACCESS_KEY=", "\n"}, {"user:", ""}, {"x", "yz"}, {"xy", "\n\n"},
	{"DB_USER=app\nDB_PASS=", "\nDB_HOST=localhost\n"},
}

// TestRegisteredSpellingsCannotBeDecoded is the attack on registered
// secrets: random secrets, in every encoding a tool prints, wrapped as
// tools wrap, inside longer encoded text, in tool output, model text,
// arguments and error messages. After Redact, no decoding of what is left
// (raw, base64 at every alignment, hex, URL unescaping; whitespace taken
// out) recovers the secret.
func TestRegisteredSpellingsCannotBeDecoded(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 6))
	places := []string{"$ cat out\n%s\nexit code 0", `{"content":"%s"}`, "I found it: %s.", "error: bad credentials %s (401)"}
	cases := 0
	for n := range 24 {
		secret := randomSecret(r)
		Register(secret)
		for _, sp := range spellers {
			for ci, ctx := range contexts {
				if sp.kind == 'r' && ci > 0 || sp.kind == 'u' && ci > 2 {
					continue // raw and URL spellings are byte by byte: the context adds nothing
				}
				enc := sp.encode(ctx.before + secret + ctx.after)
				for _, w := range wrappers {
					in := strings.Replace(places[(n+ci)%len(places)], "%s", w.wrap(enc), 1)
					got := Redact(in)
					cases++
					if where := recoverable(got, secret); where != "" {
						t.Errorf("secret %q, %s, context %d, %s: %s recovers it from\n%s", secret, sp.name, ci, w.name, where, got)
					}
				}
			}
		}
	}
	t.Logf("%d spellings", cases)
}

// recoverable says how s still yields secret, or "" when it does not.
func recoverable(s, secret string) string {
	flat := strings.NewReplacer(" ", "", "\n", "", "\r", "", "\t", "", `\n`, "", `\r`, "", `\t`, "").Replace(s)
	want := strings.ReplaceAll(secret, " ", "")
	if strings.Contains(flat, want) {
		return "reading it"
	}
	for _, run := range runsOf(flat, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_") {
		std := strings.NewReplacer("-", "+", "_", "/").Replace(run)
		for o := range 4 {
			if len(std) <= o {
				break
			}
			part := std[o:]
			part = part[:len(part)/4*4]
			if d, err := base64.StdEncoding.DecodeString(part); err == nil && strings.Contains(string(d), secret) {
				return "base64-decoding it"
			}
		}
	}
	for _, run := range runsOf(flat, "0123456789abcdefABCDEF") {
		for o := range 2 {
			part := run[o:]
			if d, err := hex.DecodeString(part[:len(part)/2*2]); err == nil && strings.Contains(string(d), secret) {
				return "hex-decoding it"
			}
		}
	}
	for _, unescape := range []func(string) (string, error){url.QueryUnescape, url.PathUnescape} {
		if d, err := unescape(flat); err == nil && strings.Contains(strings.ReplaceAll(d, " ", ""), want) {
			return "URL-unescaping it"
		}
	}
	return ""
}

// runsOf returns the maximal runs of s made of the bytes in set.
func runsOf(s, set string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		in := i < len(s) && strings.IndexByte(set, s[i]) >= 0
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	return out
}

// FuzzWrappedSpellings checks the matcher on its own: a secret, encoded
// by one of spellers after a prefix and wrapped at any width, cannot be
// recovered from the replaced text.
func FuzzWrappedSpellings(f *testing.F) {
	f.Add("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=", uint8(1), uint8(76))
	f.Add("p@ss:w0rd&more", "", uint8(9), uint8(3))
	f.Add("hunter2hunter2", "xy", uint8(5), uint8(60))
	f.Fuzz(func(t *testing.T, secret, before string, kind, width uint8) {
		if len(secret) < MinLength || len(secret) > 200 || len(before) > 100 || strings.ContainsAny(secret, " \t\n\r\v\f\\") {
			return
		}
		sp := spellers[int(kind)%len(spellers)]
		if sp.kind == 'r' || sp.kind == 'u' {
			before = ""
		}
		enc := wrap(sp.encode(before+secret), int(width)%100+1, "\n")
		got := newMatcher([]string{secret}).replace("out: "+enc+" end", redacted)
		if where := recoverable(got, secret); where != "" {
			t.Fatalf("%s of %q after %q: %s recovers it from %q", sp.name, secret, before, where, got)
		}
	})
}
