package config

import (
	"fmt"
	"slices"
)

// suggest returns ` (did you mean "x"?)` for the known name closest to got,
// or "" when nothing is close enough to be a plausible typo.
func suggest(got string, known []string) string {
	best := Closest(got, known)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// Closest returns the name of known closest to got when it is a plausible
// typo of it, else "": about one edit per three characters is allowed
// ("endpont" → "endpoint", but not "colour" → "model"), a transposition
// counting as one edit. It is pure and safe for concurrent use.
func Closest(got string, known []string) string {
	best, bestDist := "", -1
	for _, k := range known {
		d := editDistance(got, k)
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" || bestDist > max(1, len(best)/3) {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (Levenshtein plus adjacent transpositions, the commonest typo), counted
// in bytes (config keys are ASCII). Inputs are capped so that hostile keys
// cannot make it expensive.
func editDistance(a, b string) int {
	const maxLen = 64
	if len(a) > maxLen {
		a = a[:maxLen]
	}
	if len(b) > maxLen {
		b = b[:maxLen]
	}
	// Three rolling rows: two back is needed for transpositions.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// hint explains an unknown key inside section: a key of the other typed
// table is pointed there, anything else gets the closest name.
func hint(section, name string) string {
	for _, other := range typedSections {
		if other != section && slices.Contains(fileKeys(other), name) {
			return fmt.Sprintf(" (it belongs in [%s])", other)
		}
	}
	return suggest(name, fileKeys(section))
}

// Suggest returns ` (did you mean "x"?)` for the name of known closest to
// got, or "" when none is a plausible typo: owners of the deferred tables
// use it for their own unknown names (a tool, a mode).
func Suggest(got string, known []string) string { return suggest(got, known) }
