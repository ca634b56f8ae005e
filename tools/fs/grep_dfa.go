package fs

import (
	"bytes"
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
// bytes in one flat table (a row of 256 per state), on runes beyond ASCII
// in a map per state.
//
// The scan is one dependent table load per byte, so it is kept to that:
// the table's first two rows are absorbing sinks — "not built yet" (a
// fresh row is all zeros) and "matched" — and a '\n' is an ordinary
// transition, to the start state or to the matched sink by whether the
// line it ends matches. The inner loop then takes four bytes per check
// and looks back at them one by one only when it landed in a sink.
//
// A lineDFA is not safe for concurrent use: each search worker has its
// own, sharing the immutable program.
type lineDFA struct {
	prog   *syntax.Prog
	uses   syntax.EmptyOp    // the assertions the program makes
	index  map[string]uint32 // state key -> row
	states []*dfaState       // by row / 256; nil for the sinks
	// table[row+b] is the row of the state after byte b: a state's row,
	// dfaUnknown or dfaMatched.
	table   []uint32
	bytes   int // memory the cache holds, roughly
	flushes int // how many times it was dropped

	accel      *startAccel // nil: none worth using (see buildStartAccel)
	accelBuilt bool
	scanned    int // bytes scanned while the accelerator is not built

	// scratch for closures
	stack []uint32
	seen  []uint32 // generation per pc
	gen   uint32
	runes []uint32 // rune-consuming pcs of the current closure
	next  []uint32
	key   []byte
}

// The sinks' rows, and the start state's, which follows them.
const (
	dfaUnknown = 0 * 256 // not built yet, or a byte beyond ASCII (see slowStep)
	dfaMatched = 1 * 256 // the expression matched before this byte
	dfaStart   = 2 * 256 // the first real state: no rune consumed yet
)

// dfaState is a set of threads waiting to consume the next rune.
type dfaState struct {
	pcs      []uint32
	atStart  bool // no rune consumed yet on this line
	prevWord bool // the previous rune is a word character (for \b)
	other    map[rune]uint32
	eol      int8 // whether the line matches if it ends here: 0 unknown, 1 yes, -1 no
}

// accelAfter is how much text a lineDFA scans before it builds its
// accelerator: building costs up to 640 transitions, which a search of a
// few small files would not earn back.
const accelAfter = 256 << 10

// maxDFABytes bounds a lineDFA's cache; when it fills, it is dropped and
// rebuilt as needed, so a pathological expression costs time, not memory.
const maxDFABytes = 8 << 20

func newLineDFA(prog *syntax.Prog) *lineDFA {
	d := &lineDFA{prog: prog, seen: make([]uint32, len(prog.Inst))}
	for _, inst := range prog.Inst {
		if inst.Op == syntax.InstEmptyWidth {
			d.uses |= syntax.EmptyOp(inst.Arg)
		}
	}
	d.flush()
	return d
}

// flush empties the cache: the sinks and the start state again.
func (d *lineDFA) flush() {
	d.index = make(map[string]uint32)
	d.states = append(d.states[:0], nil, nil)
	d.table = append(d.table[:0], make([]uint32, 2*256)...)
	for b := range 256 {
		d.table[dfaMatched+b] = dfaMatched
	}
	d.bytes = 2 * 256 * 4
	d.flushes++
	d.intern(nil, true, false)
}

// matchLine reports whether line matches. The line must not hold a '\n'
// (lines never do): a '\n' would end it.
func (d *lineDFA) matchLine(line []byte) bool {
	_, ok := d.scan(line, 0, len(line))
	return ok
}

// nextLine returns the bounds of the first matching line that starts at
// or after pos (a line start) in text, whose lines are separated by '\n'.
func (d *lineDFA) nextLine(text []byte, pos int) (int, int, bool) {
	at, ok := d.scan(text, pos, len(text))
	if !ok {
		return 0, 0, false
	}
	ls := pos + bytes.LastIndexByte(text[pos:at], '\n') + 1
	return ls, lineEnd(text, at), true
}

// scan runs the automaton over text[pos:end] from the start state, pos
// being a line start, and returns where it matched: the index of the byte
// before which a line matched (its '\n' if the match needed the line's
// end), or end if the last line matches at its end.
func (d *lineDFA) scan(text []byte, pos, end int) (int, bool) {
	if !d.accelBuilt {
		if d.scanned += end - pos; d.scanned >= accelAfter {
			d.accel, d.accelBuilt = d.buildStartAccel(), true
		}
	}
	row, i, matched := d.walk(text, pos, end, dfaStart, d.accel)
	if matched {
		return i, true
	}
	return end, d.matchesAtEOL(row)
}

// walk runs the automaton from row over text[i:stop] (perhaps a little
// past stop, to finish a rune), or until a line matches: then it returns
// true and the index of the byte before which it matched. acc, if not
// nil, skips the text that keeps the start state.
func (d *lineDFA) walk(text []byte, i, stop int, row uint32, acc *startAccel) (uint32, int, bool) {
	for i < stop {
		table := d.table
		for i+8 <= stop {
			if acc != nil && row == dfaStart {
				if i = acc.skip(text, i, stop); i+8 > stop {
					break
				}
			}
			b := (*[8]byte)(text[i : i+8])
			t := (*[256]uint32)(table[row : row+256])
			// Most bytes leave most states where they are (the start
			// state, a .* loop): those eight loads do not depend on
			// one another.
			if (t[b[0]]^row)|(t[b[1]]^row)|(t[b[2]]^row)|(t[b[3]]^row)|(t[b[4]]^row)|(t[b[5]]^row)|(t[b[6]]^row)|(t[b[7]]^row) == 0 {
				i += 8
				continue
			}
			r := t[b[0]]
			r = table[r+uint32(b[1])]
			r = table[r+uint32(b[2])]
			r = table[r+uint32(b[3])]
			if r < dfaStart {
				break // in a sink: look at the four again
			}
			row = r
			i += 4
		}
		// One byte at a time: the last few, or four that met a sink.
		for end := min(i+4, stop); i < end; {
			v := table[row+uint32(text[i])]
			if v >= dfaStart {
				row = v
				i++
				continue
			}
			if v == dfaMatched {
				return row, i, true
			}
			v, i = d.slowStep(row, text, i)
			if v == dfaMatched {
				return row, i, true
			}
			row = v
			table = d.table // a rebuild may have replaced it
		}
	}
	return row, i, false
}

// slowStep consumes the rune at text[i] from row when the table has no
// transition for its first byte: it builds the transition, or follows a
// rune beyond ASCII (whose bytes' entries stay dfaUnknown). It returns the
// next row, or dfaMatched with i unchanged, and the index after the rune.
func (d *lineDFA) slowStep(row uint32, text []byte, i int) (uint32, int) {
	flushes := d.flushes
	c := text[i]
	if c < utf8.RuneSelf {
		var next uint32
		if c == '\n' {
			next = dfaStart
			if d.matchesAtEOL(row) {
				next = dfaMatched
			}
		} else {
			next = d.transition(row, rune(c))
		}
		if d.flushes == flushes {
			d.table[row+uint32(c)] = next
		}
		if next == dfaMatched {
			return next, i
		}
		return next, i + 1
	}
	r, size := utf8.DecodeRune(text[i:])
	s := d.states[row/256]
	next, ok := s.other[r]
	if !ok {
		next = d.transition(row, r)
		if d.flushes == flushes {
			if s.other == nil {
				s.other = make(map[rune]uint32)
			}
			s.other[r] = next
			d.bytes += 16
		}
	}
	if next == dfaMatched {
		return next, i
	}
	return next, i + size
}

func (d *lineDFA) matchesAtEOL(row uint32) bool {
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
func (d *lineDFA) transition(row uint32, r rune) uint32 {
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
// flags, creating it on first use. A flag no instruction of the program
// looks at is dropped, so that states differing only in it are one: the
// start state is then also the state between matches, and most bytes
// leave it where it is (see scan).
func (d *lineDFA) intern(pcs []uint32, atStart, prevWord bool) uint32 {
	atStart = atStart && d.uses&(syntax.EmptyBeginLine|syntax.EmptyBeginText|syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0
	prevWord = prevWord && d.uses&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0
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
	row := uint32(len(d.table)) // rows stay below 2³²: the cache is bounded
	d.index[string(d.key)] = row
	d.states = append(d.states, &dfaState{pcs: slices.Clone(pcs), atStart: atStart, prevWord: prevWord})
	d.table = append(d.table, make([]uint32, 256)...)
	d.bytes += 256*4 + 2*len(d.key) + 4*len(pcs) + 64
	return row
}
