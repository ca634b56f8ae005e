// Package termsafe makes text that a model, an MCP server or a repository
// chose safe to print on a terminal: visible and inert. A terminal obeys
// control characters — ESC and CSI sequences move the cursor and erase
// lines, CR returns to the start of the line, bidirectional overrides
// reorder what follows, zero-width characters hide text — so printing
// such text raw lets it show one thing while being another (an approval
// prompt that reads "ls -la" for the command "rm -rf x\r\x1b[2Kls -la").
//
// The functions here replace every such character with a visible escape:
// C0 controls, DEL and C1 controls as \xNN (CR, LF and TAB as \r, \n,
// \t), format and invisible characters (bidi overrides and isolates,
// zero-width spaces and joiners, the BOM, line and paragraph separators)
// as \uNNNN or \UNNNNNNNN, and bytes that are not UTF-8 as \xNN. Line and
// Escape also show a backslash that could be read as the start of such an
// escape as \\, so what they print is unambiguous: Unescape recovers the
// original.
package termsafe

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Line is for single-line contexts (a command in an approval prompt, a
// tool-call line): every character above is escaped, newlines and tabs
// too, so one line stays one line.
func Line(s string) string { return escape(s, false, false, true) }

// Escape is for blocks of text (a server's message, a tool's output): as
// Line, but newlines and tabs, which are layout, are kept.
func Escape(s string) string { return escape(s, true, true, true) }

// Text is for the assistant's answer, which is meant to be read: controls
// and invisible characters are escaped, newlines and tabs kept, and
// backslashes left alone (code in an answer keeps its "\n" literals), so
// a literal "\x1b" in the answer reads like an escaped ESC. Use it only
// where no decision depends on the exact text.
func Text(s string) string { return escape(s, true, true, false) }

// escape does the work; keepNL and keepTab keep \n and \t raw, and
// backslashes are doubled when they could start an escape.
func escape(s string, keepNL, keepTab, backslashes bool) string {
	if safe(s, keepNL, keepTab, backslashes) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNL, r == '\t' && keepTab:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == '\\' && backslashes && i+1 < len(s) && startsEscape(s[i+1:], keepNL, keepTab):
			b.WriteString(`\\`)
		case hidden(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// safe reports whether s needs no escaping: the common case costs one
// pass and no allocation.
func safe(s string, keepNL, keepTab, backslashes bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return false // decided rune by rune
		case c == '\n' && keepNL, c == '\t' && keepTab:
		case c < 0x20 || c == 0x7f:
			return false
		case c == '\\' && backslashes:
			return false
		}
	}
	return true
}

// startsEscape reports whether a backslash before rest could be read as
// the start of an escape: rest starts with a letter Unescape decodes,
// another backslash, or a character that is itself escaped.
func startsEscape(rest string, keepNL, keepTab bool) bool {
	switch rest[0] {
	case '\\', 'x', 'u', 'U', 'r', 'n', 't':
		return true
	}
	r, size := utf8.DecodeRuneInString(rest)
	switch {
	case r == utf8.RuneError && size <= 1:
		return true
	case r == '\n':
		return !keepNL
	case r == '\t':
		return !keepTab
	}
	return r < 0x20 || r == 0x7f || hidden(r)
}

// invisible are characters outside the control and format categories
// that render as nothing (Hangul fillers, the combining grapheme joiner).
var invisible = []rune{0x034f, 0x115f, 0x1160, 0x3164, 0xffa0}

// hidden reports characters a terminal obeys or shows as nothing:
// controls (C0, DEL, C1), format characters (bidi overrides and
// isolates, zero-width spaces and joiners, word joiner, BOM, soft hyphen,
// tags), line and paragraph separators, and the invisible fillers.
func hidden(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	if r < 0xa0 {
		return true // C1
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) || slices.Contains(invisible, r)
}

// JSON makes encoded JSON text inert: encoding/json escapes C0 controls
// and U+2028/U+2029 but writes DEL, C1 controls (U+009B is CSI to many
// terminals), bidi overrides and invisible characters raw. JSON replaces
// each with its \uXXXX escape (a surrogate pair above U+FFFF), which
// every JSON reader decodes to the same string. Outside strings valid
// JSON holds only ASCII, so only string contents change.
func JSON(s string) string {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r == '\n' || r == '\t' || r == '\r':
			b.WriteByte(s[i]) // invalid JSON already, or layout between tokens
		case hidden(r) && r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
