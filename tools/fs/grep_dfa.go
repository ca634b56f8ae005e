package fs

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA answers "does this line match?" for a compiled expression,
// exactly as regexp.Match on the line alone would, in one pass over the
// bytes and without backtracking: a lazily built deterministic automaton
// over the expression's program (no captures are needed, only whether a
// match exists). Each state is a set of program threads plus what the
// empty-width assertions need to know of the previous rune (line start,
// word character); transitions are built on first use and cached, on
// bytes in one flat table (a row of 256 per state, so the inner loop is
// one load and one compare), on runes beyond ASCII in a map per state.
//
// A lineDFA is not safe for concurrent use: each search worker has its
// own, sharing the immutable program.
type lineDFA struct {
	prog   *syntax.Prog
	index  map[string]int32 // state key -> row
	states []*dfaState      // by row / 256
	// table[row+b] is the row of the state after byte b, or one of the
	// negative markers below.
	table   []int32
	bytes   int // memory the cache holds, roughly
	flushes int // how many times it was dropped

	// scratch for closures
	stack []uint32
	seen  []uint32 // generation per pc
	gen   uint32
	runes []uint32 // rune-consuming pcs of the current closure
	next  []uint32
	key   []byte
}

// Markers in lineDFA.table.
const (
	dfaUnknown  = -1 // not built yet
	dfaMatched  = -2 // the expression matched before this byte
	dfaNewline  = -3 // '\n': the line ends
	dfaNonASCII = -4 // the first byte of a longer rune, or an invalid one
)

// dfaState is a set of threads waiting to consume the next rune.
type dfaState struct {
	pcs      []uint32
	atStart  bool // no rune consumed yet on this line
	prevWord bool // the previous rune is a word character (for \b)
	other    map[rune]int32
	eol      int8 // whether the line matches if it ends here: 0 unknown, 1 yes, -1 no
}

// maxDFABytes bounds a lineDFA's cache; when it fills, it is dropped and
// rebuilt as needed, so a pathological expression costs time, not memory.
const maxDFABytes = 8 << 20

func newLineDFA(prog *syntax.Prog) *lineDFA {
	d := &lineDFA{prog: prog, seen: make([]uint32, len(prog.Inst))}
	d.flush()
	return d
}

// flush empties the cache; the start state is row 0 again.
func (d *lineDFA) flush() {
	d.index = make(map[string]int32)
	d.states = d.states[:0]
	d.table = d.table[:0]
	d.bytes = 0
	d.flushes++
	d.intern(nil, true, false)
}

// matchLine reports whether line matches. The line must not hold a '\n'
// (lines never do): the states do not track one as the previous rune.
func (d *lineDFA) matchLine(line []byte) bool {
	row := int32(0)
	for i := 0; i < len(line); {
		v := d.table[int(row)+int(line[i])]
		if v >= 0 {
			row = v
			i++
			continue
		}
		if v == dfaNewline {
			return false // not a line; see above
		}
		v, i = d.slowStep(row, v, line, i)
		if v == dfaMatched {
			return true
		}
		row = v
	}
	return d.matchesAtEOL(row)
}

// nextLine returns the bounds of the first matching line that starts at
// or after pos (a line start) in text, whose lines are separated by '\n'.
func (d *lineDFA) nextLine(text []byte, pos int) (int, int, bool) {
	ls := pos
	row := int32(0)
	table := d.table
	for i := pos; i < len(text); {
		v := table[int(row)+int(text[i])]
		if v >= 0 {
			row = v
			i++
			continue
		}
		if v == dfaNewline {
			if d.matchesAtEOL(row) {
				return ls, i, true
			}
			i++
			ls, row = i, 0
			continue
		}
		v, i = d.slowStep(row, v, text, i)
		table = d.table // a rebuild may have replaced it
		if v == dfaMatched {
			return ls, lineEnd(text, i), true
		}
		row = v
	}
	if d.matchesAtEOL(row) {
		return ls, len(text), true
	}
	return 0, 0, false
}

// slowStep consumes the rune at text[i] from row when the table had no
// plain answer v for its first byte: it builds the transition, or follows
// a rune beyond ASCII. It returns the next row (or dfaMatched) and the
// index after the rune.
func (d *lineDFA) slowStep(row, v int32, text []byte, i int) (int32, int) {
	flushes := d.flushes
	switch v {
	case dfaUnknown:
		c := text[i]
		next := d.transition(row, rune(c))
		if d.flushes == flushes {
			d.table[int(row)+int(c)] = next
		}
		return next, i + 1
	case dfaNonASCII:
		r, size := utf8.DecodeRune(text[i:])
		s := d.states[row/256]
		if next, ok := s.other[r]; ok {
			return next, i + size
		}
		next := d.transition(row, r)
		if d.flushes == flushes {
			if s.other == nil {
				s.other = make(map[rune]int32)
			}
			s.other[r] = next
			d.bytes += 16
		}
		return next, i + size
	}
	return v, i + 1 // dfaMatched
}

func (d *lineDFA) matchesAtEOL(row int32) bool {
	s := d.states[row/256]
	if s.eol == 0 {
		s.eol = -1
		if d.closure(s, -1) {
			s.eol = 1
		}
	}
	return s.eol == 1
}

// transition consumes r from the state at row: dfaMatched if the
// expression matched before r, else the row of the state after it (after
// a cache flush, if the cache was full, in the new cache).
func (d *lineDFA) transition(row int32, r rune) int32 {
	s := d.states[row/256]
	if d.closure(s, r) {
		return dfaMatched
	}
	d.next = d.next[:0]
	d.gen++
	for _, pc := range d.runes {
		inst := &d.prog.Inst[pc]
		var ok bool
		switch inst.Op {
		case syntax.InstRune1:
			ok = r == inst.Rune[0]
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		default:
			ok = inst.MatchRune(r)
		}
		if ok && d.seen[inst.Out] != d.gen {
			d.seen[inst.Out] = d.gen
			d.next = append(d.next, inst.Out)
		}
	}
	slices.Sort(d.next)
	if d.bytes >= maxDFABytes {
		d.flush()
	}
	return d.intern(d.next, false, syntax.IsWordChar(r))
}

// closure follows s's threads, and a new thread starting here (the search
// is unanchored), through every instruction that consumes nothing, given
// that the next rune is r (-1 at the end of the line). It collects the
// rune-consuming instructions in d.runes and reports whether a match
// instruction was reached.
func (d *lineDFA) closure(s *dfaState, r rune) bool {
	prev := rune(' ')
	switch {
	case s.atStart:
		prev = -1
	case s.prevWord:
		prev = 'a'
	}
	ctx := syntax.EmptyOpContext(prev, r)
	d.gen++
	d.runes = d.runes[:0]
	d.stack = append(d.stack[:0], uint32(d.prog.Start))
	for i := len(s.pcs) - 1; i >= 0; i-- {
		d.stack = append(d.stack, s.pcs[i])
	}
	matched := false
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] == d.gen {
			continue
		}
		d.seen[pc] = d.gen
		inst := &d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstMatch:
			matched = true
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Arg, inst.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^ctx == 0 {
				d.stack = append(d.stack, inst.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.runes = append(d.runes, pc)
		}
	}
	return matched
}

// intern returns the row of the state for a sorted set of pcs and
// flags, creating it on first use.
func (d *lineDFA) intern(pcs []uint32, atStart, prevWord bool) int32 {
	d.key = d.key[:0]
	var flags byte
	if atStart {
		flags |= 1
	}
	if prevWord {
		flags |= 2
	}
	d.key = append(d.key, flags)
	for _, pc := range pcs {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if row, ok := d.index[string(d.key)]; ok {
		return row
	}
	row := int32(len(d.table))
	d.index[string(d.key)] = row
	d.states = append(d.states, &dfaState{pcs: slices.Clone(pcs), atStart: atStart, prevWord: prevWord})
	for b := 0; b < 256; b++ {
		v := int32(dfaUnknown)
		switch {
		case b == '\n':
			v = dfaNewline
		case b >= utf8.RuneSelf:
			v = dfaNonASCII
		}
		d.table = append(d.table, v)
	}
	d.bytes += 256*4 + 2*len(d.key) + 4*len(pcs) + 64
	return row
}
