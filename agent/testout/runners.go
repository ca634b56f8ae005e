package testout

import (
	"regexp"
	"strings"
)

var (
	// cargoStdout heads a failed test's captured output.
	cargoStdout = regexp.MustCompile(`^---- (\S+) stdout ----$`)
	// cargoFailed is the progress line "test tests::it_adds ... FAILED".
	cargoFailed = regexp.MustCompile(`^test (\S+) \.\.\. FAILED$`)
	// cargoPanic is "panicked at src/lib.rs:8:9:" (Rust ≥ 1.73) or
	// "panicked at 'msg', src/lib.rs:8:9" (older).
	cargoPanic = regexp.MustCompile(`panicked at (?:'.*', )?([^\s:']+):(\d+):\d+`)

	// pytestSummary is the short summary's "FAILED path::test - msg".
	pytestSummary = regexp.MustCompile(`^(?:FAILED|ERROR) (\S+?\.py)::(\S+)`)
	// pytestHeader heads a failure's section: "____ TestDiv.test_zero ____".
	pytestHeader = regexp.MustCompile(`^_{3,} (.+?) _{3,}$`)
	// pytestLoc is a traceback entry's "tests/test_calc.py:5: Error".
	pytestLoc = regexp.MustCompile(`^(\S+\.py):(\d+): `)

	// jestTitle is "  ● Suite › test name".
	jestTitle = regexp.MustCompile(`^\s*● (.+)$`)
	// jestAt is a stack frame: "at Object.toBe (src/sum.test.js:5:23)"
	// or "at src/sum.test.js:5:23".
	jestAt = regexp.MustCompile(`^\s+at (?:.*\()?([^\s()]+):(\d+):\d+\)?$`)

	// vitestFail is " FAIL  src/sum.test.ts > suite > test".
	vitestFail = regexp.MustCompile(`^\s*FAIL\s+(\S+) > (.+)$`)
	// vitestLoc is " ❯ src/sum.test.ts:5:23".
	vitestLoc = regexp.MustCompile(`^\s*❯ ([^\s:]+):(\d+):\d+`)

	// generic is a compiler's or linter's "path/file.ext:12:5: message".
	generic = regexp.MustCompile(`^\s*(?:\./)?([^\s:()'"<>]+\.[A-Za-z0-9]{1,8}):(\d+)(?::\d+)?:\s`)
)

// parseCargo reads cargo test: each "---- name stdout ----" section's
// panic location, else the "test name ... FAILED" lines.
func parseCargo(lines []string) []Failure {
	var fs []Failure
	for i, l := range lines {
		m := cargoStdout.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := Failure{Name: m[1]}
		for _, n := range lines[i+1:] {
			if cargoStdout.MatchString(n) || n == "failures:" {
				break
			}
			if p := cargoPanic.FindStringSubmatch(n); p != nil {
				f.File, f.Line = p[1], atoi(p[2])
				break
			}
		}
		fs = append(fs, f)
	}
	for _, l := range lines {
		if m := cargoFailed.FindStringSubmatch(l); m != nil {
			fs = append(fs, Failure{Name: m[1]}) // dedupe keeps the located one
		}
	}
	return fs
}

// parsePytest reads pytest: the short test summary's FAILED/ERROR lines
// name the tests; each failure's section gives the location, the test
// file's own frame when the traceback has one, else its last entry.
func parsePytest(lines []string) []Failure {
	sections := map[string]Failure{} // header name → location
	header, file := "", ""
	var last Failure
	flush := func() {
		if header != "" {
			if _, ok := sections[header]; !ok {
				sections[header] = last
			}
		}
	}
	for _, l := range lines {
		if m := pytestHeader.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "_ ") {
			flush()
			header, last, file = m[1], Failure{}, ""
			continue
		}
		if m := pytestLoc.FindStringSubmatch(l); m != nil && header != "" {
			loc := Failure{File: m[1], Line: atoi(m[2])}
			if file == "" && strings.Contains(m[1], "test") {
				file = m[1]
				sections[header] = loc // the test's own frame wins
			}
			last = loc
		}
	}
	flush()
	var fs []Failure
	for _, l := range lines {
		m := pytestSummary.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := Failure{Name: m[2], File: m[1]}
		if loc, ok := sections[strings.ReplaceAll(m[2], "::", ".")]; ok && loc.File != "" {
			f.File, f.Line = loc.File, loc.Line
		}
		fs = append(fs, f)
	}
	return fs
}

// parseJest reads jest: each "● title" block's first stack frame outside
// node_modules.
func parseJest(lines []string) []Failure {
	var fs []Failure
	for i, l := range lines {
		m := jestTitle.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := Failure{Name: strings.TrimSpace(m[1])}
		for _, n := range lines[i+1:] {
			if jestTitle.MatchString(n) {
				break
			}
			if a := jestAt.FindStringSubmatch(n); a != nil && !strings.Contains(a[1], "node_modules") {
				f.File, f.Line = strings.TrimPrefix(a[1], "file://"), atoi(a[2])
				break
			}
		}
		fs = append(fs, f)
	}
	return fs
}

// parseVitest reads vitest: each " FAIL  file > test" block's "❯
// file:line:col" line, else the file.
func parseVitest(lines []string) []Failure {
	var fs []Failure
	for i, l := range lines {
		m := vitestFail.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := Failure{Name: strings.TrimSpace(m[2]), File: m[1]}
		for _, n := range lines[i+1:] {
			if vitestFail.MatchString(n) {
				break
			}
			if v := vitestLoc.FindStringSubmatch(n); v != nil && !strings.Contains(v[1], "node_modules") {
				f.File, f.Line = v[1], atoi(v[2])
				break
			}
		}
		fs = append(fs, f)
	}
	return fs
}

// parseGeneric collects "file.ext:line:" locations at the start of lines,
// the convention of compilers, linters and most tools.
func parseGeneric(lines []string) []Failure {
	var fs []Failure
	for _, l := range lines {
		m := generic.FindStringSubmatch(l)
		if m == nil || strings.Contains(m[1], "//") {
			continue
		}
		fs = append(fs, Failure{File: m[1], Line: atoi(m[2])})
	}
	return fs
}

var (
	// unittestHead is "FAIL: test_add (test_calc.TestCalc.test_add)"
	// (Python ≥ 3.11 repeats the method; older ones name the class).
	unittestHead = regexp.MustCompile(`^(?:FAIL|ERROR): (\S+) \((\S+)\)$`)
	// unittestFrame is a traceback's `  File "p/test_calc.py", line 8, in f`.
	unittestFrame = regexp.MustCompile(`^  File "([^"]+)", line (\d+), in `)
)

// parseUnittest reads python -m unittest: each FAIL/ERROR block's
// traceback, the last frame in a test file, else its last frame.
func parseUnittest(lines []string) []Failure {
	var fs []Failure
	for i, l := range lines {
		m := unittestHead.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name := m[2]
		if !strings.HasSuffix(name, "."+m[1]) {
			name += "." + m[1]
		}
		f := Failure{Name: name}
		var last Failure
		for _, n := range lines[i+1:] {
			if strings.HasPrefix(n, "=====") || unittestHead.MatchString(n) {
				break
			}
			if fr := unittestFrame.FindStringSubmatch(n); fr != nil {
				loc := Failure{File: fr[1], Line: atoi(fr[2])}
				if strings.Contains(filepathBase(fr[1]), "test") {
					f.File, f.Line = loc.File, loc.Line
				}
				last = loc
			}
		}
		if f.File == "" {
			f.File, f.Line = last.File, last.Line
		}
		fs = append(fs, f)
	}
	return fs
}

// filepathBase is the last element of a slash or backslash path.
func filepathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
