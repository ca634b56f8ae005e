// Package jsonscan is a small JSON scanner for the stream-chunk hot path of
// the model providers.
//
// A streamed model answer is thousands of small JSON objects of one known
// shape, of which the provider reads a handful of fields. A general decoder
// pays per field for reflection, name lookup and token bookkeeping; this
// scanner reads the bytes in place, validates what it skips, and never
// allocates.
//
// It is deliberately a fast path, not a decoder of its own: it accepts only
// a strict subset of what the json/v2 engine (with invalid UTF-8 and
// duplicate names allowed, as the providers configure it) accepts, and
// decodes what it accepts to the same values. Anything outside that subset
// (an escaped object name, a lone surrogate, invalid UTF-8 in a decoded
// string, a number it does not expect, deep nesting, trailing bytes) makes
// the scan fail, and the caller decodes the same bytes with the full engine,
// which then decides, and words any error, exactly as before. The tests
// check the subset claim differentially against the engine.
package jsonscan

import (
	"encoding/binary"
	"unicode/utf8"
)

// maxDepth bounds the nesting of skipped values. Chunks nest three or four
// levels; deeper input is left to the full decoder, which has its own limit.
const maxDepth = 64

// plain marks the bytes a string can contain without a closer look: not a
// quote, backslash, control character or the start of a multi-byte UTF-8
// sequence.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Scanner reads one JSON text. Every method is a no-op once the scan has
// failed; the caller checks Done at the end, after which any value it
// took from a failed scan must be discarded. The zero value is a scanner
// of empty input; Reset starts a new text.
//
// Byte slices returned by a Scanner alias the input.
type Scanner struct {
	data []byte
	pos  int
	bad  bool
}

// Reset starts scanning data.
func (s *Scanner) Reset(data []byte) { s.data, s.pos, s.bad = data, 0, false }

// Fail marks the scan as failed: the caller met something it does not
// handle on the fast path, such as a value of an unexpected type.
func (s *Scanner) Fail() { s.bad = true }

// Failed reports whether the scan has failed.
func (s *Scanner) Failed() bool { return s.bad }

// Done reports whether the scan succeeded and nothing but whitespace
// follows the value read.
func (s *Scanner) Done() bool {
	if s.bad {
		return false
	}
	s.skipSpace()
	return s.pos == len(s.data)
}

func (s *Scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end or after a failure.
func (s *Scanner) peek() byte {
	if s.bad {
		return 0
	}
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return s.data[s.pos] // chunks are compact: the common case
	}
	s.skipSpace()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// Kind returns the first byte of the next value ('"', '{', '[', 'n', 't',
// 'f', '-' or a digit for valid input), or 0 at the end or after a failure.
func (s *Scanner) Kind() byte { return s.peek() }

// Null consumes a null if one comes next and reports whether it did.
func (s *Scanner) Null() bool {
	if s.peek() != 'n' {
		return false
	}
	s.literal("null")
	return !s.bad
}

func (s *Scanner) literal(lit string) {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		s.bad = true
		return
	}
	s.pos += len(lit)
}

// Object is an object being read member by member; see Scanner.Object.
type Object struct {
	s       *Scanner
	started bool
	lenient bool // accept escaped names (for skipped objects)
}

// Object consumes the opening brace of an object. Iterate its members
// with Next.
func (s *Scanner) Object() Object {
	if s.peek() != '{' {
		s.bad = true
	} else {
		s.pos++
	}
	return Object{s: s}
}

// Next returns the name of the next member, leaving the scanner at its
// value, which the caller must read or Skip. It returns false at the
// closing brace or on failure. A name with escapes fails the scan: it may
// spell a field the caller knows, and matching it is the full decoder's job.
func (o *Object) Next() ([]byte, bool) {
	s := o.s
	c := s.peek()
	if c == '}' {
		s.pos++
		return nil, false
	}
	if o.started {
		if c != ',' {
			s.bad = true
			return nil, false
		}
		s.pos++
		c = s.peek()
	}
	o.started = true
	if c != '"' {
		s.bad = true
		return nil, false
	}
	name, escaped := s.scanString(false)
	if escaped && !o.lenient {
		s.bad = true
	}
	if s.peek() != ':' {
		s.bad = true
		return nil, false
	}
	s.pos++
	return name, true
}

// Array is an array being read element by element; see Scanner.Array.
type Array struct {
	s       *Scanner
	started bool
}

// Array consumes the opening bracket of an array. Iterate its elements
// with Next.
func (s *Scanner) Array() Array {
	if s.peek() != '[' {
		s.bad = true
	} else {
		s.pos++
	}
	return Array{s: s}
}

// Next reports whether another element follows, leaving the scanner at
// it; the caller must read or Skip it. It returns false at the closing
// bracket or on failure.
func (a *Array) Next() bool {
	s := a.s
	c := s.peek()
	if c == ']' {
		s.pos++
		return false
	}
	if a.started {
		if c != ',' {
			s.bad = true
			return false
		}
		s.pos++
	}
	a.started = true
	return !s.bad
}

// Str is a JSON string as it appears between its quotes. It is valid
// JSON, and valid UTF-8 once unescaped (see Scanner.String).
type Str struct {
	Raw     []byte // the bytes between the quotes; aliases the input
	Escaped bool   // Raw contains escape sequences
}

// String reads a string value. It fails on anything else, and on strings
// the full decoder would alter (invalid UTF-8, which it replaces) or that
// it might reject (lone surrogate escapes).
func (s *Scanner) String() Str {
	if s.peek() != '"' {
		s.bad = true
		return Str{}
	}
	raw, esc := s.scanString(true)
	return Str{Raw: raw, Escaped: esc}
}

// SkipString consumes a string value without decoding it. It fails on
// anything else: a field the caller does not need must still have the type
// the full decoder would insist on.
func (s *Scanner) SkipString() {
	if s.peek() != '"' {
		s.bad = true
		return
	}
	s.scanString(false)
}

// scanString consumes the string at s.pos (an opening quote) and returns
// its raw content. validate rejects invalid UTF-8, for strings the caller
// decodes; skipped strings need not be checked, since the providers'
// decoder accepts invalid UTF-8.
func (s *Scanner) scanString(validate bool) (raw []byte, escaped bool) {
	d := s.data
	start := s.pos + 1
	i := start
	for {
		for i+8 <= len(d) && !special(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < len(d) && plain[d[i]] {
			i++
		}
		if i >= len(d) {
			s.bad = true
			return nil, false
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return d[start:i], escaped
		case c == '\\':
			n := escapeLen(d[i:])
			if n == 0 {
				s.bad = true
				return nil, false
			}
			escaped = true
			i += n
		case c < 0x20:
			s.bad = true
			return nil, false
		case validate:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				s.bad = true
				return nil, false
			}
			i += size
		default:
			i++
		}
	}
}

// special reports whether any of the eight bytes in w is not plain. It may
// report a plain byte that follows a special one, which only sends the
// caller to its exact byte loop a little early.
func special(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := w ^ (lo * '"')
	b := w ^ (lo * '\\')
	return ((q-lo)&^q|(b-lo)&^b|(w-lo*0x20)&^w|w)&hi != 0
}

// escapeLen returns the length of the escape sequence that b starts with,
// a surrogate pair counting as one, or 0 if it is invalid or a lone
// surrogate.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		r, ok := hex4(b[2:])
		switch {
		case !ok:
			return 0
		case r >= 0xDC00 && r <= 0xDFFF:
			return 0
		case r >= 0xD800 && r <= 0xDBFF:
			if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
				return 0
			}
			lo, ok := hex4(b[8:])
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return 0
			}
			return 12
		}
		return 6
	}
	return 0
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Int reads a non-negative integer without sign, fraction or exponent and
// at most 9 digits (so it fits an int on every platform; the indexes it
// reads are small). Any other number (or value) fails the scan, leaving
// its range and type errors to the full decoder.
func (s *Scanner) Int() int {
	if s.peek() == 0 {
		s.bad = true
		return 0
	}
	d := s.data
	i, n := s.pos, 0
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		n = n*10 + int(d[i]-'0')
		i++
	}
	digits := i - s.pos
	if digits == 0 || digits > 9 || (digits > 1 && d[s.pos] == '0') ||
		(i < len(d) && (d[i] == '.' || d[i] == 'e' || d[i] == 'E')) {
		s.bad = true
		return 0
	}
	s.pos = i
	return n
}

// Skip consumes any one value, checking that it is valid JSON.
func (s *Scanner) Skip() { s.skip(0) }

// RawValue consumes any one value and returns its bytes.
func (s *Scanner) RawValue() []byte {
	s.peek()
	start := s.pos
	s.skip(0)
	if s.bad {
		return nil
	}
	return s.data[start:s.pos]
}

func (s *Scanner) skip(depth int) {
	switch c := s.peek(); {
	case c == '"':
		s.scanString(false)
	case c == '{':
		if depth >= maxDepth {
			s.bad = true
			return
		}
		o := s.Object()
		o.lenient = true
		for _, ok := o.Next(); ok; _, ok = o.Next() {
			s.skip(depth + 1)
		}
	case c == '[':
		if depth >= maxDepth {
			s.bad = true
			return
		}
		a := s.Array()
		for a.Next() {
			s.skip(depth + 1)
		}
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		s.number()
	default:
		s.bad = true
	}
}

// number consumes a number in the strict grammar of RFC 8259.
func (s *Scanner) number() {
	d, i := s.data, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		s.bad = true
		return
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			s.bad = true
			return
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			s.bad = true
			return
		}
		i = j
	}
	s.pos = i
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}
