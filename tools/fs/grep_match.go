package fs

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// lineMatcher finds the lines of a buffer that grep reports: those on
// which the expression matches when run on the line alone (the line
// without its '\n', with any '\r'). It is immutable and shared by the
// search workers; each worker keeps its mutable state in a matchScratch.
type lineMatcher struct {
	re   *regexp.Regexp
	prog *syntax.Prog // nil: too large for the DFA, lines go through re
	lits []lit        // one of these is on every matching line; nil if unknown
	// pure: the expression is its one literal, so a line holding it
	// matches and needs no other check.
	pure bool
	// textAnchored: the expression uses \A or \z (or ^ and $ under
	// (?-m)). The old grep required the whole file to match before it
	// looked at lines, and for these alone that is a further condition,
	// kept so results do not change.
	textAnchored bool
}

// maxDFAInsts bounds the program size the DFA is used for.
const maxDFAInsts = 20_000

// newLineMatcher compiles expr (already carrying grep's flags).
func newLineMatcher(expr string) (*lineMatcher, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	// Parse as regexp.Compile does, to get the very same program.
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{re: re, lits: requiredLiterals(tree), pure: isPureLiteral(tree)}
	if len(prog.Inst) <= maxDFAInsts {
		m.prog = prog
	}
	for _, inst := range prog.Inst {
		if inst.Op == syntax.InstEmptyWidth && syntax.EmptyOp(inst.Arg)&(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
			m.textAnchored = true
		}
	}
	return m, nil
}

// isPureLiteral reports whether tree is one literal that the literal
// search matches exactly: case-sensitive, or folded with ASCII-only case
// variants.
func isPureLiteral(tree *syntax.Regexp) bool {
	for tree.Op == syntax.OpCapture {
		tree = tree.Sub[0]
	}
	if tree.Op != syntax.OpLiteral {
		return false
	}
	fold := tree.Flags&syntax.FoldCase != 0
	for _, r := range tree.Rune {
		if !searchableRune(r, fold) {
			return false
		}
	}
	return true
}

// matchScratch is one worker's mutable matching state.
type matchScratch struct {
	m       *lineMatcher
	dfa     *lineDFA
	finders []*litFinder
	cursors []litCursor
	hits    []int // each cursor's last answer, -2 unknown
}

func (m *lineMatcher) scratch() *matchScratch {
	sc := &matchScratch{m: m}
	if m.prog != nil {
		sc.dfa = newLineDFA(m.prog)
	}
	for _, l := range m.lits {
		sc.finders = append(sc.finders, newLitFinder(l))
	}
	sc.cursors = make([]litCursor, len(sc.finders))
	sc.hits = make([]int, len(sc.finders))
	return sc
}

// start prepares for a new buffer.
func (sc *matchScratch) start() {
	for i, f := range sc.finders {
		sc.cursors[i].reset(f)
		sc.hits[i] = -2
	}
}

// nextLine returns the bounds [ls, le) of the first matching line of
// text that starts at or after pos, itself a line start. text is a
// file's content without its final '\n'. Calls for one buffer, after
// start, must come with increasing pos.
func (sc *matchScratch) nextLine(text []byte, pos int) (int, int, bool) {
	if sc.finders == nil {
		if sc.dfa != nil {
			return sc.dfa.nextLine(text, pos)
		}
		for pos <= len(text) {
			ls, le := pos, lineEnd(text, pos)
			if sc.m.re.Match(text[ls:le]) {
				return ls, le, true
			}
			pos = le + 1
		}
		return 0, 0, false
	}
	for pos <= len(text) {
		at := sc.nextLiteral(text, pos)
		if at < 0 {
			return 0, 0, false
		}
		ls := bytes.LastIndexByte(text[:at], '\n') + 1
		le := lineEnd(text, at)
		if sc.m.pure || sc.matchLine(text[ls:le]) {
			return ls, le, true
		}
		pos = le + 1
	}
	return 0, 0, false
}

// nextLiteral returns the first position at or after pos where one of the
// required strings starts, or -1.
func (sc *matchScratch) nextLiteral(text []byte, pos int) int {
	best := -1
	for i := range sc.cursors {
		h := sc.hits[i]
		if h != -1 && h < pos {
			h = sc.cursors[i].next(text, pos)
			sc.hits[i] = h
		}
		if h >= 0 && (best < 0 || h < best) {
			best = h
		}
	}
	return best
}

func (sc *matchScratch) matchLine(line []byte) bool {
	if sc.dfa != nil {
		return sc.dfa.matchLine(line)
	}
	return sc.m.re.Match(line)
}

// lineEnd returns the index of the '\n' ending the line that holds i, or
// len(text).
func lineEnd(text []byte, i int) int {
	if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(text)
}
