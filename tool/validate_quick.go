package tool

import (
	"encoding/json"
	"unicode/utf8"
)

// The quick check accepts the common valid call straight from its bytes,
// without decoding it into generic values first: that decoding (a map, a
// boxed value per field, the decoder's state) was most of the allocations
// a model call made in the agent loop. It only ever answers "valid" or
// "not sure"; everything it is not sure of — a problem, an escape, a
// fraction, a keyword it does not check — goes the full fast path, so
// every message stays the one that path words.

// maxQuickProps bounds the properties tracked in quickObject's bit set.
const maxQuickProps = 64

// quickValid reports that args (already normalised) certainly satisfy n.
// false means only that the caller must check the slow way.
func (n *node) quickValid(args []byte) bool {
	if !json.Valid(args) { // the scanner below assumes well-formed JSON
		return false
	}
	i := skipWS(args, 0)
	if i >= len(args) || args[i] != '{' {
		return false
	}
	_, ok := n.quickValue(args, i)
	return ok
}

// quickValue checks the value at b[i] against n, returning the index after
// it. b is well-formed JSON.
func (n *node) quickValue(b []byte, i int) (int, bool) {
	if n == nil {
		return skipValue(b, i), true
	}
	if n.never || n.enum != nil || n.cnst != nil {
		return 0, false
	}
	switch c := b[i]; {
	case c == '{':
		if !n.allows(tObject) {
			return 0, false
		}
		return n.quickObject(b, i)
	case c == '[':
		if !n.allows(tArray) {
			return 0, false
		}
		return n.quickArray(b, i)
	case c == '"':
		end, escaped := scanString(b, i)
		if !n.allows(tString) {
			return 0, false
		}
		if n.minLen >= 0 || n.maxLen >= 0 || n.pattern != nil {
			s := b[i+1 : end-1]
			if escaped || !utf8.Valid(s) {
				return 0, false
			}
			if c := utf8.RuneCount(s); (n.minLen >= 0 && c < n.minLen) || (n.maxLen >= 0 && c > n.maxLen) {
				return 0, false
			}
			if n.pattern != nil && !n.pattern.Match(s) {
				return 0, false
			}
		}
		return end, true
	case c == 't' || c == 'f':
		return skipValue(b, i), n.allows(tBoolean)
	case c == 'n':
		return skipValue(b, i), n.allows(tNull)
	default:
		return n.quickInteger(b, i)
	}
}

// allows reports whether a value of type t passes n's type keyword.
func (n *node) allows(t typeMask) bool {
	return n.types == 0 || n.types&t != 0
}

// quickInteger accepts a plain integer literal of at most 15 digits (exact
// as a float64, as the slow path decodes it) within n's bounds. Fractions
// and exponents are left to the slow path.
func (n *node) quickInteger(b []byte, i int) (int, bool) {
	end := skipValue(b, i)
	lit := b[i:end]
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) == 0 || len(lit) > 15 {
		return 0, false
	}
	var v int64
	for _, c := range lit {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if !n.allows(tInteger) && !n.allows(tNumber) {
		return 0, false
	}
	f := float64(v)
	if (n.minimum != nil && !(f >= *n.minimum)) || (n.maximum != nil && !(f <= *n.maximum)) ||
		(n.exclMin != nil && !(f > *n.exclMin)) || (n.exclMax != nil && !(f < *n.exclMax)) {
		return 0, false
	}
	return end, true
}

// quickObject checks an object's declared properties and required names.
// Unknown names, when the schema constrains them, a repeated name and an
// escaped or non-UTF-8 name are left to the slow path.
func (n *node) quickObject(b []byte, i int) (int, bool) {
	if len(n.order) > maxQuickProps || n.additional != nil {
		return 0, false
	}
	var seen uint64
	i = skipWS(b, i+1)
	for b[i] != '}' {
		end, escaped := scanString(b, i)
		key := b[i+1 : end-1]
		if escaped || !utf8.Valid(key) {
			return 0, false
		}
		i = skipWS(b, end)
		i = skipWS(b, i+1) // the colon
		sub, declared := n.props[string(key)]
		if declared {
			bit := uint64(1) << n.propIndex(string(key))
			if seen&bit != 0 {
				return 0, false
			}
			seen |= bit
		} else if n.noAdditional {
			return 0, false
		}
		var ok bool
		if i, ok = sub.quickValue(b, i); !ok {
			return 0, false
		}
		i = skipWS(b, i)
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	for _, k := range n.required {
		if _, declared := n.props[k]; !declared || seen&(uint64(1)<<n.propIndex(k)) == 0 {
			return 0, false
		}
	}
	return i + 1, true
}

func (n *node) propIndex(k string) int {
	for j, name := range n.order {
		if name == k {
			return j
		}
	}
	return -1
}

func (n *node) quickArray(b []byte, i int) (int, bool) {
	count := 0
	i = skipWS(b, i+1)
	for b[i] != ']' {
		var ok bool
		if i, ok = n.items.quickValue(b, i); !ok {
			return 0, false
		}
		count++
		i = skipWS(b, i)
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	if (n.minItems >= 0 && count < n.minItems) || (n.maxItems >= 0 && count > n.maxItems) {
		return 0, false
	}
	return i + 1, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string starting at b[i] and
// whether it holds an escape.
func scanString(b []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

// skipValue returns the index after the well-formed value at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' &&
		b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}
