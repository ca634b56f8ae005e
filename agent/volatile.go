package agent

import "strings"

// The repeat guard compares results with their volatile parts masked: a
// stuck `go test` reports "ok pkg 0.012s" one time and "0.015s" the next,
// run_command heads its result with "exit code 1 (8ms)", and log lines carry
// timestamps. Without masking, a model calling the same failing command
// forever never repeats "the same result".

// Placeholders for masked values. They hold no digits, so masking is
// idempotent.
const (
	maskDuration = "<duration>"
	maskTime     = "<time>"
)

// maxMasked bounds the bytes masked per result; results are already capped
// (Config.MaxResultBytes), this only keeps a huge cap from costing more. The
// rest is compared as it is.
const maxMasked = 256 << 10

// durationUnits are the unit spellings a duration may end with, longest
// first so "ms" is not read as "m". The word units may follow the number
// after one space ("3.2 seconds"); the short ones must touch it ("3m" is a
// duration, "3 m" is not).
var durationUnits = []struct {
	unit   string
	spaced bool
}{
	{"seconds", true}, {"second", true}, {"minutes", true}, {"minute", true},
	{"secs", true}, {"mins", true}, {"sec", true}, {"min", true},
	{"ns", true}, {"us", true}, {"µs", true}, {"μs", true}, {"ms", true},
	{"h", false}, {"m", false}, {"s", true},
}

// MaskVolatile returns s with its volatile parts masked, as the repeat
// guard compares results: durations become "<duration>" and timestamps
// "<time>" (see maskVolatile for what counts). rein replay uses it so that
// a replayed `go test` is not a divergence for taking 3 ms longer.
func MaskVolatile(s string) string { return maskVolatile(s) }

// maskVolatile returns s with durations ("8ms", "1.234s", "20µs", "2m3s",
// "3.2 seconds") and timestamps (RFC 3339, "2006-01-02 15:04:05", a time of
// day "15:04:05.000") replaced by placeholders. Numbers inside words and
// identifiers ("sha256", "x86s") are left alone. It allocates only when it
// masks something.
func maskVolatile(s string) string {
	head, tail := s, ""
	if len(s) > maxMasked {
		head, tail = s[:maxMasked], s[maxMasked:]
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(head); {
		if !isDigit(head[i]) {
			i++
			continue
		}
		if i > 0 && isWordByte(head[i-1]) {
			i = skipWord(head, i)
			continue
		}
		mask, end := "", 0
		if end = matchTimestamp(head, i); end > 0 {
			mask = maskTime
		} else if end = matchDuration(head, i); end > 0 {
			mask = maskDuration
		}
		if end == 0 {
			i = skipWord(head, i)
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(head[last:i])
		b.WriteString(mask)
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(head[last:])
	b.WriteString(tail)
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || c >= 0x80 }

// isWordByte reports bytes that make a number part of a larger token.
func isWordByte(c byte) bool { return isDigit(c) || isLetter(c) || c == '_' || c == '.' }

// skipWord returns the end of the token starting at i.
func skipWord(s string, i int) int {
	for i < len(s) && (isDigit(s[i]) || isLetter(s[i]) || s[i] == '_') {
		i++
	}
	return i
}

// digits returns the end of the run of digits at i, and its length.
func digits(s string, i int) (int, int) {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j, j - i
}

// fixedDigits reports whether s holds exactly n digits at i.
func fixedDigits(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	_, got := digits(s[:i+n], i)
	return got == n && (i+n == len(s) || !isDigit(s[i+n]))
}

// matchDuration returns the end of a duration starting at i, or 0. A
// duration is one or more number-unit pairs ("2m3.5s"), not followed by a
// letter or digit.
func matchDuration(s string, i int) int {
	end := 0
	for first := true; ; first = false {
		j, n := digits(s, i)
		if n == 0 {
			break
		}
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			j, _ = digits(s, j+1)
		}
		u := matchUnit(s, j, first)
		if u == 0 {
			break
		}
		end, i = u, u
		if i >= len(s) || !isDigit(s[i]) {
			break
		}
	}
	if end == 0 || end < len(s) && (isLetter(s[end]) || isDigit(s[end])) {
		return 0
	}
	return end
}

// matchUnit returns the end of a duration unit at j, or 0; a spaced unit
// may be preceded by one space when first is set.
func matchUnit(s string, j int, first bool) int {
	spaced := first && j < len(s) && s[j] == ' '
	if spaced {
		j++
	}
	if j >= len(s) {
		return 0
	}
	switch s[j] {
	case 's', 'm', 'n', 'u', 'h', 0xC2, 0xCE: // the units' first bytes
	default:
		return 0
	}
	for _, u := range durationUnits {
		if (!spaced || u.spaced) && strings.HasPrefix(s[j:], u.unit) {
			end := j + len(u.unit)
			if end < len(s) && isLetter(s[end]) {
				continue // "min" of "minimal", "s" of "steps"
			}
			return end
		}
	}
	return 0
}

// matchTimestamp returns the end of a timestamp starting at i, or 0: an RFC
// 3339 or "date time" stamp, or a time of day with seconds.
func matchTimestamp(s string, i int) int {
	if fixedDigits(s, i, 4) && i+10 <= len(s) && s[i+4] == '-' && fixedDigits(s, i+5, 2) &&
		s[i+7] == '-' && fixedDigits(s, i+8, 2) {
		j := i + 10
		if j+1 < len(s) && (s[j] == 'T' || s[j] == ' ') {
			if end := matchClock(s, j+1); end > 0 {
				return matchZone(s, end)
			}
		}
		return 0 // a date alone is not volatile within a run
	}
	if i > 0 && s[i-1] == ':' {
		return 0 // "main.go:12:30:45" is a position, not a time
	}
	return matchClock(s, i)
}

// matchClock matches H:MM:SS or HH:MM:SS with an optional fraction.
func matchClock(s string, i int) int {
	j, n := digits(s, i)
	if n < 1 || n > 2 || j+6 > len(s) || s[j] != ':' || !fixedDigits(s, j+1, 2) ||
		s[j+3] != ':' || !fixedDigits(s, j+4, 2) {
		return 0
	}
	j += 6
	if j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(s[j+1]) {
		j, _ = digits(s, j+1)
	}
	if j < len(s) && (isDigit(s[j]) || s[j] == ':') {
		return 0
	}
	return j
}

// matchZone extends a timestamp ending at j over a "Z" or "±HH:MM" zone.
func matchZone(s string, j int) int {
	switch {
	case j < len(s) && s[j] == 'Z':
		if j+1 < len(s) && isWordByte(s[j+1]) {
			// "…05Z12:30:45": masking the Z would expose the next
			// number to a second masking pass.
			return j
		}
		return j + 1
	case j+6 <= len(s) && (s[j] == '+' || s[j] == '-') && fixedDigits(s, j+1, 2) && s[j+3] == ':' && fixedDigits(s, j+4, 2):
		return j + 6
	}
	return j
}
