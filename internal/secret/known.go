package secret

import (
	"sort"
	"strings"
)

// matcher finds every registered form in a text in one pass. Each form
// is indexed by its first four bytes; a bitmap of their hashes lets the
// scan dismiss almost every position with one shift, one multiply and
// one bit test, so registered secrets cost about a nanosecond per byte of
// text whatever their number, and a text holding none is returned as is.
type matcher struct {
	bits  [1 << 10]uint64 // 1<<16 bits, by hash of a form's first four bytes
	first map[uint32][]string
	// longest is the length of the longest form.
	longest int
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
			m.longest = max(m.longest, len(f))
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

// span is a match, [start, end) in the text searched.
type span struct{ start, end int }

// find appends to spans every registered form in s, leftmost first and,
// at one position, longest first; matches do not overlap.
func (m *matcher) find(s []byte, spans []span) []span {
	for i := 0; i+4 <= len(s); i++ {
		w := wordb(s, i)
		h := hash(w)
		if m.bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, f := range m.first[w] {
			if len(s)-i >= len(f) && string(s[i:i+len(f)]) == f {
				spans = append(spans, span{i, i + len(f)})
				i += len(f) - 1
				break
			}
		}
	}
	return spans
}

func wordb(s []byte, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// replace returns s with every registered form replaced by repl. The
// forms are looked for in s with its whitespace taken out (see compact),
// so a form wrapped over lines (base64 at 76 columns, xxd -p at 60) or
// split by spaces is found too; a match is replaced with the whitespace
// inside it, from its first byte to its last.
func (m *matcher) replace(s, repl string) string {
	if len(s) < MinLength {
		return s
	}
	buf := scratch.Get().(*compacted)
	defer scratch.Put(buf)
	buf.compact(s)
	buf.spans = m.find(buf.text, buf.spans[:0])
	if len(buf.spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range buf.spans {
		start, end := buf.orig(sp.start), buf.orig(sp.end-1)+1
		b.WriteString(s[last:start])
		b.WriteString(repl)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}
