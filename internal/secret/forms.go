package secret

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// forms returns the spellings in which a registered value v leaks, each
// without whitespace (the matcher compares texts with their whitespace
// taken out, so a wrapped spelling is caught too; see spaceAt): v itself,
// as it reads inside a JSON or Go string, base64 (standard and URL
// alphabets, padded and raw), hexadecimal (lower and upper case) and
// every URL encoding a common tool prints (see percentForms).
//
// Base64 of a text that merely contains v (an "Authorization: Basic"
// header encodes "user:"+v, `base64 .env` a whole line) depends on where
// v starts relative to the 3-byte groups: for each of the three
// alignments the characters that only v's bytes determine are
// registered too, without the partial characters at either end, so the
// secret is caught inside any longer base64 text. Forms shorter than
// MinLength are left out.
func forms(v string) []string {
	out := []string{v}
	if q := strconv.Quote(v); q[1:len(q)-1] != v {
		out = append(out, q[1:len(q)-1])
	}
	if j, err := json.Marshal(v); err == nil {
		out = append(out, string(j[1:len(j)-1]))
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString([]byte(v)))
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for o := range 3 {
			e := enc.EncodeToString(append(make([]byte, o), v...))
			// Character i holds bits [6i, 6i+6) of the encoded bytes; v's
			// bits are [8o, 8(o+len(v))).
			start, end := (8*o+5)/6, 8*(o+len(v))/6
			out = append(out, e[start:end])
		}
	}
	h := hex.EncodeToString([]byte(v))
	out = append(out, h, strings.ToUpper(h), url.QueryEscape(v), url.PathEscape(v))
	out = append(out, percentForms(v)...)
	seen := map[string]bool{}
	kept := out[:0]
	for _, f := range out {
		f = stripSpace(f)
		if len(f) >= MinLength && !seen[f] {
			seen[f] = true
			kept = append(kept, f)
		}
	}
	return kept
}

// urlSafeSets are the bytes besides letters, digits and "-._~" (RFC 3986's
// unreserved characters, which no encoder escapes) that common encoders
// leave as they are: none (Go's url.QueryEscape, Python's quote_plus and
// quote(s, safe=""), PHP's rawurlencode), "/" (Python's quote), "!*'()"
// (JavaScript's encodeURIComponent), the reserved characters too
// (JavaScript's encodeURI) and Go's url.PathEscape set. Each is spelled
// with upper- and lower-case hex digits and with a space as "+" or "%20";
// one more form escapes every byte.
var urlSafeSets = []string{"", "/", "!*'()", "!*'();,/?:@&=+$#", "$&+,:;=@"}

// percentForms returns v percent-encoded in every spelling urlSafeSets
// describes.
func percentForms(v string) []string {
	var out []string
	for _, safe := range urlSafeSets {
		for _, upper := range []bool{true, false} {
			for _, plus := range []bool{true, false} {
				out = append(out, percentEncode(v, safe, upper, plus))
			}
		}
	}
	return append(out, percentEncode(v, "\x00all", true, false), percentEncode(v, "\x00all", false, false))
}

// percentEncode escapes every byte of v that is neither unreserved nor in
// safe (every byte when safe is "\x00all"), with upper- or lower-case hex
// digits, and a space as "+" when plus is set.
func percentEncode(v, safe string, upper, plus bool) string {
	digits := "0123456789ABCDEF"
	if !upper {
		digits = "0123456789abcdef"
	}
	all := safe == "\x00all"
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case !all && (unreserved(c) || strings.IndexByte(safe, c) >= 0):
			b.WriteByte(c)
		case !all && plus && c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(digits[c>>4])
			b.WriteByte(digits[c&15])
		}
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// stripSpace returns s without the whitespace the matcher skips.
func stripSpace(s string) string {
	if !hasSpace(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if n := spaceAt(s, i); n > 0 {
			i += n - 1
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}
