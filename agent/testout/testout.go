// Package testout reads the output of common test runners — go test (text
// and -json), pytest, jest, vitest, cargo test — into the failing tests'
// names and file:line locations (and python -m unittest), with a generic "file:line:" fallback for
// compilers and linters. The verification gate leads its message to the
// model with the summary ("2 failing tests: TestAdd (calc_test.go:7), …")
// so the model sees what failed before the raw output.
//
// Parsing is best effort and never fails: output no parser recognises
// yields an empty Report. Every pattern is a regexp (RE2, linear time), the
// input read is capped, and names and paths are clipped and stripped of
// control characters, since the output is the checked code's and untrusted.
package testout

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on what is read and kept.
const (
	// MaxInput is how much of the output is parsed; the rest is ignored.
	MaxInput = 4 << 20
	// maxFailures is how many failures a Report keeps; Omitted counts
	// the rest.
	maxFailures = 50
	// maxField clips a name or a path.
	maxField = 200
	// summaryShown is how many failures Summary names.
	summaryShown = 10
)

// Runners a Report names.
const (
	RunnerGo     = "go"
	RunnerGoJSON = "go-json"
	RunnerPytest = "pytest"
	// RunnerUnittest is python -m unittest.
	RunnerUnittest = "unittest"
	RunnerJest     = "jest"
	RunnerVitest   = "vitest"
	RunnerCargo    = "cargo"
	// RunnerGeneric is the file:line: fallback: locations, no test names.
	RunnerGeneric = "generic"
)

// Failure is one failing test, or (Name empty) one reported location.
type Failure struct {
	Name string `json:"name,omitempty"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Location is "file:line", "file" or "".
func (f Failure) Location() string {
	switch {
	case f.File == "":
		return ""
	case f.Line > 0:
		return f.File + ":" + strconv.Itoa(f.Line)
	}
	return f.File
}

// Report is what Parse found.
type Report struct {
	// Runner names the format recognised; "" when none was.
	Runner   string    `json:"runner,omitempty"`
	Failures []Failure `json:"failures,omitempty"`
	// Omitted counts failures past the ones kept.
	Omitted int `json:"omitted,omitempty"`
}

// parser reads one format; it returns nil when the output is not its own.
type parser struct {
	runner string
	parse  func(lines []string) []Failure
}

// parsers are tried in order; the first that finds failures wins. go
// -json comes first (its lines also hold go test text), vitest before
// jest (both print FAIL lines), the generic fallback last.
var parsers = []parser{
	{RunnerGoJSON, parseGoJSON},
	{RunnerGo, parseGoText},
	{RunnerCargo, parseCargo},
	{RunnerPytest, parsePytest},
	{RunnerUnittest, parseUnittest},
	{RunnerVitest, parseVitest},
	{RunnerJest, parseJest},
	{RunnerGeneric, parseGeneric},
}

// Parse reads a test runner's combined output.
func Parse(out string) Report {
	if len(out) > MaxInput {
		out = out[:MaxInput]
	}
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	for _, p := range parsers {
		fs := p.parse(lines)
		if len(fs) == 0 {
			continue
		}
		r := Report{Runner: p.runner}
		for _, f := range dedupe(fs) {
			if len(r.Failures) == maxFailures {
				r.Omitted++
				continue
			}
			r.Failures = append(r.Failures, Failure{Name: clean(f.Name), File: clean(f.File), Line: f.Line})
		}
		return r
	}
	return Report{}
}

// Summary is the one-line account the gate leads with: "2 failing tests:
// TestAdd (calc_test.go:7), TestSub", or for the generic fallback "3
// reported locations: calc.go:8:17, …". It is "" for an empty Report.
func (r Report) Summary() string {
	total := len(r.Failures) + r.Omitted
	if total == 0 {
		return ""
	}
	var b strings.Builder
	if r.Runner == RunnerGeneric {
		b.WriteString(plural(total, "reported location") + ": ")
	} else {
		b.WriteString(plural(total, "failing test") + ": ")
	}
	for i, f := range r.Failures {
		if i == summaryShown {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		switch loc := f.Location(); {
		case f.Name == "":
			b.WriteString(loc)
		case loc == "":
			b.WriteString(f.Name)
		default:
			b.WriteString(f.Name + " (" + loc + ")")
		}
	}
	if shown := min(len(r.Failures), summaryShown); total > shown {
		b.WriteString(", and " + strconv.Itoa(total-shown) + " more")
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// dedupe drops repeated failures, keeping the first of each (a name seen
// with a location beats the same name without one).
func dedupe(fs []Failure) []Failure {
	seen := map[string]int{}
	out := fs[:0:0]
	for _, f := range fs {
		key := f.Name
		if key == "" {
			key = "\x00" + f.Location()
		}
		if i, ok := seen[key]; ok {
			if out[i].File == "" && f.File != "" {
				out[i] = f
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, f)
	}
	return out
}

// clean makes untrusted text a safe one-line field: valid UTF-8, no
// control or format characters (bidi overrides), at most maxField bytes.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return '?'
		}
		return r
	}, strings.TrimSpace(s))
	if len(s) <= maxField {
		return s
	}
	i := maxField
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// atoi reads a line number; 0 when it is not one (or absurdly large).
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<30 {
		return 0
	}
	return n
}
