// Package textclip bounds text that rein quotes in messages, events and
// tool results: model output, server metadata, configuration values.
//
// Every function keeps valid UTF-8 valid: a cut never splits a rune, so a
// clipped string can go into JSON or a terminal without becoming mojibake
// or an invalid-UTF-8 error downstream.
package textclip

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks a cut.
const Ellipsis = "…"

// Clip returns s cut to at most n bytes on a rune boundary, followed by
// Ellipsis when anything was cut (so the result may be up to
// len(Ellipsis) bytes longer than n). n <= 0 keeps nothing but the mark
// of a non-empty s.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:RuneStart(s, max(n, 0))] + Ellipsis
}

// OneLine joins the words of s with single spaces: line breaks, tabs and
// runs of blanks become one space, so text from elsewhere cannot start a
// line of its own in a message or log.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Line is OneLine then Clip: text from elsewhere as one bounded line.
func Line(s string, n int) string { return Clip(OneLine(s), n) }

// RuneStart returns the largest i <= n such that s[:i] ends on a rune
// boundary. n beyond len(s) gives len(s).
func RuneStart(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// Runes returns s cut to at most n runes (not bytes), followed by
// Ellipsis when anything was cut: the bound for text shown in a column
// of a terminal, where a rune is roughly one cell. n < 0 counts as 0.
func Runes(s string, n int) string {
	n = max(n, 0)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + Ellipsis
}

// FirstLine returns the first line of s, trimmed: an error message that
// must stay one line on stderr keeps its summary and drops the detail
// (a stack, a server's multi-line body) that follows.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
