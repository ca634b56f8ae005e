package fs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace"
)

// oraclePatterns exercise every path of the engine: pure literals, literal
// prefixes and infixes, case folding (with the runes whose fold leaves
// ASCII), alternations, anchors of both kinds, Unicode, patterns with no
// literal, patterns matching nothing and patterns matching every line.
var oraclePatterns = []GrepArgs{
	{Pattern: "ErrUnexpectedEOF"},
	{Pattern: "func main"},
	{Pattern: `errors\.New\("[a-z]+ [a-z]+"\)`},
	{Pattern: `func \(\w+ \*Reader\) Read\w*`},
	{Pattern: "unexpected eof", IgnoreCase: true},
	{Pattern: "kelvin|strasse", IgnoreCase: true},
	{Pattern: "(?i)SKIP"},
	{Pattern: `Copyright|License|BSD-style`},
	{Pattern: `(foo|bar)baz`},
	{Pattern: `^package \w+$`},
	{Pattern: `^\s*//go:build`},
	{Pattern: `\)$`},
	{Pattern: `\A// Copyright`},
	{Pattern: `}\z`},
	{Pattern: `(?-m)^package`},
	{Pattern: `[a-z]+[0-9]{4}[A-Z]`},
	{Pattern: `\b[A-Z][a-z]+[0-9]{3}\b`},
	{Pattern: `\d{4}-\d{2}-\d{2}`},
	{Pattern: `[αβγδ]|日本|\x{FFFD}`},
	{Pattern: `(?i)ÉTÉ|straße`},
	{Pattern: `\p{Han}+`},
	{Pattern: `zzzqqqxxx_never_here`},
	{Pattern: `a\nb`},
	{Pattern: `x*`},
	{Pattern: `^`},
	{Pattern: `$`},
	{Pattern: `\s+$`},
	{Pattern: `^$`},
	{Pattern: `.`},
	{Pattern: `\bif\b.*\berr\b`},
	{Pattern: `\Bing\B`},
	{Pattern: `return nil, (err|fmt\.Errorf)`},
	{Pattern: `x{2,}y?|q+z`},
}

// oracleOptions are the caps the comparisons run under: lifted, the
// defaults, and tight ones that cut inside files.
var oracleOptions = []Options{
	uncapped,
	Options{}.withDefaults(),
	Options{GrepMatches: 3, OutputBytes: 1 << 20}.withDefaults(),
	Options{GrepMatches: 1000, OutputBytes: 700}.withDefaults(),
}

// compareGrep runs the engine and the old grep on the same call and
// reports any difference.
func compareGrep(t *testing.T, ws *workspace.Workspace, opts Options, a GrepArgs) {
	t.Helper()
	ctx := context.Background()
	want, wantErr := oracleGrep(ctx, ws, opts, a)
	got, gotErr := grep(ctx, ws, opts, a)
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		t.Fatalf("grep(%+v, %+v): error %v, old grep %v", a, opts, gotErr, wantErr)
	}
	if got != want {
		t.Fatalf("grep(%+v, caps %d/%d/%d) differs from the old grep:\n%s", a, opts.GrepMatches, opts.OutputBytes, opts.WalkEntries, firstDiff(got, want))
	}
}

func compareGlob(t *testing.T, ws *workspace.Workspace, opts Options, a GlobArgs) {
	t.Helper()
	ctx := context.Background()
	want, wantErr := oracleGlob(ctx, ws, opts, a)
	got, gotErr := glob(ctx, ws, opts, a)
	if (wantErr == nil) != (gotErr == nil) || got != want {
		t.Fatalf("glob(%+v) differs from the old glob (err %v, old %v):\n%s", a, gotErr, wantErr, firstDiff(got, want))
	}
}

// firstDiff shows where two outputs part, with a little context.
func firstDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			return fmt.Sprintf("line %d (of %d, want %d):\n got %.300q\nwant %.300q", i+1, len(gl), len(wl), g, w)
		}
	}
	return "(equal)"
}

// TestGrepMatchesOldGOROOT compares the engine with the old grep on the Go
// source tree for every oracle pattern. The old grep is slow (seconds per
// pattern on the whole tree), so by default it searches 6 MB of it —
// go/types, regexp, net/http and a vendored module with a .gitignore —
// and under the race detector a few small packages; REIN_GREP_ORACLE_FULL=1
// searches the whole tree. Skipped under -short.
func TestGrepMatchesOldGOROOT(t *testing.T) {
	if testing.Short() {
		t.Skip("searches the Go source tree")
	}
	ws := goSrcWS(t)
	dirs := []string{"go/types", "regexp", "net/http", "cmd/vendor/golang.org/x/telemetry"}
	switch {
	case os.Getenv("REIN_GREP_ORACLE_FULL") == "1":
		dirs = []string{""}
	case raceEnabled:
		dirs = []string{"regexp/syntax", "bufio"}
	}
	// A bound against a runaway search, not a speed target (those are
	// benchmarks): generous, since a loaded 2-core machine is many times
	// slower than a quiet one.
	limit := 10 * time.Minute
	if dirs[0] == "" {
		limit = 30 * time.Minute
	}
	deadline := time.Now().Add(limit)
	for _, a := range oraclePatterns {
		for _, dir := range dirs {
			a.Path = dir
			compareGrep(t, ws, uncapped, a)
			compareGrep(t, ws, Options{}.withDefaults(), a)
		}
		if time.Now().After(deadline) {
			t.Fatalf("too slow: stopped at %q", a.Pattern)
		}
	}
	compareGrep(t, ws, Options{}.withDefaults(), GrepArgs{Pattern: "Reader", Context: 2, Glob: "*.go", Path: "bufio"})
	compareGrep(t, ws, Options{WalkEntries: 500}.withDefaults(), GrepArgs{Pattern: "func"})
	compareGlob(t, ws, uncapped, GlobArgs{Pattern: goGlobPattern})
	compareGlob(t, ws, Options{}.withDefaults(), GlobArgs{Pattern: "**/testdata/*"})
	compareGlob(t, ws, uncapped, GlobArgs{Pattern: "*/*.go", Path: "net"})
}

// hostileTree is a workspace with every kind of file the search must treat
// as the old grep did.
func hostileTree(t *testing.T) *workspace.Workspace {
	long := strings.Repeat("word ", 3000) + "needle " + strings.Repeat("x", 5000) + "\n"
	files := map[string]string{
		".gitignore":             "*.log\nbuild/\n!keep.log\n/rooted.txt\nsub/**/deep*.txt\n",
		".git/config":            "needle\n",
		".git/info/exclude":      "excluded.txt\n",
		"excluded.txt":           "needle\n",
		"a.go":                   "package a\n\nfunc main() {\n\tneedle := 1 // Needle\n}\n",
		"b.txt":                  "needle at start\nmiddle needle\nend needle",
		"crlf.txt":               "line one\r\nneedle two\r\n\r\nthree\r\n",
		"empty.txt":              "",
		"newline.txt":            "\n",
		"newlines.txt":           "\n\n\nneedle\n\n",
		"binary.bin":             "needle\x00needle\n",
		"late-nul.txt":           strings.Repeat("a", 9000) + "\x00needle\n",
		"invalid.txt":            "needle \xff\xfe here\n",
		"late-invalid.txt":       strings.Repeat("b\n", 5000) + "needle \xff\xfe\n",
		"long.txt":               long,
		"unicode.txt":            "ÉTÉ straße STRASSE Kelvin \u212aelvin ſkip 日本語\nαβγ \ufffd\n",
		"debug.log":              "needle\n",
		"keep.log":               "needle\n",
		"rooted.txt":             "needle\n",
		"sub/rooted.txt":         "needle\n",
		"sub/.gitignore":         "local.txt\n!debug2.log\n",
		"sub/local.txt":          "needle\n",
		"sub/debug2.log":         "needle\n",
		"sub/x/deep1.txt":        "needle\n",
		"sub/x/shallow.txt":      "needle needle\n",
		"build/out.txt":          "needle\n",
		"ctx.txt":                "1\n2\nneedle\n4\n5\n6\n7\n8\nneedle\n10\nneedle\n12\n",
		"dir.with.dots/f.md":     "# needle\n",
		"z/very/deep/tree/f.txt": "needle\n",
		"many.txt":               strings.Repeat("needle\n", 300),
	}
	ws, dir := newWS(t, files)
	os.Symlink("a.go", filepath.Join(dir, "link.go"))
	os.Symlink("sub", filepath.Join(dir, "linkdir"))
	os.Symlink("../../outside", filepath.Join(dir, "escape"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	return ws
}

var treePatterns = []GrepArgs{
	{Pattern: "needle"},
	{Pattern: "NEEDLE", IgnoreCase: true},
	{Pattern: `needle$`},
	{Pattern: `^needle`},
	{Pattern: `needle\s+\w+`},
	{Pattern: `\r$`},
	{Pattern: `^$`},
	{Pattern: `.*`},
	{Pattern: `\xff|\x{FFFD}`},
	{Pattern: `(?i)kelvin|STRAßE|skip`},
	{Pattern: `x{100}`},
	{Pattern: `\Aneedle`},
	{Pattern: `needle\z`},
	{Pattern: `one\r\nneedle`},
	{Pattern: "needle", Context: 1},
	{Pattern: "needle", Context: 3, Glob: "*.txt"},
	{Pattern: "needle", Glob: "sub/**"},
	{Pattern: "needle", Path: "sub"},
	{Pattern: "needle", Path: "sub/x"},
	{Pattern: "needle", Path: "build"},
	{Pattern: "needle", Path: "debug.log"},
	{Pattern: "needle", Path: "link.go"},
	{Pattern: "needle", Path: "fifo"},
	{Pattern: "needle", Path: "linkdir"},
	{Pattern: "needle", Path: "escape"},
	{Pattern: "needle", Path: "../outside"},
	{Pattern: "nothing-matches-this"},
}

// TestGrepMatchesOldTrees compares the engine with the old grep on a tree
// of binary, ignored, linked, huge-lined, CRLF and invalid UTF-8 files,
// under every cap setting, a read cap that skips files and an entry limit
// that cuts the walk.
func TestGrepMatchesOldTrees(t *testing.T) {
	ws := hostileTree(t)
	for _, a := range treePatterns {
		for _, opts := range oracleOptions {
			compareGrep(t, ws, opts, a)
		}
		for _, n := range []int{1, 5, 17, 40} {
			compareGrep(t, ws, Options{WalkEntries: n}.withDefaults(), a)
		}
	}
	small, err := workspace.Open(ws.Dir(), workspace.Options{MaxReadBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	for _, a := range treePatterns[:4] {
		compareGrep(t, small, Options{}.withDefaults(), a)
	}
	for _, p := range []string{"**", "*", "**/*.txt", "sub/**/*", "*/*", "**/deep*", "link*", "[ab].*", "{a,b}.*", "z/*/*/*/*"} {
		for _, opts := range []Options{uncapped, {GlobResults: 3}, {WalkEntries: 7}} {
			compareGlob(t, ws, opts.withDefaults(), GlobArgs{Pattern: p})
			compareGlob(t, ws, opts.withDefaults(), GlobArgs{Pattern: p, Path: "sub"})
		}
	}
}

// TestGrepCancelled checks a cancelled context ends the search with its
// error, as the old walk did.
func TestGrepCancelled(t *testing.T) {
	ws := hostileTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := grep(ctx, ws, uncapped, GrepArgs{Pattern: "needle"}); err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := glob(ctx, ws, uncapped, GlobArgs{Pattern: "**"}); err != context.Canceled {
		t.Fatalf("glob err = %v, want context.Canceled", err)
	}
}

// FuzzGrepMatchesOld builds a small tree from the input — file names,
// contents with newlines, CRs, NULs and invalid UTF-8, a .gitignore — and
// compares the engine with the old grep on a pattern from the input.
func FuzzGrepMatchesOld(f *testing.F) {
	f.Add("needle", false, 0, 3, "a.txt\x00needle\nx\n\x01b/c.go\x00Needle\r\n\x01.gitignore\x00*.log\n\x01d.log\x00needle")
	f.Add(`^\w+$`, true, 1, 1, "x\x00ab\ncd\n\nef\x01y/z\x00\xff\n\x00\x01")
	f.Add(`(?i)k|s`, true, 2, 2, "k\x00K\u212a\n\u017f s S\x01")
	f.Add(`\Aa|b\z`, false, 0, 5, "f\x00a\nb\x01g\x00b\na")
	f.Add(`x*`, false, 3, 1, "e\x00\x01n\x00\n\x01m\x00\n\n")
	f.Fuzz(func(t *testing.T, pattern string, fold bool, ctxLines, maxMatches int, tree string) {
		if _, err := regexp.Compile(pattern); err != nil || len(pattern) > 64 {
			return
		}
		files := map[string]string{}
		for _, spec := range strings.Split(tree, "\x01") {
			name, content, _ := strings.Cut(spec, "\x00")
			name = strings.Trim(filepath.ToSlash(filepath.Clean(name)), "/")
			if name == "" || name == "." || strings.HasPrefix(name, "..") || strings.ContainsAny(name, "\x00\\") || len(files) > 8 {
				continue
			}
			files[name] = content
		}
		dir := t.TempDir()
		for name, content := range files {
			p := filepath.Join(dir, name)
			if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
				continue
			}
			os.WriteFile(p, []byte(content), 0o644)
		}
		ws, err := workspace.Open(dir, workspace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		opts := Options{GrepMatches: 1 + nonNeg(maxMatches)%8}.withDefaults()
		a := GrepArgs{Pattern: pattern, IgnoreCase: fold, Context: nonNeg(ctxLines) % 4}
		compareGrep(t, ws, opts, a)
		compareGrep(t, ws, uncapped, a)
	})
}

func nonNeg(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// FuzzLineDFA compares the DFA's verdict on one line with regexp's.
func FuzzLineDFA(f *testing.F) {
	for _, a := range oraclePatterns {
		f.Add(a.Pattern, a.IgnoreCase, "func main() { return ErrUnexpectedEOF }")
	}
	f.Add(`\bfoo\b`, false, "a foo_ foo")
	f.Add(`^$`, false, "")
	f.Add(`(?i)ſ`, false, "S")
	f.Add(`[^a]`, false, "\xff")
	f.Fuzz(func(t *testing.T, pattern string, fold bool, line string) {
		expr := "(?m)" + pattern
		if fold {
			expr = "(?i)" + expr
		}
		m, err := newLineMatcher(expr)
		if err != nil || m.prog == nil {
			return
		}
		line = strings.ReplaceAll(line, "\n", "")
		sc := m.scratch()
		want := m.re.MatchString(line)
		if got := sc.dfa.matchLine([]byte(line)); got != want {
			t.Fatalf("%q on %q: DFA %v, regexp %v", expr, line, got, want)
		}
		// The literal prefilter must not lose the line either.
		sc.start()
		_, _, got := sc.nextLine([]byte(line), 0)
		if got != want {
			t.Fatalf("%q on %q: nextLine %v, regexp %v (literals %+v)", expr, line, got, want, m.lits)
		}
	})
}

// TestIsBinaryAgrees checks grep's fast binary test against the
// workspace's, around the 8 KiB window and its cut runes.
func TestIsBinaryAgrees(t *testing.T) {
	var inputs [][]byte
	for _, n := range []int{0, 1, 8190, 8191, 8192, 8193, 9000} {
		for _, tail := range []string{"", "\x00", "\xff", "é", "日本", "\xe6\x97", "a\x00"} {
			inputs = append(inputs, []byte(strings.Repeat("a", n)+tail))
			inputs = append(inputs, []byte(strings.Repeat("a", max(0, n-1))+tail+"bbbb"))
		}
	}
	for _, b := range inputs {
		if got, want := isBinary(b), workspace.IsBinary(b); got != want {
			t.Errorf("isBinary(%d bytes ending %q) = %v, workspace.IsBinary %v", len(b), b[max(0, len(b)-6):], got, want)
		}
	}
}

func FuzzIsBinary(f *testing.F) {
	f.Add([]byte("text\n"), 0)
	f.Add([]byte("\xe6\x97\xa5"), 8190)
	f.Fuzz(func(t *testing.T, tail []byte, pad int) {
		b := append([]byte(strings.Repeat("x", nonNeg(pad)%9000)), tail...)
		if isBinary(b) != workspace.IsBinary(b) {
			t.Fatalf("disagree on %d bytes ending %q", len(b), tail)
		}
	})
}
