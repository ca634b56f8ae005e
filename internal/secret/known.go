package secret

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// forms returns the shapes in which a registered value v leaks: v itself,
// as it reads inside a JSON string, base64 (standard and URL alphabets,
// padded and raw), hexadecimal (lower and upper case) and URL-encoded
// (query and path escaping).
//
// Base64 of a text that merely contains v (an "Authorization: Basic"
// header encodes "user:"+v) depends on where v starts relative to the
// 3-byte groups: for each of the three alignments the characters that
// only v's bytes determine are registered too, without the partial
// characters at either end, so the secret is caught inside any longer
// base64 text. Forms shorter than MinLength are left out.
func forms(v string) []string {
	out := []string{v}
	if q := strconv.Quote(v); q[1:len(q)-1] != v {
		out = append(out, q[1:len(q)-1])
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
	seen := map[string]bool{}
	kept := out[:0]
	for _, f := range out {
		if len(f) >= MinLength && !seen[f] {
			seen[f] = true
			kept = append(kept, f)
		}
	}
	return kept
}

// matcher finds every registered form in a text in one pass. Each form
// is indexed by its first four bytes; a bitmap of their hashes lets the
// scan dismiss almost every position with one shift, one multiply and
// one bit test, so registered secrets cost about a nanosecond per byte of
// text whatever their number, and a text holding none is returned as is.
type matcher struct {
	bits  [1 << 10]uint64 // 1<<16 bits, by hash of a form's first four bytes
	first map[uint32][]string
}

func newMatcher(values []string) *matcher {
	m := &matcher{first: map[uint32][]string{}}
	for _, v := range values {
		for _, f := range forms(v) {
			w := word(f, 0)
			if !containsString(m.first[w], f) {
				m.first[w] = append(m.first[w], f)
			}
			h := hash(w)
			m.bits[h>>6] |= 1 << (h & 63)
		}
	}
	for _, l := range m.first {
		// Longest first, so a form containing another is replaced whole.
		sort.Slice(l, func(i, j int) bool { return len(l[i]) > len(l[j]) })
	}
	return m
}

func word(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func hash(w uint32) uint32 { return (w * 0x9E3779B1) >> 16 }

// replace returns s with every registered form replaced by repl,
// leftmost first and, at one position, longest first.
func (m *matcher) replace(s, repl string) string {
	if len(s) < MinLength {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is decided
	for i := 0; i+4 <= len(s); i++ {
		w := word(s, i)
		h := hash(w)
		if m.bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, f := range m.first[w] {
			if strings.HasPrefix(s[i:], f) {
				if last == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[last:i])
				b.WriteString(repl)
				last = i + len(f)
				i = last - 1 // matches do not overlap
				break
			}
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
