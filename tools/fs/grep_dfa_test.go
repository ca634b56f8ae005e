package fs

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantLines lists the [start, end) bounds of the lines of text (split as
// grep splits them) on which re matches when run on the line alone: what
// the DFA's scan must find, computed without it.
func wantLines(re *regexp.Regexp, text []byte) [][2]int {
	var out [][2]int
	for ls := 0; ls <= len(text); {
		le := lineEnd(text, ls)
		if re.Match(text[ls:le]) {
			out = append(out, [2]int{ls, le})
		}
		ls = le + 1
	}
	return out
}

// dfaLines lists the matching lines the scratch finds, as render asks.
func dfaLines(sc *matchScratch, text []byte) [][2]int {
	var out [][2]int
	sc.start()
	for pos := 0; pos <= len(text); {
		ls, le, ok := sc.nextLine(text, pos)
		if !ok {
			break
		}
		out = append(out, [2]int{ls, le})
		pos = le + 1
	}
	return out
}

// checkScan compares the matcher's lines on text with regexp's, through
// the DFA alone when the matcher has one, and through the whole matcher
// (literal prefilter included).
func checkScan(t *testing.T, expr string, text []byte) {
	t.Helper()
	m, err := newLineMatcher(expr)
	if err != nil {
		return
	}
	want := wantLines(m.re, text)
	if diff := cmp.Diff(want, dfaLines(m.scratch(), text)); diff != "" {
		t.Fatalf("%q on %q: matching lines differ from regexp's (-want +got):\n%s", expr, text, diff)
	}
	if m.prog == nil {
		return
	}
	// The DFA alone, without the literal prefilter in front of it, and
	// with its accelerator built from the start rather than after
	// accelAfter bytes.
	sc := m.scratch()
	sc.finders, sc.cursors, sc.hits = nil, nil, nil
	sc.dfa.accel, sc.dfa.accelBuilt = sc.dfa.buildStartAccel(), true
	if diff := cmp.Diff(want, dfaLines(sc, text)); diff != "" {
		t.Fatalf("%q on %q: DFA's matching lines differ from regexp's (-want +got):\n%s", expr, text, diff)
	}
}

// scanPatterns exercise the scan's paths: the start-state accelerator
// (patterns whose first byte is a rare class), the self-loop skip (.*
// loops, classes), matches needing the line's end, anchors, word
// boundaries that keep the line-start and word flags in the states, and
// runes beyond ASCII.
var scanPatterns = []string{
	`[A-Z]{4,}[0-9]{2,}`,
	`[a-z]+[0-9]{4}[A-Z]`,
	`[0-9]{3}`,
	`[!-/]{2}`,
	`[A-Z][a-z]*$`,
	`Q.*Z`,
	`^[A-Z]+$`,
	`\b[A-Z]{2}\b`,
	`[^a-z ]{5}`,
	`[é日]|\x{FFFD}`,
	`(?i)[k-m]{3}`,
	`x*`,
	`$`,
	`\z`,
	`(?-m)^A|B$`,
	`[A-Z]\n`,
	`\x{FFFD}x|[A-Z]{2}`, // invalid UTF-8 leads elsewhere than [A-Z] does
}

// scanText is source-like text with the bytes the accelerator and the
// table must tell apart: upper case runs, digits, runes beyond ASCII,
// invalid UTF-8, empty lines and CRs.
func scanText(r *rand.Rand, n int) []byte {
	pieces := []string{"func ", "main", "()", " {\n", "\treturn ", "ABCD12", "HTTP2", "X", "Z",
		"42", "é", "日本", "\xff", "\xe6\x97", "\n", "\n\n", "\r\n", "  ", "QZ", "ſK", "kelvin", "_", "!?/", "\xffx"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.Bytes()
}

func TestDFAScanMatchesRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range scanPatterns {
		for _, expr := range []string{"(?m)" + p, "(?i)(?m)" + p} {
			for _, n := range []int{0, 1, 7, 8, 9, 31, 200, 5000} {
				for range 5 {
					checkScan(t, expr, scanText(r, n))
				}
			}
		}
	}
}

// TestDFAScanGoSource compares the scan with regexp on real source text,
// where the accelerator's skips are long.
func TestDFAScanGoSource(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the Go source tree")
	}
	text := goSrcText(t, 2<<20)
	for _, p := range scanPatterns[:8] {
		checkScan(t, "(?m)"+p, text)
	}
}

// FuzzDFAScan compares the lines the scan finds in a multi-line text with
// those regexp matches, line by line, for any pattern.
func FuzzDFAScan(f *testing.F) {
	for _, p := range scanPatterns {
		f.Add(p, false, "func main() {\n\tx := ABCD12 + HTTP2\n}\n\nQZ é \xff\n")
	}
	f.Add(`[A-Z]{2}`, true, strings.Repeat("abcdefgh", 5)+"AB\n"+strings.Repeat("x", 17)+"Z")
	f.Fuzz(func(t *testing.T, pattern string, fold bool, text string) {
		if len(pattern) > 64 {
			return
		}
		expr := "(?m)" + pattern
		if fold {
			expr = "(?i)" + expr
		}
		checkScan(t, expr, []byte(text))
	})
}

// TestStartAccelSkip checks the SWAR candidate test against the
// automaton it was built from, on every pair of byte values in every
// lane: a position must be a candidate when its two bytes leave the start
// state or match; for [A-Z]{4,}, whose upper-case letters all lead to one
// state, exactly then.
func TestStartAccelSkip(t *testing.T) {
	for _, c := range []struct {
		expr  string
		exact bool
	}{
		{`(?m)[A-Z]{4,}`, true},
		{`(?m)[A-Z]`, false},    // a match after one byte: the second set is every byte
		{`(?m)[#-&<>]x`, false}, // the second set has four ranges: every byte
		{`(?m)[\x00-\x02]|[~\x7f]`, false},
		{`(?m)#[0-9]|&[a-c]$`, false},
	} {
		m, err := newLineMatcher(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		d := newLineDFA(m.prog)
		acc := d.buildStartAccel()
		if acc == nil {
			t.Fatalf("%s: no accelerator", c.expr)
		}
		t.Logf("%s: single %v", c.expr, acc.single)
		// candidate: the two bytes do not bring the start state back to
		// itself without a match.
		candidate := func(b1, b2 byte) bool {
			if b1 >= 0x80 || b2 >= 0x80 {
				return d.step(dfaStart, b1&0x7f) != dfaStart || b1 >= 0x80
			}
			s1 := d.step(dfaStart, b1)
			return s1 != dfaStart && (s1 == dfaMatched || d.step(s1, b2) != dfaStart)
		}
		text := bytes.Repeat([]byte{' '}, 16)
		for lane := range 8 {
			for v1 := range 256 {
				for v2 := range 256 {
					text[lane], text[lane+1] = byte(v1), byte(v2)
					got := acc.skip(text, 0, 9)
					want := candidate(byte(v1), byte(v2))
					if want && got > lane || c.exact && !want && got <= lane {
						t.Fatalf("%s: bytes %#x %#x in lanes %d, %d: skip = %d, candidate %v", c.expr, v1, v2, lane, lane+1, got, want)
					}
					text[lane], text[lane+1] = ' ', ' '
				}
			}
		}
	}
	m, _ := newLineMatcher(`(?m)[a-z]`)
	if newLineDFA(m.prog).buildStartAccel() != nil {
		t.Error("[a-z]: accelerator built for an escape set of common bytes")
	}
}
