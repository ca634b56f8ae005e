package fs

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// startAccel skips, eight bytes per step, the text a lineDFA would spend
// in its start state. For an expression with no literal to search for —
// [A-Z]{4,}[0-9]{2,} say — that is most of the text, and the table walk,
// one dependent load per byte, is the search's whole cost.
//
// A byte escapes the start state when its transition leads elsewhere:
// every byte beyond ASCII (its transition depends on the rune it starts),
// and the ASCII ones of the escape set. Where every escaping ASCII byte
// leads to one of a few states, the bytes that escape those states make
// a second set, and a position is only a candidate if its byte is in the
// first set and the next byte in the second: an A followed by a b in
// source text leaves the start state and comes straight back, so
// [A-Z]{4,} looks at upper-case pairs only. Both sets are properties of
// the automaton, not of its cache, so the accelerator stays valid when
// the cache is flushed. Each set must form at most maxAccelRanges ASCII
// ranges: they are tested with SWAR arithmetic on seven-bit lanes, which
// cannot carry from one byte into the next.
type startAccel struct {
	// The ranges' constants (see escapeRanges); those not in use are
	// zero, which matches no byte.
	lo, hi   [maxAccelRanges]uint64 // first byte
	lo2, hi2 [maxAccelRanges]uint64 // the byte after it
	// single: each set is one range (the others are zero), the common
	// case — [A-Z] — which skip tests with half the operations.
	single bool
}

// maxAccelRanges bounds an escape set's ASCII ranges.
const maxAccelRanges = 3

// maxCommonEscapes bounds how many of the 32 bytes most common in source
// code (see commonBytes) may escape: beyond it the skips are too short to
// repay leaving the table walk — [a-z] escapes at every other byte, [A-Z]
// at one in ten.
const maxCommonEscapes = 3

// maxAccelSeconds bounds the states the first escape may lead to for the
// second set to be built (128 transitions each).
const maxAccelSeconds = 4

const (
	lanes01 = 0x0101010101010101
	lanes7F = 0x7f7f7f7f7f7f7f7f
	lanes80 = 0x8080808080808080
)

// buildStartAccel builds the ASCII transitions the accelerator needs and
// returns it, or nil when there is none worth using.
func (d *lineDFA) buildStartAccel() *startAccel {
	var escapes [utf8.RuneSelf]bool
	var seconds []uint32
	var n1 int
	common := 0
	flushes := d.flushes
	for b := range utf8.RuneSelf {
		next := d.step(dfaStart, byte(b))
		if next == dfaStart {
			continue
		}
		escapes[b] = true
		if byteRank[b] < 32 {
			common++
		}
		if !slices.Contains(seconds, next) {
			seconds = append(seconds, next)
		}
	}
	a := &startAccel{}
	if n1 = escapeRanges(&escapes, &a.lo, &a.hi); common > maxCommonEscapes || n1 == 0 {
		return nil
	}
	// The second set; by default every byte.
	a.lo2[0] = 0x80 * lanes01
	a.single = n1 == 1
	if len(seconds) > maxAccelSeconds || slices.Contains(seconds, dfaMatched) {
		return a
	}
	// A byte that leaves the start state leaves any (a new thread starts
	// on it), so the first set is in the second; skip relies on it.
	escapes2 := escapes
	for _, row := range seconds {
		for b := range utf8.RuneSelf {
			if d.step(row, byte(b)) != dfaStart {
				escapes2[b] = true
			}
		}
	}
	var lo2, hi2 [maxAccelRanges]uint64
	if n := escapeRanges(&escapes2, &lo2, &hi2); d.flushes == flushes && n > 0 {
		// Without a flush, the rows in seconds were the states they were
		// taken for.
		a.lo2, a.hi2 = lo2, hi2
		a.single = n1 == 1 && n == 1
	}
	return a
}

// step returns the row after ASCII byte b from row, building it if need
// be.
func (d *lineDFA) step(row uint32, b byte) uint32 {
	if next := d.table[row+uint32(b)]; next != dfaUnknown {
		return next
	}
	next, _ := d.slowStep(row, []byte{b}, 0)
	return next
}

// escapeRanges sets the range constants of an escape set: the high bit
// of lane x+lo is set when x >= first, of x+hi when x > last. It returns
// how many ranges the set has, 0 if more than maxAccelRanges or none.
func escapeRanges(set *[utf8.RuneSelf]bool, lo, hi *[maxAccelRanges]uint64) int {
	n := 0
	for b := 0; b < utf8.RuneSelf; {
		if !set[b] {
			b++
			continue
		}
		first := b
		for b < utf8.RuneSelf && set[b] {
			b++
		}
		if n == maxAccelRanges {
			return 0
		}
		lo[n] = (0x80 - uint64(first)) * lanes01
		hi[n] = (0x7f - uint64(b-1)) * lanes01
		n++
	}
	return n
}

// skip returns the first candidate position at or after i — a byte that
// leaves the start state, followed by one that does not bring it back —
// or, if there is none, the first index within 9 bytes of end.
func (a *startAccel) skip(text []byte, i, end int) int {
	if a.single {
		return a.skipSingle(text, i, end)
	}
	for ; i+9 <= end; i += 8 {
		w := binary.LittleEndian.Uint64(text[i : i+8])
		x := w & lanes7F
		m := w | (x+a.lo[0])&^(x+a.hi[0]) | (x+a.lo[1])&^(x+a.hi[1]) | (x+a.lo[2])&^(x+a.hi[2])
		// The next bytes, lane by lane; beyond ASCII, a byte always
		// escapes, and so does the one after a byte beyond ASCII.
		w2 := binary.LittleEndian.Uint64(text[i+1 : i+9])
		x2 := w2 & lanes7F
		m2 := w | w2 | (x2+a.lo2[0])&^(x2+a.hi2[0]) | (x2+a.lo2[1])&^(x2+a.hi2[1]) | (x2+a.lo2[2])&^(x2+a.hi2[2])
		if m &= m2 & lanes80; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// skipSingle is skip when each set is one range.
func (a *startAccel) skipSingle(text []byte, i, end int) int {
	lo, hi, lo2, hi2 := a.lo[0], a.hi[0], a.lo2[0], a.hi2[0]
	for ; i+9 <= end; i += 8 {
		w := binary.LittleEndian.Uint64(text[i : i+8])
		w2 := binary.LittleEndian.Uint64(text[i+1 : i+9])
		x, x2 := w&lanes7F, w2&lanes7F
		m := (w | (x+lo)&^(x+hi)) & (w | w2 | (x2+lo2)&^(x2+hi2)) & lanes80
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}
