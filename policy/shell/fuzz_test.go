package shell

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/internal/adversarial"
)

var fuzzSeeds = []string{
	"", "ls", "go test ./...", "a | b && c || d; e &", "$(", "`", "'", "\"$(\"", "<<EOF", "bash -c",
	"f() { f | f & }; f", "x=$'\\x73udo'; $x", "{a,b}{c,d}{e,f}", "echo {1..999999999}",
	"cat <<'A' <<B\nx\nA\ny\nB", "case x in (a|b) c;; esac", "[[ -f x && $(y) ]]", "((i++))",
	"declare -A m=([k]=$(sudo v))", "coproc sudo ls", "select x in a; do b; done", "let x=$(y)",
	"env -S", "xargs -I", "find -exec", "timeout", "git -c", "git -c alias.x= x", "eval", "watch -x",
}

// FuzzAnalyze checks that Analyze never panics, stays within its time
// bound, and reports well-formed results for any input.
func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range attackSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// A panic from the timer goroutine crashes the worker, which
		// records src as a failing input: Analyze must be bounded.
		watchdog := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("Analyze runs over 5s on %q", src)) })
		defer watchdog.Stop()
		an := Analyze(src, Options{Workspace: testWorkspace, Home: testHome})
		for _, f := range an.Findings {
			if f.ID == "" || f.Reason == "" {
				t.Fatalf("finding without ID or reason: %+v", f)
			}
		}
		for _, c := range an.Commands {
			if len(c.Args) == 0 || len(c.Norm) == 0 {
				t.Fatalf("empty command: %+v", c)
			}
		}
		if len(an.Commands) > 10*maxBudget {
			t.Fatalf("%d commands: the budget does not hold", len(an.Commands))
		}
	})
}

// FuzzSedScript checks the sed script scanner on any input: bounded, no
// panic, and a script with an e or w command is never reported clean.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1e id", "s/x/y/e", "w out", "/a/,/b/d", "$!N;P;D", "y/abc/xyz/", "a\\ text", "s|a|b|w f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		_, risky := sedRunsOrWrites(script)
		if !risky && (script == "e" || strings.HasPrefix(script, "w ")) {
			t.Fatalf("%q reported clean", script)
		}
	})
}

// attackSeeds are the shared attack corpus (internal/adversarial) and the
// policy package's hard denials and path attacks, kept in
// testdata/analyze_seeds.txt (policy's TestAnalyzerSeedsHoldTheAttacks
// keeps that file in step with its tables).
func attackSeeds(t testing.TB) []string {
	var out []string
	for _, tpl := range adversarial.Dynamic() {
		for _, p := range adversarial.Payloads() {
			out = append(out, fmt.Sprintf(tpl, p))
		}
	}
	for _, m := range adversarial.Meanings(path.Base(testWorkspace), path.Dir(testWorkspace)) {
		out = append(out, m.Cmd)
	}
	return append(out, readSeeds(t, "testdata/analyze_seeds.txt")...)
}

// readSeeds reads a seed file: one Go-quoted string a line, # comments.
func readSeeds(t testing.TB, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("%s: %q: %v", file, line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzGitConfig checks the repository configuration parser on any input:
// bounded, no panic, and a remote's mirror = true is always found.
func FuzzGitConfig(f *testing.F) {
	for _, s := range []string{"[remote \"o\"]\n\tmirror = true\n", "[alias]\np = push -f ; c\n", "[a.b]\nk\n", "[x \"q\\\"r\"]\nv = \"a#b\" # c\n", "k = \"x\\\ny\"", "[unterminated\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries, _ := parseGitConfig(text)
		if len(entries) > 4097 {
			t.Fatalf("%d entries", len(entries))
		}
		e, ok := parseGitConfig(text + "\n[remote \"z\"]\n\tmirror = true\n")
		if !ok {
			return // text rein cannot follow is refused for pushes
		}
		found := false
		for _, x := range e {
			found = found || x.key == "remote.z.mirror" && x.value == "true"
		}
		if !found && len(e) <= 4096 && !strings.Contains(text, "\\") {
			t.Fatalf("mirror = true after %q not found: %v", text, e)
		}
	})
}
