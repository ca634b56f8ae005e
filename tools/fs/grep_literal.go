package fs

import (
	"bytes"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// lit is a byte string every match of a pattern contains. With fold it
// may appear in any ASCII letter case; s is then lower-cased.
type lit struct {
	s    string
	fold bool
}

// litFacts is what the analysis knows about the strings a syntax node
// matches.
type litFacts struct {
	exact bool  // every match is exactly pre (then pre == suf)
	pre   lit   // every match starts with pre
	suf   lit   // every match ends with suf
	req   []lit // every match contains one of these; empty when unknown
}

// maxLitSet bounds the alternatives of a required set: beyond it the
// prefilter would cost more than it saves.
const maxLitSet = 8

// requiredLiterals returns strings one of which every match of re must
// contain, or nil when there are none worth searching for. Searching for
// them first is a necessary condition only: candidates are still checked
// by the full expression, so the analysis may lose precision (a
// case-sensitive piece may be searched case-insensitively) but must never
// require what a match might lack.
func requiredLiterals(re *syntax.Regexp) []lit {
	f := analyze(re)
	if litSetScore(f.req) == 0 {
		return nil
	}
	return f.req
}

func analyze(re *syntax.Regexp) litFacts {
	switch re.Op {
	case syntax.OpLiteral:
		return literalFacts(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		if r, fold, ok := singleRuneClass(re.Rune); ok {
			return literalFacts([]rune{r}, fold)
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Width zero: adjacent literals still touch.
		return litFacts{exact: true}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return atLeastOnce(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return atLeastOnce(analyze(re.Sub[0]))
		}
	case syntax.OpConcat:
		acc := litFacts{exact: true}
		for _, sub := range re.Sub {
			acc = concatFacts(acc, analyze(sub))
		}
		return acc
	case syntax.OpAlternate:
		var set []lit
		for _, sub := range re.Sub {
			req := analyze(sub).req
			if litSetScore(req) == 0 || len(set)+len(req) > maxLitSet {
				return litFacts{}
			}
			set = append(set, req...)
		}
		return litFacts{req: set}
	}
	return litFacts{}
}

// atLeastOnce is what one or more repetitions of f keep: the first starts
// with its prefix, the last ends with its suffix, each contains its
// required strings.
func atLeastOnce(f litFacts) litFacts {
	return litFacts{pre: f.pre, suf: f.suf, req: f.req}
}

// literalFacts describes a literal. A rune that cannot be searched for
// byte-wise — U+FFFD, which Go's regexp also matches on invalid UTF-8,
// and under case folding any rune whose fold orbit leaves ASCII, such as
// k (Kelvin sign) or s (long s) — splits it into pieces.
func literalFacts(runes []rune, fold bool) litFacts {
	var pieces []lit
	var cur []byte
	whole := true
	for _, r := range runes {
		if !searchableRune(r, fold) {
			whole = false
			pieces = append(pieces, lit{string(cur), fold})
			cur = cur[:0]
			continue
		}
		if fold {
			r = unicode.ToLower(r)
		}
		cur = utf8.AppendRune(cur, r)
	}
	pieces = append(pieces, lit{string(cur), fold})
	if whole {
		l := pieces[0]
		return litFacts{exact: true, pre: l, suf: l, req: nonEmpty(l)}
	}
	f := litFacts{pre: pieces[0], suf: pieces[len(pieces)-1]}
	for _, p := range pieces {
		if litScore(p) > litSetScore(f.req) {
			f.req = []lit{p}
		}
	}
	return f
}

func searchableRune(r rune, fold bool) bool {
	if r == utf8.RuneError || r == '\n' {
		// '\n' never occurs inside a line: a literal holding it is
		// better split than searched for.
		return false
	}
	if !fold {
		return true
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf || r >= utf8.RuneSelf {
			return false
		}
	}
	return r < utf8.RuneSelf
}

// singleRuneClass recognises a class of one rune, or of the two cases of
// one ASCII letter, [Kk] say.
func singleRuneClass(ranges []rune) (rune, bool, bool) {
	switch {
	case len(ranges) == 2 && ranges[0] == ranges[1]:
		return ranges[0], false, true
	case len(ranges) == 4 && ranges[0] == ranges[1] && ranges[2] == ranges[3] &&
		'A' <= ranges[0] && ranges[0] <= 'Z' && ranges[2] == ranges[0]+'a'-'A':
		return ranges[2], true, true
	}
	return 0, false, false
}

func concatFacts(a, b litFacts) litFacts {
	var f litFacts
	f.exact = a.exact && b.exact
	f.pre = a.pre
	if a.exact {
		f.pre = joinLit(a.pre, b.pre)
	}
	f.suf = b.suf
	if b.exact {
		f.suf = joinLit(a.suf, b.suf)
	}
	f.req = bestSet(a.req, b.req)
	f.req = bestSet(f.req, nonEmpty(joinLit(a.suf, b.pre)))
	if f.exact {
		f.req = bestSet(f.req, nonEmpty(f.pre))
	}
	return f
}

// joinLit concatenates two pieces; one folded piece makes the whole
// folded, which only widens what is searched for.
func joinLit(a, b lit) lit {
	l := lit{a.s + b.s, a.fold || b.fold}
	if l.fold {
		l.s = asciiLower(l.s) // folded pieces are ASCII; others keep their other bytes
	}
	return l
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func nonEmpty(l lit) []lit {
	if l.s == "" {
		return nil
	}
	return []lit{l}
}

func bestSet(a, b []lit) []lit {
	if litSetScore(b) > litSetScore(a) {
		return b
	}
	return a
}

// litSetScore rates a required set by its weakest member: a set is only
// as selective as the most common of its strings.
func litSetScore(set []lit) int {
	if len(set) == 0 {
		return 0
	}
	best := -1
	for _, l := range set {
		if s := litScore(l); best < 0 || s < best {
			best = s
		}
	}
	return best
}

// litScore rates how selective a string is: longer is better, and bytes
// common in source code count less than rare ones.
func litScore(l lit) int {
	score := 0
	for i := 0; i < len(l.s); i++ {
		score += 1 + int(byteRarity[l.s[i]])
	}
	return score
}

// commonBytes lists the 80 most common bytes of source code, the most
// common first, as counted over the Go source tree (text files); bytes
// not listed count as rare.
const commonBytes = " et\t0rn\naiso,xclfdu1.p/()A2mg:h\"=b43S6_TEyR8v{}ICO5\\DP97MkLwXVBFN[]-UG*HW;+Y|Q!z"

var byteRarity = func() (t [256]uint8) {
	for i := range t {
		t[i] = 8
	}
	for i := 0; i < len(commonBytes); i++ {
		t[commonBytes[i]] = uint8(i * 8 / len(commonBytes))
	}
	return t
}()

// litFinder finds one required string in a buffer: it scans with
// bytes.IndexByte for the string's rarest byte (both of its cases under
// fold), then compares the whole string around each hit.
type litFinder struct {
	needle []byte
	fold   bool
	off    int  // index of the scanned byte in needle
	b1, b2 byte // its values (b2 == b1 when it has no other case)
}

func newLitFinder(l lit) *litFinder {
	f := &litFinder{needle: []byte(l.s), fold: l.fold}
	for i := 0; i < len(l.s); i++ {
		if f.rarity(l.s[i]) > f.rarity(l.s[f.off]) {
			f.off = i
		}
	}
	f.b1, f.b2 = l.s[f.off], l.s[f.off]
	if l.fold && 'a' <= f.b1 && f.b1 <= 'z' {
		f.b2 = f.b1 - 'a' + 'A'
	}
	return f
}

// rarity ranks a byte of the needle for scanning: under fold a letter is
// only as rare as its commoner case, both being scanned for.
func (f *litFinder) rarity(b byte) int {
	r := byteRank[b]
	if f.fold && 'a' <= b && b <= 'z' {
		r = min(r, byteRank[b-'a'+'A'])
	}
	return r
}

// byteRank is a byte's place in commonBytes, 255 for bytes not listed.
var byteRank = func() (t [256]int) {
	for i := range t {
		t[i] = 255
	}
	for i := 0; i < len(commonBytes); i++ {
		t[commonBytes[i]] = i
	}
	return t
}()

// litCursor is a litFinder's progress through one buffer: the next hit of
// each case of the scanned byte is remembered, so a rare case is not
// rescanned for after every hit of a common one.
type litCursor struct {
	f      *litFinder
	n1, n2 int // next positions of b1 and b2, -1 for none, -2 unknown
}

func (c *litCursor) reset(f *litFinder) {
	*c = litCursor{f: f, n1: -2, n2: -2}
}

// next returns the start of the first occurrence of the needle at or
// after pos in text, or -1.
func (c *litCursor) next(text []byte, pos int) int {
	f := c.f
	for {
		from := pos + f.off
		if from+len(f.needle)-f.off > len(text) {
			return -1
		}
		p := c.scan(text, from)
		if p < 0 {
			return -1
		}
		start := p - f.off
		if start+len(f.needle) <= len(text) && f.equal(text[start:start+len(f.needle)]) {
			return start
		}
		pos = start + 1
	}
}

// scan returns the first position at or after from holding b1 or b2.
func (c *litCursor) scan(text []byte, from int) int {
	f := c.f
	c.n1 = nextByte(text, from, f.b1, c.n1)
	if f.b2 == f.b1 {
		return c.n1
	}
	c.n2 = nextByte(text, from, f.b2, c.n2)
	switch {
	case c.n1 < 0:
		return c.n2
	case c.n2 < 0:
		return c.n1
	}
	return min(c.n1, c.n2)
}

// nextByte returns the first b at or after from, reusing known (the last
// answer) when it is still ahead.
func nextByte(text []byte, from int, b byte, known int) int {
	if known == -1 || known >= from {
		return known
	}
	i := bytes.IndexByte(text[from:], b)
	if i < 0 {
		return -1
	}
	return from + i
}

func (f *litFinder) equal(b []byte) bool {
	if !f.fold {
		return bytes.Equal(b, f.needle)
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != f.needle[i] {
			return false
		}
	}
	return true
}
