package secret

import "strings"

// maxPending bounds what a Stream holds back: past it, the text is
// redacted and released even without a line break.
const maxPending = 64 << 10

// Stream redacts a text that arrives in pieces, such as an answer a
// model streams delta by delta, where a secret (or its base64, wrapped
// over lines) may be split between two pieces and redacting each piece
// alone would print it. Write returns what can be printed now: whole
// lines only (the patterns end at a line's end) — or, while the
// unfinished line holds no word a pattern needs, whole words —, less the
// end that could still be the start of a registered value's form, and
// never half of a form. Flush returns the rest. Output lags the input by
// a word (a line where a pattern may match) and the length of the
// longest form.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	pending string
}

// Write adds piece and returns the redacted text that no later piece can
// change.
func (s *Stream) Write(piece string) string {
	s.pending += piece
	cut := strings.LastIndexByte(s.pending, '\n') + 1
	if tail := s.pending[cut:]; !mayStartPattern(tail) {
		// No rule's word is on the unfinished line, so no pattern can
		// match across its end: release it up to its last word, which
		// the next piece may still extend into one. This keeps an
		// answer streaming word by word instead of line by line.
		cut += strings.LastIndexAny(tail, " \t") + 1
	}
	if len(s.pending) > maxPending {
		cut = len(s.pending)
	}
	known.RLock()
	m := known.matcher
	known.RUnlock()
	if m != nil && cut > 0 {
		cut = m.safeCut(s.pending, cut)
	}
	if cut == 0 {
		return ""
	}
	out := Redact(s.pending[:cut])
	s.pending = s.pending[cut:]
	return out
}

// mayStartPattern reports whether line holds a word some pattern rule
// needs (a key such as "password" or "bearer", a "://"), so a match may
// still be completed by the next piece.
func mayStartPattern(line string) bool {
	lower := strings.ToLower(line)
	for _, w := range triggerWords {
		if w != "" && strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// Flush returns what Write held back, redacted, and empties the stream.
func (s *Stream) Flush() string {
	out := Redact(s.pending)
	s.pending = ""
	return out
}

// safeCut moves cut back so that s[:cut] ends before anything that could
// begin a form not yet complete (see holdFrom) and before any form that
// spans cut.
func (m *matcher) safeCut(s string, cut int) int {
	cut = min(cut, m.holdFrom(s))
	for _, sp := range m.find(s, nil) {
		if sp.start < cut && cut < sp.end {
			return sp.start
		}
	}
	return cut
}

// holdFrom returns where the shortest suffix of s holding longest-1
// bytes that are not whitespace starts: a form that the next piece
// completes starts inside it. Bytes of an escape (\n) do not count.
func (m *matcher) holdFrom(s string) int {
	need := m.longest - 1
	for i := len(s) - 1; i >= 0; i-- {
		if need <= 0 {
			return i + 1
		}
		if spaceAt(s, i) > 0 || i > 0 && spaceAt(s, i-1) == 2 {
			continue
		}
		need--
	}
	return 0
}
