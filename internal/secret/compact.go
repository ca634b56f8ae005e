package secret

import (
	"sort"
	"sync"
)

// compacted is a text with its whitespace taken out, and what is needed
// to map a position in it back to the text: a secret's encoding that a
// tool wrapped over lines, or split with spaces, reads whole in it.
//
// Whitespace is the ASCII space, tab, newline, carriage return, vertical
// tab and form feed, and the escapes \n, \r and \t that JSON and Go
// strings write for them (a wrapped base64 text inside a JSON document).
type compacted struct {
	text []byte
	// removed holds, for every byte taken out, the length text had when
	// it was: the position in text of the next byte kept. It ascends.
	removed []int32
	spans   []span
}

// scratch keeps compacted buffers between calls: tool outputs are tens
// of KiB, and redaction runs on every one of them.
var scratch = sync.Pool{New: func() any { return new(compacted) }}

// compact sets c to s without its whitespace.
func (c *compacted) compact(s string) {
	c.text, c.removed = c.text[:0], c.removed[:0]
	if cap(c.text) < len(s) {
		c.text = make([]byte, 0, len(s))
	}
	kept := 0 // s[kept:i] is yet to be copied
	for i := 0; i < len(s); i++ {
		if !spaceStart[s[i]] {
			continue
		}
		n := spaceAt(s, i)
		if n == 0 {
			continue
		}
		c.text = append(c.text, s[kept:i]...)
		for range n {
			c.removed = append(c.removed, int32(len(c.text)))
		}
		i += n - 1
		kept = i + 1
	}
	c.text = append(c.text, s[kept:]...)
}

// spaceStart marks the bytes that may start whitespace (see spaceAt).
var spaceStart = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true, '\\': true}

// orig returns the position in the original text of the byte at i in
// c.text: i plus the bytes taken out before it.
func (c *compacted) orig(i int) int {
	return i + sort.Search(len(c.removed), func(k int) bool { return int(c.removed[k]) > i })
}

// spaceAt returns how many bytes of whitespace start at s[i]: 1 for a
// whitespace byte, 2 for an escape such as \n, 0 otherwise.
func spaceAt(s string, i int) int {
	switch s[i] {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return 1
	case '\\':
		if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't') {
			return 2
		}
	}
	return 0
}

// hasSpace reports whether s holds whitespace compact would take out.
func hasSpace(s string) bool {
	for i := range len(s) {
		if spaceAt(s, i) > 0 {
			return true
		}
	}
	return false
}
