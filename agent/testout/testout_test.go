package testout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseRealOutput parses output the runners printed. go test (text,
// -json, a build failure), cargo test and python -m unittest were run on
// small failing projects (under /tmp/vp, hence the paths); pytest, jest
// and vitest were not installed, so their samples are written from the
// formats their documentation shows.
func TestParseRealOutput(t *testing.T) {
	for _, tc := range []struct {
		file, runner, summary string
	}{
		{"go_test.txt", RunnerGo, "3 failing tests: TestAdd (calc_test.go:7), TestTable/pos (calc_test.go:15), TestDiv (/tmp/vp/gomod/calc_test.go:22)"},
		{"go_test_json.txt", RunnerGoJSON, "3 failing tests: TestAdd (calc_test.go:7), TestTable/pos (calc_test.go:15), TestDiv (/tmp/vp/gomod/calc_test.go:22)"},
		{"go_build.txt", RunnerGeneric, "1 reported location: calc.go:8"},
		{"cargo_test.txt", RunnerCargo, "2 failing tests: tests::it_panics (src/lib.rs:12), tests::it_adds (src/lib.rs:8)"},
		{"pytest.txt", RunnerPytest, "2 failing tests: test_add (tests/test_calc.py:5), TestDiv::test_zero (tests/test_calc.py:13)"},
		{"unittest.txt", RunnerUnittest, "2 failing tests: test_calc.TestCalc.test_div (/tmp/vp/py/test_calc.py:11), test_calc.TestCalc.test_add (/tmp/vp/py/test_calc.py:8)"},
		{"jest.txt", RunnerJest, "1 failing test: sum › adds 1 + 2 to equal 3 (src/sum.test.js:5)"},
		{"vitest.txt", RunnerVitest, "1 failing test: sum > adds 1 + 2 to equal 3 (src/sum.test.ts:5)"},
		{"generic.txt", RunnerGeneric, "2 reported locations: src/main.c:12, src/util.c:40"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := Parse(sample(t, tc.file))
			if r.Runner != tc.runner {
				t.Errorf("runner %q, want %q", r.Runner, tc.runner)
			}
			if got := r.Summary(); got != tc.summary {
				t.Errorf("summary\n got %s\nwant %s", got, tc.summary)
			}
		})
	}
}

// TestParseVerbose: with -v the log lines come before --- FAIL.
func TestParseVerbose(t *testing.T) {
	out := "=== RUN   TestAdd\n    calc_test.go:7: Add(2, 3) = -1, want 5\n--- FAIL: TestAdd (0.00s)\n=== RUN   TestOK\n--- PASS: TestOK (0.00s)\nFAIL\n"
	if got := Parse(out).Summary(); got != "1 failing test: TestAdd (calc_test.go:7)" {
		t.Errorf("summary %q", got)
	}
}

// TestParseNothing: passing output, garbage and empty input give nothing.
func TestParseNothing(t *testing.T) {
	for _, out := range []string{"", "ok  \texample.com/calc\t0.01s\n", "PASS\n", "\x00\xff\xfe garbage {\"Action\":", "{\"Action\":\"fail\"}\n", "see http://x.y:80/ for more"} {
		if r := Parse(out); r.Runner != "" || r.Summary() != "" {
			t.Errorf("Parse(%q) = %+v", out, r)
		}
	}
}

// TestParseTruncated: output cut anywhere still parses without panicking,
// and a cut after the first failure keeps it.
func TestParseTruncated(t *testing.T) {
	for _, name := range []string{"go_test.txt", "go_test_json.txt", "cargo_test.txt", "pytest.txt", "unittest.txt", "jest.txt", "vitest.txt"} {
		s := sample(t, name)
		for i := range len(s) {
			Parse(s[:i]) // must not panic
		}
	}
	s := sample(t, "go_test.txt")
	cut := s[:strings.Index(s, "--- FAIL: TestTable")]
	if got := Parse(cut).Summary(); got != "1 failing test: TestAdd (calc_test.go:7)" {
		t.Errorf("truncated summary %q", got)
	}
}

// TestParseHostile: names are cleaned of control characters and clipped,
// the failures kept are capped, and huge input is read only up to
// MaxInput.
func TestParseHostile(t *testing.T) {
	r := Parse("--- FAIL: Test\x1b[31mRed\u202e (0.00s)\n")
	if len(r.Failures) != 1 || strings.ContainsAny(r.Failures[0].Name, "\x1b\u202e") {
		t.Errorf("control characters kept: %+v", r.Failures)
	}
	long := "--- FAIL: Test" + strings.Repeat("x", 10000) + " (0.00s)\n"
	if r := Parse(long); len(r.Failures[0].Name) > maxField+len("…") {
		t.Errorf("name not clipped: %d bytes", len(r.Failures[0].Name))
	}
	var b strings.Builder
	for i := range 200 {
		b.WriteString("--- FAIL: TestN" + strings.Repeat("a", i%7) + string(rune('A'+i%26)) + strings.Repeat("z", i) + " (0.00s)\n")
	}
	r = Parse(b.String())
	if len(r.Failures) != maxFailures || r.Omitted != 200-maxFailures {
		t.Errorf("kept %d, omitted %d", len(r.Failures), r.Omitted)
	}
	if s := r.Summary(); !strings.HasPrefix(s, "200 failing tests: ") || !strings.HasSuffix(s, ", and 190 more") {
		t.Errorf("summary %q", s)
	}
	huge := strings.Repeat("x", MaxInput) + "\n--- FAIL: TestLate (0.00s)\n"
	if r := Parse(huge); len(r.Failures) != 0 {
		t.Errorf("read past MaxInput: %+v", r)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"go_test.txt", "go_test_json.txt", "go_build.txt", "cargo_test.txt", "pytest.txt", "unittest.txt", "jest.txt", "vitest.txt", "generic.txt"} {
		f.Add(sample(f, name))
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Parse(s)
		if len(r.Failures) > maxFailures {
			t.Fatalf("kept %d failures", len(r.Failures))
		}
		for _, fl := range r.Failures {
			if strings.ContainsAny(fl.Name+fl.File, "\n\r\x1b") || fl.Line < 0 {
				t.Fatalf("unclean failure %+v", fl)
			}
		}
		if (r.Summary() == "") != (len(r.Failures) == 0) {
			t.Fatalf("summary %q for %+v", r.Summary(), r)
		}
	})
}
