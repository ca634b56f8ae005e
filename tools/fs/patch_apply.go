package fs

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/internal/textclip"
)

// fileLines is a file split into lines without terminators, remembering
// whether it ended in a newline and whether it uses CRLF.
type fileLines struct {
	lines []string
	eofNL bool
	crlf  bool
}

func splitFile(content string) fileLines {
	if content == "" {
		return fileLines{eofNL: true}
	}
	f := fileLines{eofNL: strings.HasSuffix(content, "\n")}
	f.lines = strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	cr := 0
	for _, l := range f.lines {
		if strings.HasSuffix(l, "\r") {
			cr++
		}
	}
	f.crlf = cr > len(f.lines)/2
	return f
}

// replacement is one located hunk: old lines [at, at+n) become lines.
type replacement struct {
	at, n int
	lines []string
	// noNL: the hunk's last new line has no newline (only meaningful when
	// the hunk reaches the end of the file).
	noNL bool
}

// applyHunks applies hunks to content, all or nothing. Each hunk is
// looked for at its header's position (shifted by the offsets earlier
// hunks needed), then at the nearest position where its old lines match
// exactly, then ignoring trailing whitespace and CR. It returns the new
// content and notes about hunks that did not apply exactly where the
// header said.
func applyHunks(name, content string, hunks []Hunk) (string, []string, error) {
	f := splitFile(content)
	var reps []replacement
	var notes []string
	minAt, delta := 0, 0
	for hi, h := range hunks {
		var old, repl []string
		var oldNoNL, newNoNL bool
		for _, l := range h.Lines {
			if l.Op != '+' {
				old = append(old, l.Text)
				oldNoNL = l.NoNewline
			}
			if l.Op != '-' {
				repl = append(repl, l.Text)
				newNoNL = l.NoNewline
			}
		}
		want := minAt
		if h.Positioned {
			want = h.OldStart - 1 + delta
			if len(old) == 0 {
				want = h.OldStart + delta // "-N,0" inserts after line N
			}
		}
		at, loose, err := locate(f, old, want, minAt, oldNoNL)
		if err != nil {
			return "", nil, fmt.Errorf("hunk %d of %s (%s) does not apply: %w", hi+1, name, textclip.Clip(h.Header, 40), err)
		}
		if h.Positioned && at != want {
			notes = append(notes, fmt.Sprintf("%s: hunk %d applied at line %d (offset %+d lines)", name, hi+1, at+1, at-want))
		}
		if loose {
			notes = append(notes, fmt.Sprintf("%s: hunk %d matched only after ignoring trailing whitespace", name, hi+1))
		}
		reps = append(reps, replacement{at: at, n: len(old), lines: adaptLines(f, old, repl, h, at), noNL: newNoNL})
		minAt = at + len(old)
		if h.Positioned {
			delta = at - (h.OldStart - 1)
			if len(old) == 0 {
				delta = at - h.OldStart
			}
		}
	}
	return assemble(f, reps), notes, nil
}

// adaptLines returns the hunk's new lines as they should appear in the
// file: context lines keep the file's own text (they may have matched
// loosely), and added lines get a CR in a CRLF file.
func adaptLines(f fileLines, old, repl []string, h Hunk, at int) []string {
	out := make([]string, 0, len(repl))
	oi := 0
	for _, l := range h.Lines {
		switch l.Op {
		case ' ':
			out = append(out, f.lines[at+oi])
			oi++
		case '-':
			oi++
		case '+':
			t := l.Text
			if f.crlf && !strings.HasSuffix(t, "\r") {
				t += "\r"
			}
			out = append(out, t)
		}
	}
	return out
}

func assemble(f fileLines, reps []replacement) string {
	var out []string
	pos := 0
	eofNL := f.eofNL
	for _, r := range reps {
		out = append(out, f.lines[pos:r.at]...)
		out = append(out, r.lines...)
		pos = r.at + r.n
		if pos == len(f.lines) {
			switch {
			case len(r.lines) > 0:
				eofNL = !r.noNL
			case r.n > 0:
				// The file's old last lines were deleted; the new last
				// line had a newline when it was not last.
				eofNL = true
			}
		}
	}
	out = append(out, f.lines[pos:]...)
	if len(out) == 0 {
		return ""
	}
	s := strings.Join(out, "\n")
	if eofNL {
		s += "\n"
	}
	return s
}

// locate finds where old occurs in f at or after minAt, nearest to want
// (searching outwards from it, earlier first on ties). atEOF requires the
// match to end at the file's end.
func locate(f fileLines, old []string, want, minAt int, atEOF bool) (int, bool, error) {
	n := len(f.lines)
	if len(old) == 0 {
		return min(max(want, minAt), n), false, nil
	}
	lo, hi := minAt, n-len(old)
	if atEOF {
		lo = max(lo, hi)
	}
	if lo <= hi {
		start := min(max(want, lo), hi)
		exact := func(a, b string) bool { return a == b }
		loose := func(a, b string) bool { return strings.TrimRight(a, " \t\r") == strings.TrimRight(b, " \t\r") }
		for i, eq := range []func(a, b string) bool{exact, loose} {
			for d := 0; start-d >= lo || start+d <= hi; d++ {
				if p := start - d; p >= lo && matchAt(f.lines, old, p, eq) {
					return p, i == 1, nil
				}
				if p := start + d; d > 0 && p <= hi && matchAt(f.lines, old, p, eq) {
					return p, i == 1, nil
				}
			}
		}
	}
	return 0, false, mismatch(f, old, want, minAt)
}

func matchAt(lines, old []string, p int, eq func(a, b string) bool) bool {
	for j, o := range old {
		if !eq(lines[p+j], o) {
			return false
		}
	}
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// mismatch explains a failed hunk: where its lines were expected and the
// first line that differs, or that the file is too short.
func mismatch(f fileLines, old []string, want, minAt int) error {
	n := len(f.lines)
	if len(old) > n-minAt {
		return fmt.Errorf("it needs %d old lines but the file has only %d after the previous hunk", len(old), n-minAt)
	}
	// Find the position near want that matches the most leading lines.
	bestP, bestK := min(max(want, minAt), n-len(old)), -1
	for p := minAt; p+len(old) <= n; p++ {
		k := 0
		for k < len(old) && strings.TrimRight(f.lines[p+k], " \t\r") == strings.TrimRight(old[k], " \t\r") {
			k++
		}
		if k > bestK || (k == bestK && abs(p-want) < abs(bestP-want)) {
			bestP, bestK = p, k
		}
	}
	if bestK == len(old) {
		return fmt.Errorf("its last line is marked \"\\ No newline at end of file\", but it matches at line %d, not at the end of the file", bestP+1)
	}
	if bestK <= 0 {
		return fmt.Errorf("its first old line %q was not found in the file (read the file again and regenerate the hunk)", textclip.Clip(old[0], 80))
	}
	line := bestP + bestK
	return fmt.Errorf("the closest match starts at line %d, but line %d is %q where the hunk expects %q",
		bestP+1, line+1, textclip.Clip(strings.TrimRight(f.lines[line], "\r"), 80), textclip.Clip(old[bestK], 80))
}
