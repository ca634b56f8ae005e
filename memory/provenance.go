package memory

import (
	"hash/fnv"
	"strings"
	"sync"
)

// Provenance decides whether text the model asks to remember came from a
// tool result of the same session — a web page or a repository file that
// may be trying to plant instructions in memory. The rule (docs/memory.md):
//
//   - every tool result the session sees (except memory tools' own) is
//     observed; recall observes the tool-derived entries it returns, so
//     re-remembering one keeps the mark;
//   - a text of six or more words is tool-derived when any six consecutive
//     words of it (lower-cased, punctuation ignored) occur in an observed
//     result; a shorter text when all its words occur consecutively;
//   - once the observed text passes the cap (8 MiB), every later entry is
//     tool-derived: when in doubt, mark.
//
// Paraphrase escapes it, which is why the mark is one defence among
// several: memories are shown as escaped notes, never as instructions.
// A nil *Provenance marks nothing. Safe for concurrent use.
type Provenance struct {
	mu       sync.Mutex
	shingles map[uint64]struct{}
	texts    []string // normalised results, for short texts
	bytes    int
	full     bool
}

const (
	shingleWords   = 6
	provenanceCap  = 8 << 20
	observeMaxText = 256 << 10
)

// NewProvenance returns an empty tracker.
func NewProvenance() *Provenance { return &Provenance{shingles: map[uint64]struct{}{}} }

// Observe records a tool result's text.
func (p *Provenance) Observe(text string) {
	if p == nil || text == "" {
		return
	}
	if len(text) > observeMaxText {
		text = text[:observeMaxText]
	}
	words := Words(text)
	norm := " " + strings.Join(words, " ") + " "
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.full {
		return
	}
	if p.bytes += len(norm) + 8*len(words); p.bytes > provenanceCap {
		p.full, p.shingles, p.texts = true, nil, nil
		return
	}
	p.texts = append(p.texts, norm)
	for i := 0; i+shingleWords <= len(words); i++ {
		p.shingles[shingle(words[i:i+shingleWords])] = struct{}{}
	}
}

// Derived reports whether text overlaps an observed result by the rule
// above.
func (p *Provenance) Derived(text string) bool {
	if p == nil {
		return false
	}
	words := Words(text)
	if len(words) == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.full {
		return true
	}
	if len(words) < shingleWords {
		needle := " " + strings.Join(words, " ") + " "
		for _, t := range p.texts {
			if strings.Contains(t, needle) {
				return true
			}
		}
		return false
	}
	for i := 0; i+shingleWords <= len(words); i++ {
		if _, ok := p.shingles[shingle(words[i:i+shingleWords])]; ok {
			return true
		}
	}
	return false
}

func shingle(words []string) uint64 {
	h := fnv.New64a()
	for _, w := range words {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
