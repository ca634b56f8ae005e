package workspace

import (
	"fmt"
	"strconv"
	"strings"
)

const (
	diffContext = 3
	// maxEditDistance bounds the Myers search (its trace costs O(D²)
	// memory). Beyond it the differing middle is shown as one replaced
	// block: still a correct diff, just not a minimal one.
	maxEditDistance = 1000
)

// UnifiedDiff returns a unified diff (3 lines of context) turning a into b,
// with oldName and newName on the ---/+++ lines ("/dev/null" for an absent
// side is the caller's choice). It returns "" when a and b are equal. A last
// line without a newline is marked "\ No newline at end of file", as diff
// and git do, so the output applies with patch and git apply.
func UnifiedDiff(oldName, newName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	edits := diffLines(al, bl)
	var sb strings.Builder
	sb.WriteString("--- " + oldName + "\n")
	sb.WriteString("+++ " + newName + "\n")
	writeHunks(&sb, edits, al, bl)
	return sb.String()
}

// splitLines splits s after each newline; the last element lacks one when
// s does not end in a newline.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// edit is one step of a line diff: op is ' ' (keep a[ai] == b[bi]),
// '-' (delete a[ai]) or '+' (insert b[bi]).
type edit struct {
	op     byte
	ai, bi int
}

// diffLines returns the edit script turning a into b.
func diffLines(a, b []string) []edit {
	// Intern lines so the search compares ints.
	ids := map[string]int{}
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var out []edit
	for i := 0; i < pre; i++ {
		out = append(out, edit{' ', i, i})
	}
	mid := myers(x[pre:len(x)-suf], y[pre:len(y)-suf])
	for _, e := range mid {
		out = append(out, edit{e.op, e.ai + pre, e.bi + pre})
	}
	for i := 0; i < suf; i++ {
		out = append(out, edit{' ', len(x) - suf + i, len(y) - suf + i})
	}
	return out
}

// myers is the O((N+M)·D) shortest edit script search, falling back to a
// block replacement when D exceeds maxEditDistance.
func myers(a, b []int) []edit {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceBlock(n, m)
	}
	maxD := min(n+m, maxEditDistance)
	off := maxD + 1
	v := make([]int32, 2*off+1)
	var trace [][]int32 // trace[d] = v[-d-1 .. d+1] before step d
	for d := 0; d <= maxD; d++ {
		snap := make([]int32, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var xx int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				xx = int(v[off+k+1])
			} else {
				xx = int(v[off+k-1]) + 1
			}
			yy := xx - k
			for xx < n && yy < m && a[xx] == b[yy] {
				xx++
				yy++
			}
			v[off+k] = int32(xx)
			if xx >= n && yy >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return replaceBlock(n, m)
}

func backtrack(trace [][]int32, n, m int) []edit {
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		snap := trace[d]
		at := func(k int) int { return int(snap[k+d+1]) }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, edit{' ', x, y})
		}
		if d == 0 {
			break
		}
		if x == prevX {
			y--
			rev = append(rev, edit{'+', x, y})
		} else {
			x--
			rev = append(rev, edit{'-', x, y})
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

func replaceBlock(n, m int) []edit {
	out := make([]edit, 0, n+m)
	for i := 0; i < n; i++ {
		out = append(out, edit{'-', i, 0})
	}
	for j := 0; j < m; j++ {
		out = append(out, edit{'+', n, j})
	}
	return out
}

// writeHunks groups the edit script into hunks with diffContext lines of
// context and writes them.
func writeHunks(sb *strings.Builder, edits []edit, a, b []string) {
	i := 0
	for i < len(edits) {
		// Find the next change.
		for i < len(edits) && edits[i].op == ' ' {
			i++
		}
		if i == len(edits) {
			return
		}
		start := max(i-diffContext, 0)
		// Extend while the gap between changes is at most 2·context.
		end := i
		for end < len(edits) {
			if edits[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(edits) && edits[run].op == ' ' {
				run++
			}
			if run == len(edits) || run-end > 2*diffContext {
				end = min(end+diffContext, len(edits))
				break
			}
			end = run
		}
		writeHunk(sb, edits[start:end], a, b)
		i = end
	}
}

func writeHunk(sb *strings.Builder, h []edit, a, b []string) {
	aStart, bStart := h[0].ai, h[0].bi
	aLen, bLen := 0, 0
	for _, e := range h {
		switch e.op {
		case ' ':
			aLen++
			bLen++
		case '-':
			aLen++
		case '+':
			bLen++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, e := range h {
		var line string
		switch e.op {
		case ' ':
			line = a[e.ai]
		case '-':
			line = a[e.ai]
		case '+':
			line = b[e.bi]
		}
		sb.WriteByte(e.op)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk side as diff does: "start,len", with ",1"
// omitted and an empty side numbered by the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	default:
		return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
	}
}
