package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/tools/fs"
	"github.com/reinharness/rein/workspace"
)

// rgSemantics are the rg flags that match rein's walk (see the package
// doc).
var rgSemantics = []string{"--hidden", "-g", "!.git", "--no-require-git", "--no-ignore-dot",
	"--no-ignore-parent", "--no-ignore-global", "--no-config", "--color=never"}

// grepCase is one pattern. Patterns avoid \w and \b, which are ASCII in
// Go's regexp and Unicode in rg's.
type grepCase struct {
	name, pattern string
	ignoreCase    bool
}

var grepCases = []grepCase{
	{"literal", "ErrUnexpectedEOF", false},
	{"prefix-regex", `func \([a-z]+ \*Reader\) Read[A-Za-z]*`, false},
	{"ignore-case", "content-type", true},
	{"no-literal", `[A-Z]{4,}[0-9]{2,}`, false},
}

type globCase struct{ name, rein, rg string }

var globCases = []globCase{
	{"test-files", "**/*_test.go", "*_test.go"},
	{"testdata-go", "**/testdata/**/*.go", "**/testdata/**/*.go"},
}

func goroot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// needRG skips without rg, unless BENCH_REQUIRE_RG is set (bench/run
// sets it after installing ripgrep).
func needRG(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		if os.Getenv("BENCH_REQUIRE_RG") != "" {
			tb.Fatal("rg not found (apt-get install ripgrep)")
		}
		tb.Skip("rg not found: skipping the ripgrep comparison (apt-get install ripgrep)")
	}
}

type tools struct {
	ws         *workspace.Workspace
	grep, glob tool.Tool
}

func open(tb testing.TB, root string) tools {
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	// No caps: the comparison needs every match.
	opts := fs.Options{GrepMatches: 1 << 30, GlobResults: 1 << 30, OutputBytes: 1 << 30, WalkEntries: 1 << 30}
	return tools{ws: ws, grep: fs.Grep(ws, opts), glob: fs.Glob(ws, opts)}
}

func call(tb testing.TB, t tool.Tool, args any) string {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := t.Call(context.Background(), raw)
	if err != nil {
		tb.Fatal(err)
	}
	if res.IsError {
		tb.Fatalf("%s: %s", t.Spec().Name, res.Content)
	}
	return res.Content
}

func reinGrep(tb testing.TB, ts tools, c grepCase) string {
	return call(tb, ts.grep, fs.GrepArgs{Pattern: c.pattern, IgnoreCase: c.ignoreCase})
}

func rgGrep(tb testing.TB, root string, c grepCase) string {
	args := append([]string{"--line-number", "--no-heading", "--with-filename"}, rgSemantics...)
	if c.ignoreCase {
		args = append(args, "-i")
	}
	return rg(tb, root, append(args, "-e", c.pattern)...)
}

func reinGlob(tb testing.TB, ts tools, c globCase) string {
	return call(tb, ts.glob, fs.GlobArgs{Pattern: c.rein})
}

func rgGlob(tb testing.TB, root string, c globCase) string {
	return rg(tb, root, append(append([]string{"--files"}, rgSemantics...), "-g", c.rg)...)
}

func rg(tb testing.TB, root string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("rg", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 { // 1: no match
		tb.Fatalf("rg %v: %v: %s", args, err, stderr.String())
	}
	return string(out)
}

// matchLine is "path:line:" at the start of a grep output line.
var matchLine = regexp.MustCompile(`^([^:\n]+):([0-9]+):`)

// matchSet is the set of "path:line" a grep output reports.
func matchSet(out string) map[string]bool {
	set := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if m := matchLine.FindStringSubmatch(line); m != nil {
			set[m[1]+":"+m[2]] = true
		}
	}
	return set
}

func pathSet(out string) map[string]bool {
	set := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if line != "" && !strings.HasPrefix(line, "…") && !strings.HasPrefix(line, "No files match") {
			set[line] = true
		}
	}
	return set
}

// TestCorrectSearch checks that rein and rg report the same matches on
// GOROOT/src for every pattern, and the same files for every glob. The
// one allowed difference is rein's documented binary rule: a file whose
// first 8 KiB hold invalid UTF-8 is binary to rein and text to rg (which
// looks for NUL bytes only), so matches rg finds in such files are not
// counted against rein — each one is checked to be in such a file.
func TestCorrectSearch(t *testing.T) {
	needRG(t)
	root := goroot(t)
	ts := open(t, root)
	for _, c := range grepCases {
		t.Run("grep/"+c.name, func(t *testing.T) {
			mine, theirs := matchSet(reinGrep(t, ts, c)), matchSet(rgGrep(t, root, c))
			if len(mine) == 0 {
				t.Fatal("rein found nothing: the pattern tests nothing")
			}
			binary := map[string]bool{}
			for m := range theirs {
				if mine[m] {
					continue
				}
				file := m[:strings.LastIndex(m, ":")]
				if _, seen := binary[file]; !seen {
					b, err := os.ReadFile(filepath.Join(root, file))
					binary[file] = err == nil && workspace.IsBinary(b)
				}
				if !binary[file] {
					t.Errorf("only rg matched %s", m)
				}
			}
			for m := range mine {
				if !theirs[m] {
					t.Errorf("only rein matched %s", m)
				}
			}
			t.Logf("%d matches (rg: %d; binary-to-rein files: %d)", len(mine), len(theirs), countTrue(binary))
		})
	}
	for _, c := range globCases {
		t.Run("glob/"+c.name, func(t *testing.T) {
			mine, theirs := pathSet(reinGlob(t, ts, c)), pathSet(rgGlob(t, root, c))
			if len(mine) == 0 {
				t.Fatal("rein found nothing: the pattern tests nothing")
			}
			if !mapsEqual(mine, theirs) {
				t.Errorf("glob %s: rein %d files, rg %d; only rein: %v; only rg: %v", c.rein, len(mine), len(theirs),
					firstMissing(mine, theirs), firstMissing(theirs, mine))
			}
		})
	}
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// firstMissing lists up to five keys of a missing from b.
func firstMissing(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), 5)]
}

// BenchmarkSearch times one search per op; ms/op is the headline.
func BenchmarkSearch(b *testing.B) {
	needRG(b)
	root := goroot(b)
	ts := open(b, root)
	// Warm the page cache first, untimed: otherwise whichever search runs
	// first after the other comparisons pays for reading 157 MB from disk
	// (and, with few iterations, that one cold pass dominates its mean).
	reinGrep(b, ts, grepCases[0])
	rgGrep(b, root, grepCases[0])
	b.ResetTimer()
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f()
			}
			b.ReportMetric(float64(b.Elapsed())/float64(time.Millisecond)/float64(b.N), "ms/op")
		})
	}
	for _, c := range grepCases {
		run(fmt.Sprintf("tool=grep/pattern=%s/impl=rein", c.name), func() { reinGrep(b, ts, c) })
		run(fmt.Sprintf("tool=grep/pattern=%s/impl=rg", c.name), func() { rgGrep(b, root, c) })
	}
	for _, c := range globCases {
		run(fmt.Sprintf("tool=glob/pattern=%s/impl=rein", c.name), func() { reinGlob(b, ts, c) })
		run(fmt.Sprintf("tool=glob/pattern=%s/impl=rg", c.name), func() { rgGlob(b, root, c) })
	}
}
