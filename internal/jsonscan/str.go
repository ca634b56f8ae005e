package jsonscan

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// AppendTo appends the decoded string to dst. Tool-call argument fragments
// are decoded this way straight into the buffer that assembles them, so
// they are unescaped once and never become a string.
func (v Str) AppendTo(dst []byte) []byte {
	if !v.Escaped {
		return append(dst, v.Raw...)
	}
	b := v.Raw
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\\')
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i]...)
		b = b[i:]
		// The scanner validated the escape, so it is complete.
		switch c := b[1]; c {
		case 'u':
			r, _ := hex4(b[2:])
			n := 6
			if r >= 0xD800 && r <= 0xDBFF {
				lo, _ := hex4(b[8:])
				r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
				n = 12
			}
			dst = utf8.AppendRune(dst, r)
			b = b[n:]
		default:
			dst = append(dst, unescaped[c])
			b = b[2:]
		}
	}
	return dst
}

// unescaped maps the character after a backslash to what it stands for.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// Equal reports whether the string is exactly lit, without decoding it.
// An escaped string never equals: callers compare against plain keywords
// (delta types, finish reasons) and leave the odd escaped one to the
// general path.
func (v Str) Equal(lit string) bool { return !v.Escaped && string(v.Raw) == lit }

// Strings turns decoded bytes into strings, reusing the string of an
// earlier identical value. Model streams repeat short tokens (" the", ",",
// "\n") and ids thousands of times, so most text deltas cost no allocation.
// It is the scheme of the json/v2 engine's own cache, which the providers
// used before, so switching decoders keeps the allocation profile.
//
// The zero value is ready; a Strings is used by one goroutine.
type Strings struct {
	cache   [256]string
	scratch []byte
}

// maxCached bounds the strings kept: longer ones rarely repeat.
const maxCached = 256

// Make returns v decoded as a string.
func (c *Strings) Make(v Str) string {
	b := v.Raw
	if v.Escaped {
		c.scratch = v.AppendTo(c.scratch[:0])
		b = c.scratch
	}
	return c.Bytes(b)
}

// Bytes returns b as a string.
func (c *Strings) Bytes(b []byte) string {
	if len(b) < 2 || len(b) > maxCached {
		return string(b) // one-byte strings are interned by the runtime
	}
	i := hash(b) % uint32(len(c.cache))
	if s := c.cache[i]; s == string(b) {
		return s
	}
	s := string(b)
	c.cache[i] = s
	return s
}

// hash mixes a fixed-width prefix and suffix of b, so hashing costs the
// same for every length.
func hash(b []byte) uint32 {
	var lo, hi uint64
	switch {
	case len(b) >= 8:
		lo, hi = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[len(b)-8:])
	case len(b) >= 4:
		lo, hi = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	default:
		lo, hi = uint64(binary.LittleEndian.Uint16(b)), uint64(binary.LittleEndian.Uint16(b[len(b)-2:]))
	}
	h := (lo*0x9E3779B97F4A7C15 ^ hi) * 0xC2B2AE3D27D4EB4F
	return uint32(h>>32) ^ uint32(len(b))
}
