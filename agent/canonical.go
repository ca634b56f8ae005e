package agent

import "unicode/utf8"

// The repeat guard compares calls by the canonical form (RFC 8785) of
// their arguments. Models almost always send arguments that are already
// canonical — compact, members in order, plain strings and small
// integers — and canonicalising them anyway (jsontext's Canonicalize:
// a copy, a parse, a sort) was an eighth of the loop's time. isCanonical
// recognises that common case in one pass without allocating; it answers
// only "certainly canonical" or "not sure", and everything it is not sure
// of takes the full path, so the guard's notion of "same arguments" is
// unchanged. FuzzIsCanonical holds it to jsontext's verdict.

// maxCanonDepth bounds the nesting isCanonical follows; deeper input
// takes the full path.
const maxCanonDepth = 16

// maxExactDigits is the most digits an integer may have to be printed
// by RFC 8785's number formatting (ECMAScript's, of a float64) exactly as
// written: every integer below 10^15 is a float64 and prints without an
// exponent or a rounded digit.
const maxExactDigits = 15

// isCanonical reports that b is a JSON object already in canonical form:
// no white space; members in strictly increasing order of their names,
// which are ASCII without escapes (byte order is then RFC 8785's UTF-16
// order, and strict order rules out duplicates); strings valid UTF-8 with
// only the escapes canonical form uses for `"`, `\` and the five short
// control characters; numbers integers of at most 15 digits, not -0; and
// arrays, objects and literals, nested at most maxCanonDepth deep.
func isCanonical(b []byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	s := canonScan{b: b}
	return s.value(0) && s.i == len(b)
}

// canonScan is isCanonical's position in its input.
type canonScan struct {
	b []byte
	i int
}

func (s *canonScan) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxCanonDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		return s.string()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *canonScan) object(depth int) bool {
	s.i++ // '{'
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	var prev []byte
	for first := true; ; first = false {
		name, ok := s.name()
		if !ok || !first && string(name) <= string(prev) {
			return false
		}
		prev = name
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		if !s.value(depth) || s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// name scans a member name: printable ASCII without escapes.
func (s *canonScan) name() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c < 0x20 || c == '\\' || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

func (s *canonScan) array(depth int) bool {
	s.i++ // '['
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) || s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *canonScan) string() bool {
	for j := s.i + 1; j < len(s.b); {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return true
		case c == '\\':
			if j+1 >= len(s.b) {
				return false
			}
			switch s.b[j+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				j += 2
			default: // \/ and \u are never canonical here, or not surely
				return false
			}
		case c < 0x20:
			return false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(s.b[j:])
			if r == utf8.RuneError && size <= 1 {
				return false
			}
			j += size
		}
	}
	return false
}

func (s *canonScan) number() bool {
	j := s.i
	if s.b[j] == '-' {
		j++
	}
	start := j
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		j++
	}
	digits := j - start
	switch {
	case digits == 0 || digits > maxExactDigits:
		return false
	case s.b[start] == '0' && (digits > 1 || start > s.i): // leading zero, or -0
		return false
	case j < len(s.b) && (s.b[j] == '.' || s.b[j] == 'e' || s.b[j] == 'E'):
		return false // a fraction or an exponent: let the full path format it
	}
	s.i = j
	return true
}

func (s *canonScan) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
