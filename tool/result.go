package tool

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxResultBytes is the default cap on a result's Content: large
// enough for a screenful of file or command output, small enough that one
// chatty tool cannot crowd the conversation out of the context window.
const DefaultMaxResultBytes = 64 << 10

// ErrorResult returns an is_error result whose text is formatted like
// fmt.Sprintf. It is the usual way for a tool to report a failure the model
// should see and react to.
func ErrorResult(format string, args ...any) *Result {
	return &Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// TextResult returns a successful result holding s.
func TextResult(s string) *Result { return &Result{Content: s} }

const (
	// unknownToolMaxNames caps how many available names UnknownTool lists,
	// so a harness with hundreds of MCP tools does not flood the model.
	unknownToolMaxNames = 32
	// unknownToolMaxBytes caps the whole list's length for the same reason.
	unknownToolMaxBytes = 1 << 10
)

// UnknownTool returns the is_error result for a call to a tool that does not
// exist. It names the requested tool (clipped: the name is model output),
// suggests the closest available name when one is near, and lists the
// available names, capped so the message stays short.
func UnknownTool(name string, available []string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown tool %q", clip(name, MaxNameLen))
	if s := closestName(name, available); s != "" {
		fmt.Fprintf(&b, "; did you mean %q?", s)
	}
	if len(available) == 0 {
		b.WriteString("; no tools are available")
		return &Result{Content: b.String(), IsError: true}
	}
	b.WriteString("; available tools: ")
	listed, size := 0, 0
	for i, n := range available {
		if listed == unknownToolMaxNames || size+len(n) > unknownToolMaxBytes {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		listed++
		size += len(n) + 2
	}
	if rest := len(available) - listed; rest > 0 {
		fmt.Fprintf(&b, " and %d more", rest)
	}
	return &Result{Content: b.String(), IsError: true}
}

// closestName returns the available name nearest to name by edit distance
// (ignoring case), or "" when none is close enough to be a likely typo.
func closestName(name string, available []string) string {
	if name == "" || len(name) > MaxNameLen {
		return ""
	}
	lower := strings.ToLower(name)
	best, bestDist := "", 0
	for _, n := range available {
		if len(n) > MaxNameLen {
			continue
		}
		d := editDistance(lower, strings.ToLower(n))
		if limit := max(2, len(n)/3); d > limit {
			continue
		}
		if best == "" || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b in bytes. Both
// are at most MaxNameLen long, so the quadratic cost is bounded.
func editDistance(a, b string) int {
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Truncate caps s at max bytes for the model. When s is longer it keeps the
// head (about 7/8 of max) and the tail (about 1/8: the end of a log or a
// command's final error is often what matters), joined by an explicit
// marker such as
//
//	\n… [truncated: 123456 bytes total, showing first 57344 and last 8192] …\n
//
// Cuts fall on UTF-8 boundaries, so valid UTF-8 stays valid. The kept text
// is at most max bytes; the marker comes on top. A max of zero or less keeps
// only the marker. It reports whether s was cut.
func Truncate(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	max = maxInt(max, 0)
	tailN := max / 8
	head := s[:runeStart(s, max-tailN)]
	tail := s[runeAfter(s, len(s)-tailN):]

	var b strings.Builder
	b.Grow(len(head) + len(tail) + 96)
	b.WriteString(head)
	b.WriteString("\n… [truncated: ")
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteString(" bytes total, showing first ")
	b.WriteString(strconv.Itoa(len(head)))
	b.WriteString(" and last ")
	b.WriteString(strconv.Itoa(len(tail)))
	b.WriteString("] …\n")
	b.WriteString(tail)
	return b.String(), true
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// runeStart returns the largest index j <= i that starts a rune. It looks
// back at most utf8.UTFMax-1 bytes: in valid UTF-8 a rune start is always
// that close, and in invalid input there is no boundary worth preserving.
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for j := i; j > 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	if i-utf8.UTFMax < 0 {
		return 0
	}
	return i
}

// runeAfter returns the smallest index j >= i that starts a rune (or
// len(s)), looking ahead at most utf8.UTFMax-1 bytes like runeStart.
func runeAfter(s string, i int) int {
	for j := i; j < len(s) && j < i+utf8.UTFMax; j++ {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	if i+utf8.UTFMax > len(s) {
		return len(s)
	}
	return i
}

// capResult applies the result cap to r in place. Structured content that
// exceeds the cap is dropped rather than cut, because cut JSON is not JSON;
// the model still sees the (truncated) Content.
func capResult(r *Result, max int) {
	if max < 0 {
		return
	}
	if c, cut := Truncate(r.Content, max); cut {
		r.Content, r.Truncated = c, true
	}
	if len(r.Structured) > max {
		r.Structured = nil
		r.Truncated = true
	}
}
