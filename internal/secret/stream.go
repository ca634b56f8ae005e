package secret

import "strings"

// maxPending bounds what a Stream holds back: past it, the text is
// redacted and released even without a line break.
const maxPending = 64 << 10

// maxLineContext bounds how much of the released part of the current
// line a Stream keeps as context for the patterns.
const maxLineContext = 4 << 10

// Stream redacts a text that arrives in pieces, such as an answer a
// model streams delta by delta, where a secret (or its base64, wrapped
// over lines) may be split between two pieces and redacting each piece
// alone would print it. Write returns what can be printed now and no
// later piece can change:
//
//   - a line on which a pattern's word appears (a key such as "password",
//     "bearer", a "://") is held to its end, since the value it names may
//     be still to come;
//   - otherwise everything is released except an end that could begin a
//     registered value's form (never half of a form).
//
// The released part of the current line is kept as context, so a pattern
// that begins in it (a URL's scheme before "://") still matches when the
// rest arrives. Flush returns what is held. An answer therefore streams
// as it arrives, except on lines that may carry a credential.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	pending string
	line    string // what was released of the current line, for context
}

// Write adds piece and returns the redacted text that no later piece can
// change.
func (s *Stream) Write(piece string) string {
	s.pending += piece
	cut := strings.LastIndexByte(s.pending, '\n') + 1
	ctx := s.line
	if cut > 0 {
		ctx = ""
	}
	if !mayStartPattern(ctx + s.pending[cut:]) {
		// Release all but an end that may grow into a pattern's word
		// ("gh" of "ghp_"): the context keeps what came before it.
		cut = max(cut, len(s.pending)-wordPrefixSuffix(s.pending))
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
	return s.release(cut)
}

// release redacts and returns pending[:cut], with the released part of
// the line before it as the patterns' context.
func (s *Stream) release(cut int) string {
	text := s.pending[:cut]
	s.pending = s.pending[cut:]
	out := redactAfter(s.line, text)
	if nl := strings.LastIndexByte(text, '\n'); nl >= 0 {
		s.line = text[nl+1:]
	} else {
		s.line += text
	}
	if len(s.line) > maxLineContext {
		s.line = s.line[len(s.line)-maxLineContext:]
	}
	return out
}

// redactAfter redacts text as the continuation of ctx, which was printed
// already (redacted): patterns see both, and what is returned is the part
// of Redact(ctx+text) after Redact(ctx). Should a match reach back into
// ctx and change how it redacts, the part of ctx it changed is dropped
// rather than the redaction.
func redactAfter(ctx, text string) string {
	if ctx == "" {
		return Redact(text)
	}
	r, rc := Redact(ctx+text), Redact(ctx)
	if strings.HasPrefix(r, rc) {
		return r[len(rc):]
	}
	k := 0
	for k < len(r) && k < len(rc) && r[k] == rc[k] {
		k++
	}
	return r[k:]
}

// wordPrefixSuffix returns the length of the longest end of s that is a
// proper prefix of a pattern's word.
func wordPrefixSuffix(s string) int {
	best := 0
	for _, w := range triggerWords {
		for n := min(len(w)-1, len(s)); n > best; n-- {
			if strings.EqualFold(s[len(s)-n:], w[:n]) {
				best = n
				break
			}
		}
	}
	return best
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
	out := redactAfter(s.line, s.pending)
	s.pending, s.line = "", ""
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

// holdFrom returns where the earliest suffix of s that could begin a
// registered form starts — its bytes, whitespace skipped, are a proper
// prefix of a form, so the next piece may complete it — or len(s) when
// none could. Only the last longest-1 bytes that are not whitespace can
// begin one. Text that can no longer become a secret is never held, so
// an answer streams as it arrives even with long keys registered.
func (m *matcher) holdFrom(s string) int {
	start, need := len(s), m.longest-1
	for start > 0 && need > 0 {
		start--
		if spaceAt(s, start) > 0 || start > 0 && spaceAt(s, start-1) == 2 {
			continue
		}
		need--
	}
	for p := start; p < len(s); p++ {
		if spaceAt(s, p) > 0 || p > 0 && spaceAt(s, p-1) == 2 {
			continue
		}
		for _, f := range m.all {
			if f[0] == s[p] && prefixAt(s, p, f) {
				return p
			}
		}
	}
	return len(s)
}

// prefixAt reports whether s from start, whitespace skipped, runs out
// before f ends with every byte matching: a piece still to come may
// complete f. A backslash at the very end may begin an escape (\n) and
// counts as a possible space.
func prefixAt(s string, start int, f string) bool {
	i := start
	for j := 0; j < len(f); j++ {
		for i < len(s) {
			if s[i] == '\\' && i == len(s)-1 {
				return true
			}
			k := spaceAt(s, i)
			if k == 0 {
				break
			}
			i += k
		}
		if i >= len(s) {
			return true
		}
		if s[i] != f[j] {
			return false
		}
		i++
	}
	return false // f is complete here: find handles it
}
