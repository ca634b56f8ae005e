package testout

import (
	"encoding/json"
	"regexp"
	"strings"
)

var (
	// goFail is go test's "--- FAIL: TestName (0.00s)", indented per
	// subtest level.
	goFail = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	// goRun is -v's "=== RUN   TestName".
	goRun = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+(\S+)`)
	// goLog is a t.Log/t.Error line: "    calc_test.go:7: message".
	goLog = regexp.MustCompile(`^\s+([^\s:]+\.go):(\d+): `)
	// goFrame is a goroutine trace's file line: "\t/p/calc_test.go:22 +0xa".
	goFrame = regexp.MustCompile(`^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// parseGoText reads go test's text output. A test's location is the
// first t.Error/t.Fatal line logged under it (after its --- FAIL line,
// or before it with -v), else the frame of a panic trace that names it.
func parseGoText(lines []string) []Failure {
	var fs []Failure
	logged := map[string]Failure{} // -v: first log location per test
	cur := ""
	for i, l := range lines {
		if m := goRun.FindStringSubmatch(l); m != nil {
			cur = m[1]
			continue
		}
		if m := goLog.FindStringSubmatch(l); m != nil && cur != "" {
			if _, ok := logged[cur]; !ok {
				logged[cur] = Failure{File: m[1], Line: atoi(m[2])}
			}
			continue
		}
		m := goFail.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := Failure{Name: m[1]}
		if loc, ok := logged[f.Name]; ok {
			f.File, f.Line = loc.File, loc.Line
		} else if loc, ok := goLogAfter(lines[i+1:], indent(l)); ok {
			f.File, f.Line = loc.File, loc.Line
		} else if loc, ok := goPanicFrame(lines[i+1:], f.Name); ok {
			f.File, f.Line = loc.File, loc.Line
		}
		fs = append(fs, f)
	}
	return leaves(fs)
}

// goLogAfter finds the first log line indented deeper than the --- FAIL
// line (width ind) that follows it, stopping at the next result line.
func goLogAfter(lines []string, ind int) (Failure, bool) {
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if indent(l) <= ind || strings.HasPrefix(strings.TrimSpace(l), "--- ") {
			return Failure{}, false
		}
		if m := goLog.FindStringSubmatch(l); m != nil {
			return Failure{File: m[1], Line: atoi(m[2])}, true
		}
	}
	return Failure{}, false
}

// goPanicFrame finds, in a panic's goroutine trace, the frame of test
// name ("pkg.TestDiv(0x…)") and returns the file line under it.
func goPanicFrame(lines []string, name string) (Failure, bool) {
	fn := "." + strings.ReplaceAll(name, "/", ".") + "("
	for i, l := range lines {
		if strings.HasPrefix(l, "--- FAIL: ") || strings.HasPrefix(l, "FAIL\t") {
			break
		}
		if !strings.Contains(l, fn) || i+1 >= len(lines) {
			continue
		}
		if m := goFrame.FindStringSubmatch(lines[i+1]); m != nil {
			return Failure{File: m[1], Line: atoi(m[2])}, true
		}
	}
	return Failure{}, false
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// leaves drops a parent test whose subtest failed too: "TestTable" fails
// because "TestTable/pos" did, and the subtest is the one to fix.
func leaves(fs []Failure) []Failure {
	out := fs[:0:0]
	for _, f := range fs {
		parent := false
		for _, g := range fs {
			if strings.HasPrefix(g.Name, f.Name+"/") {
				parent = true
				break
			}
		}
		if !parent {
			out = append(out, f)
		}
	}
	return out
}

// goEvent is one line of go test -json (cmd/test2json).
type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// parseGoJSON reads go test -json: a test's "fail" action names it, and
// its output lines give the location as in text output. Output with no
// failing test (a build failure) is left to the other parsers.
func parseGoJSON(lines []string) []Failure {
	type key struct{ pkg, test string }
	var order []key
	outputs := map[key][]string{}
	failed := map[key]bool{}
	for _, l := range lines {
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var ev goEvent
		if json.Unmarshal([]byte(l), &ev) != nil || ev.Test == "" {
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "output":
			if len(outputs[k]) < 1000 && !strings.HasPrefix(ev.Output, "--- ") {
				outputs[k] = append(outputs[k], strings.TrimSuffix(ev.Output, "\n"))
			}
		case "fail":
			if !failed[k] {
				failed[k] = true
				order = append(order, k)
			}
		}
	}
	var fs []Failure
	for _, k := range order {
		f := Failure{Name: k.test}
		out := outputs[k]
		if loc, ok := firstGoLog(out); ok {
			f.File, f.Line = loc.File, loc.Line
		} else if loc, ok := goPanicFrame(out, k.test); ok {
			f.File, f.Line = loc.File, loc.Line
		}
		fs = append(fs, f)
	}
	return leaves(fs)
}

func firstGoLog(lines []string) (Failure, bool) {
	for _, l := range lines {
		if m := goLog.FindStringSubmatch(l); m != nil {
			return Failure{File: m[1], Line: atoi(m[2])}, true
		}
	}
	return Failure{}, false
}
