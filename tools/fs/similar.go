package fs

import (
	"fmt"
	"slices"
	"strings"
)

const (
	// anchorCandidates is how many best-matching lines are expanded into
	// full windows when looking for the closest text.
	anchorCandidates = 20
	// minSimilarity is the score below which no candidate is shown: a
	// "closest match" that shares nothing misleads more than it helps.
	minSimilarity = 0.35
	// candidateContext is how many lines are shown around a candidate.
	candidateContext = 1
)

// notFound explains an edit_file miss: where the text matches once
// whitespace is ignored, or else the closest lines by similarity.
func notFound(path, content, old string) string {
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	want := strings.Split(strings.TrimRight(strings.ReplaceAll(old, "\r\n", "\n"), "\n"), "\n")
	var sb strings.Builder
	fmt.Fprintf(&sb, "old_string was not found in %s.", path)
	if start, ok := whitespaceMatch(lines, want); ok {
		fmt.Fprintf(&sb, " It matches lines %d-%d if whitespace is ignored: copy the indentation exactly (tabs vs spaces?). The file has:\n",
			start+1, start+len(want))
		writeNumbered(&sb, lines, start, start+len(want))
		return sb.String()
	}
	start, score := closestWindow(lines, want)
	if score < minSimilarity {
		sb.WriteString(" No similar text was found either; read_file the file to see its current content.")
		return sb.String()
	}
	from, to := max(start-candidateContext, 0), min(start+len(want)+candidateContext, len(lines))
	fmt.Fprintf(&sb, " The closest text (%.0f%% similar) is at lines %d-%d:\n", score*100, start+1, start+len(want))
	writeNumbered(&sb, lines, from, to)
	sb.WriteString("Copy the text exactly as it appears, or read_file the region again.")
	return sb.String()
}

func writeNumbered(sb *strings.Builder, lines []string, from, to int) {
	for i := from; i < to && i < len(lines); i++ {
		line := lines[i]
		if len(line) > grepLineLength {
			line = line[:grepLineLength] + "…"
		}
		fmt.Fprintf(sb, "%6d\t%s\n", i+1, line)
	}
}

// whitespaceMatch finds the first window of lines equal to want once
// leading/trailing whitespace is trimmed and inner runs collapsed.
func whitespaceMatch(lines, want []string) (int, bool) {
	if len(want) == 0 || len(want) > len(lines) {
		return 0, false
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	nw := make([]string, len(want))
	for i, w := range want {
		nw[i] = norm(w)
	}
	nl := make([]string, len(lines))
	for i, l := range lines {
		nl[i] = norm(l)
	}
	for i := 0; i+len(nw) <= len(nl); i++ {
		if slices.Equal(nl[i:i+len(nw)], nw) {
			return i, true
		}
	}
	return 0, false
}

// closestWindow returns the start of the len(want)-line window of lines
// most similar to want, and its score in [0,1]. It anchors on want's most
// distinctive (longest) line: the file lines most like it are expanded
// into windows and scored line by line, which keeps the search linear in
// the file's size.
func closestWindow(lines, want []string) (int, float64) {
	if len(lines) == 0 || len(want) == 0 {
		return 0, 0
	}
	anchor := 0
	for i, w := range want {
		if len(strings.TrimSpace(w)) > len(strings.TrimSpace(want[anchor])) {
			anchor = i
		}
	}
	ab := bigrams(want[anchor])
	type cand struct {
		line  int
		score float64
	}
	var cands []cand
	for i, l := range lines {
		if s := dice(ab, bigrams(l)); s > 0 {
			cands = append(cands, cand{i, s})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	wb := make([][]uint16, len(want))
	for i, w := range want {
		wb[i] = bigrams(w)
	}
	best, bestScore := 0, -1.0
	for _, c := range cands[:min(len(cands), anchorCandidates)] {
		start := min(max(c.line-anchor, 0), max(len(lines)-len(want), 0))
		total := 0.0
		for j := range want {
			if start+j < len(lines) {
				total += dice(wb[j], bigrams(lines[start+j]))
			}
		}
		if s := total / float64(len(want)); s > bestScore {
			best, bestScore = start, s
		}
	}
	return best, max(bestScore, 0)
}

// bigrams returns the sorted byte pairs of s with surrounding whitespace
// trimmed and letters lowercased.
func bigrams(s string) []uint16 {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) < 2 {
		if s == "" {
			return nil
		}
		return []uint16{uint16(s[0])}
	}
	out := make([]uint16, 0, len(s)-1)
	for i := 0; i+1 < len(s); i++ {
		out = append(out, uint16(s[i])<<8|uint16(s[i+1]))
	}
	slices.Sort(out)
	return out
}

// dice is the Sørensen–Dice coefficient of two sorted bigram multisets;
// two empty lines are identical.
func dice(a, b []uint16) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	common, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}
