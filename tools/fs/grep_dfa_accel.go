package fs

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// startAccel skips, eight bytes per step, the text a lineDFA would spend
// in its start state: the bytes whose transition from the start state
// leads back to it. For an expression with no literal to search for —
// [A-Z]{4,}[0-9]{2,} say — that is most of the text, and the table walk,
// one dependent load per byte, is the search's whole cost.
//
// The bytes that leave the start state (its escape set) are a property
// of the automaton, not of its cache, so the accelerator stays valid when
// the cache is flushed. Every byte beyond ASCII escapes (its transition
// depends on the rune it starts), and the ASCII ones must form at most
// maxAccelRanges ranges: each costs a few word operations per eight
// bytes, tested with SWAR arithmetic on seven-bit lanes, which cannot
// carry from one byte into the next.
type startAccel struct {
	// The ranges' constants; those not in use are zero, which matches
	// no byte.
	lo, hi [maxAccelRanges]uint64
}

// maxAccelRanges bounds the escape set's ASCII ranges.
const maxAccelRanges = 3

// maxCommonEscapes bounds how many of the 32 bytes most common in source
// code (see commonBytes) may escape: beyond it the skips are too short to
// repay leaving the table walk — [a-z] escapes at every other byte, [A-Z]
// at one in ten.
const maxCommonEscapes = 3

const (
	lanes01 = 0x0101010101010101
	lanes7F = 0x7f7f7f7f7f7f7f7f
	lanes80 = 0x8080808080808080
)

// buildStartAccel builds every ASCII transition of the start state and
// returns the accelerator for its escape set, or nil when there is none
// worth using.
func (d *lineDFA) buildStartAccel() *startAccel {
	var escapes [utf8.RuneSelf]bool
	common := 0
	for b := range utf8.RuneSelf {
		next := d.table[dfaStart+b]
		if next == dfaUnknown {
			next, _ = d.slowStep(dfaStart, []byte{byte(b)}, 0)
		}
		if next != dfaStart {
			escapes[b] = true
			if byteRank[b] < 32 {
				common++
			}
		}
	}
	if common > maxCommonEscapes {
		return nil
	}
	a := &startAccel{}
	n := 0
	for b := 0; b < utf8.RuneSelf; {
		if !escapes[b] {
			b++
			continue
		}
		first := b
		for b < utf8.RuneSelf && escapes[b] {
			b++
		}
		if n == maxAccelRanges {
			return nil
		}
		// Lane high bit of x+lo: x >= first; of x+hi: x > last.
		a.lo[n] = (0x80 - uint64(first)) * lanes01
		a.hi[n] = (0x7f - uint64(b-1)) * lanes01
		n++
	}
	return a
}

// skip returns the index of the first byte at or after i that leaves the
// start state, or the first index within 8 bytes of end past which it
// found none.
func (a *startAccel) skip(text []byte, i, end int) int {
	for ; i+8 <= end; i += 8 {
		w := binary.LittleEndian.Uint64(text[i : i+8])
		x := w & lanes7F
		m := w | (x+a.lo[0])&^(x+a.hi[0]) | (x+a.lo[1])&^(x+a.hi[1]) | (x+a.lo[2])&^(x+a.hi[2])
		if m &= lanes80; m != 0 { // the high bit of w: beyond ASCII
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}
