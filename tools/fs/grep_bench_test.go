package fs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinharness/rein/workspace"
)

// goSearchCase is one search the GOROOT benchmarks time, in rein's terms
// and in ripgrep's, so the two can be compared on the same work.
type goSearchCase struct {
	name string
	args GrepArgs
}

// goSearchCases are the kinds of search issue 13 names: a literal, a
// regex with a literal prefix, a case-insensitive pattern and a pattern
// with no literal at all; plus a common word whose matches fill the
// tool's default cap.
var goSearchCases = []goSearchCase{
	{"literal", GrepArgs{Pattern: "ErrUnexpectedEOF"}},
	{"prefix", GrepArgs{Pattern: `errors\.New\("[a-z]+ [a-z]+"\)`}},
	{"ignorecase", GrepArgs{Pattern: "unexpected eof", IgnoreCase: true}},
	{"noliteral", GrepArgs{Pattern: `[a-z]+[0-9]{4}[A-Z]`}},
}

// goSrc returns $GOROOT/src, skipping the benchmark or test when the tree
// is not there (a binary-only Go install).
func goSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("no go command to find the Go source tree: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if fi, err := os.Stat(filepath.Join(dir, "go", "ast")); err != nil || !fi.IsDir() {
		tb.Skipf("no Go source tree at %s", dir)
	}
	return dir
}

// goSrcWS opens GOROOT/src as a workspace.
func goSrcWS(tb testing.TB) *workspace.Workspace {
	tb.Helper()
	ws, err := workspace.Open(goSrc(tb), workspace.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	return ws
}

// uncapped lifts the tools' result caps so a benchmark does the whole
// search, as ripgrep does, and the match sets can be compared.
var uncapped = Options{GrepMatches: 1 << 30, OutputBytes: 1 << 30, GlobResults: 1 << 30}.withDefaults()

// BenchmarkGrepGOROOT times the grep tool over the Go source tree
// (157 MB, 11k files): the figure issue 13 compares with ripgrep. The
// "capped" case runs with the default options, where the walk stops at
// the 200th match.
func BenchmarkGrepGOROOT(b *testing.B) {
	ws := goSrcWS(b)
	for _, c := range goSearchCases {
		b.Run(c.name, func(b *testing.B) {
			benchGrep(b, ws, uncapped, c.args)
		})
	}
	b.Run("capped", func(b *testing.B) {
		benchGrep(b, ws, Options{}.withDefaults(), GrepArgs{Pattern: "func"})
	})
}

func benchGrep(b *testing.B, ws *workspace.Workspace, opts Options, a GrepArgs) {
	b.ReportAllocs()
	lines := 0
	for b.Loop() {
		out, err := grep(context.Background(), ws, opts, a)
		if err != nil || strings.HasPrefix(out, "No matches") {
			b.Fatalf("%v %.200q", err, out)
		}
		lines = strings.Count(out, "\n")
	}
	b.ReportMetric(float64(lines), "lines")
}

// goGlobPattern is the glob the benchmarks time: every test file.
const goGlobPattern = "**/*_test.go"

// BenchmarkGlobGOROOT times the glob tool over the Go source tree, to
// compare with `rg --files -g '*_test.go'`.
func BenchmarkGlobGOROOT(b *testing.B) {
	ws := goSrcWS(b)
	b.ReportAllocs()
	for b.Loop() {
		out, err := glob(context.Background(), ws, uncapped, GlobArgs{Pattern: goGlobPattern})
		if err != nil || !strings.Contains(out, "_test.go\n") {
			b.Fatalf("%v %.200q", err, out)
		}
	}
}

// rgArgs translates a case into ripgrep's flags. --hidden and
// --no-require-git make ripgrep walk what rein walks: hidden files are
// searched and .gitignore applies even outside a git checkout.
func rgArgs(a GrepArgs) []string {
	args := []string{"--hidden", "--no-require-git", "--no-heading", "-n", "--color=never"}
	if a.IgnoreCase {
		args = append(args, "-i")
	}
	return append(args, "-e", a.Pattern, ".")
}

// BenchmarkRipgrepGOROOT times ripgrep on the same searches (skipped when
// rg is not installed): tools/fs/search_bench.sh alternates it with
// BenchmarkGrepGOROOT and prints the ratios.
func BenchmarkRipgrepGOROOT(b *testing.B) {
	dir := goSrc(b)
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed (apt-get install ripgrep)")
	}
	run := func(b *testing.B, args ...string) {
		for b.Loop() {
			cmd := exec.Command(rg, args...)
			cmd.Dir = dir
			if out, err := cmd.Output(); err != nil || len(out) == 0 {
				b.Fatalf("rg %v: %v", args, err)
			}
		}
	}
	for _, c := range goSearchCases {
		b.Run(c.name, func(b *testing.B) { run(b, rgArgs(c.args)...) })
	}
	b.Run("glob", func(b *testing.B) {
		run(b, "--files", "--hidden", "--no-require-git", "-g", "*_test.go", ".")
	})
}

// BenchmarkGrepOldImpl times the old grep (grep_oldimpl_test.go) on the
// same searches, for the before/after figures. Its name keeps it out of
// -bench=GOROOT: it takes seconds per search.
func BenchmarkGrepOldImpl(b *testing.B) {
	ws := goSrcWS(b)
	for _, c := range goSearchCases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := oracleGrep(context.Background(), ws, uncapped, c.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("glob", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := oracleGlob(context.Background(), ws, uncapped, GlobArgs{Pattern: goGlobPattern}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
