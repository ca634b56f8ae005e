package secret

import (
	"slices"
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
	// all is every form, for the prefix checks of a Stream.
	all []string
}

func newMatcher(values []string) *matcher {
	m := &matcher{first: map[uint32][]string{}}
	for _, v := range values {
		for _, f := range forms(v) {
			w := word(f, 0)
			if !slices.Contains(m.first[w], f) {
				m.first[w] = append(m.first[w], f)
				m.all = append(m.all, f)
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

// find appends to spans every registered form in s, looked for in s
// with its whitespace taken out (see spaceAt), so a form wrapped over
// lines (base64 at 76 columns, xxd -p at 60) or split by spaces is found
// too; a span runs from the match's first byte to its last, whitespace
// inside included. Matches are leftmost and, at one position, longest;
// they do not overlap.
//
// The scan keeps the last four bytes that are not whitespace as the
// word the forms are indexed by, so it reads each byte once and copies
// nothing.
func (m *matcher) find(s string, spans []span) []span {
	var (
		w    uint32 // the last four kept bytes, the first in the low byte
		pos  [4]int // their positions, by count&3
		n    int    // bytes kept so far
		next int    // a match may start here or later
	)
	for i := 0; i < len(s); i++ {
		if spaceStart[s[i]] {
			if k := spaceAt(s, i); k > 0 {
				i += k - 1
				continue
			}
		}
		w = w>>8 | uint32(s[i])<<24
		pos[n&3] = i
		n++
		if n < 4 {
			continue
		}
		start := pos[n&3] // the oldest of the four: n&3 == (n-4)&3
		h := hash(w)
		if start < next || m.bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, f := range m.first[w] {
			if end := matchAt(s, start, f); end > 0 {
				spans = append(spans, span{start, end})
				next = end
				break
			}
		}
	}
	return spans
}

// matchAt returns the end of f in s from start, whitespace between its
// bytes skipped, or 0 when f is not there.
func matchAt(s string, start int, f string) int {
	i := start
	for j := 0; j < len(f); j++ {
		for i < len(s) && spaceStart[s[i]] {
			k := spaceAt(s, i)
			if k == 0 {
				break
			}
			i += k
		}
		if i >= len(s) || s[i] != f[j] {
			return 0
		}
		i++
	}
	return i
}

// replace returns s with every registered form replaced by repl (see
// find), whitespace inside a match included.
func (m *matcher) replace(s, repl string) string {
	if len(s) < MinLength {
		return s
	}
	var buf [8]span
	spans := m.find(s, buf[:0])
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(repl)
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}
