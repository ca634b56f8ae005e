package memory

import (
	"slices"
	"strings"
	"unicode"
)

// Query is a parsed search: words (each matches words it prefixes),
// phrases (consecutive words, from "double quotes") and tags (tag:NAME,
// every one required).
type Query struct {
	Terms []Term
	Tags  []string
}

// Term is a word or a phrase of lower-cased words.
type Term struct {
	Words []string
}

// Query bounds: a search is a few words, not a document.
const (
	maxTerms     = 32
	maxTermRunes = 64
)

// ParseQuery parses a search string. It never fails: characters that are
// not letters or digits separate words, an unclosed quote runs to the
// end, and terms past the first 32 are dropped.
func ParseQuery(s string) Query {
	var q Query
	for len(s) > 0 && len(q.Terms) < maxTerms {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			break
		}
		var tok string
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				tok, s = s[1:], ""
			} else {
				tok, s = s[1:1+end], s[2+end:]
			}
			if ws := Words(tok); len(ws) > 0 {
				q.Terms = append(q.Terms, Term{Words: ws})
			}
			continue
		}
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		tok, s = s[:end], s[end:]
		if name, ok := strings.CutPrefix(strings.ToLower(tok), "tag:"); ok {
			if name = strings.TrimSpace(name); name != "" && len(name) <= MaxTagBytes && len(q.Tags) < MaxTags {
				q.Tags = append(q.Tags, name)
			}
			continue
		}
		for _, w := range Words(tok) {
			if len(q.Terms) < maxTerms {
				q.Terms = append(q.Terms, Term{Words: []string{w}})
			}
		}
	}
	return q
}

// Empty reports whether q matches nothing.
func (q Query) Empty() bool { return len(q.Terms) == 0 && len(q.Tags) == 0 }

// Words splits s into lower-cased words of letters and digits, each cut
// to 64 runes.
func Words(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, f := range fields {
		if r := []rune(f); len(r) > maxTermRunes {
			fields[i] = string(r[:maxTermRunes])
		}
	}
	return fields
}

// FTS5 returns q's terms as an FTS5 MATCH expression: every word a quoted
// prefix query, every phrase a quoted phrase, joined with OR so an entry
// matching some terms is still found (bm25 ranks those matching more
// first). Quoting every word means no user text is read as FTS5 syntax
// (AND, NEAR, column filters). Empty when q has no terms.
func (q Query) FTS5() string {
	var parts []string
	for _, t := range q.Terms {
		quoted := `"` + strings.ReplaceAll(strings.Join(t.Words, " "), `"`, `""`) + `"`
		if len(t.Words) == 1 {
			quoted += "*"
		}
		parts = append(parts, quoted)
	}
	return strings.Join(parts, " OR ")
}

// Score is the plain relevance of text for q's terms, for stores without
// full-text search: one point per term found (a word as a prefix of a
// word of text, a phrase as consecutive words), plus a little for repeats.
// Zero means no term matched.
func (q Query) Score(text string) float64 {
	words := Words(text)
	score := 0.0
	for _, t := range q.Terms {
		n := countTerm(words, t.Words)
		if n > 0 {
			score += 1 + 0.1*float64(min(n, 10)-1)
		}
	}
	return score
}

// countTerm counts the places term occurs in words: a single word as a
// prefix (as FTS5's prefix queries match), a phrase word for word.
func countTerm(words, term []string) int {
	n := 0
	for i := 0; i+len(term) <= len(words); i++ {
		if len(term) == 1 && strings.HasPrefix(words[i], term[0]) ||
			len(term) > 1 && slices.Equal(words[i:i+len(term)], term) {
			n++
		}
	}
	return n
}
