package fs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitignoreTree is a tree with root and nested .gitignore files covering
// negation, directory-only, anchored, ** and character-class patterns.
var gitignoreTree = map[string]string{
	".gitignore": `# comment
*.log
!important.log
/build/
docs/*.tmp
**/cache
node_modules
tmp/**
a/**/z
[Dd]ebug?
\#hash
trailing\ 
!/keep/
`,
	"sub/.gitignore":          "*.txt\n!keep.txt\n/local\n",
	"sub/deeper/.gitignore":   "!*.txt\n",
	"x.log":                   "",
	"important.log":           "",
	"sub/important.log":       "",
	"build/out":               "",
	"src/build/kept":          "",
	"docs/a.tmp":              "",
	"docs/deep/b.tmp":         "",
	"cache/c":                 "",
	"lib/deep/cache/c":        "",
	"node_modules/m/index.js": "",
	"pkg/node_modules":        "",
	"tmp/t":                   "",
	"tmp/deep/t":              "",
	"a/z":                     "",
	"a/b/c/z":                 "",
	"a/b/c/y":                 "",
	"Debug1":                  "",
	"debug12":                 "",
	"#hash":                   "",
	"trailing ":               "",
	"sub/a.txt":               "",
	"sub/keep.txt":            "",
	"sub/local/f":             "",
	"sub/other/local/f":       "",
	"sub/deeper/b.txt":        "",
	"keep/k":                  "",
	"plain.go":                "",
}

func TestGitignoreMatchesGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed: cannot compare with git check-ignore")
	}
	ws, dir := newWS(t, gitignoreTree)
	cmd := exec.Command(git, "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	var paths []string
	for p := range gitignoreTree {
		if filepath.Base(p) != ".gitignore" {
			paths = append(paths, p)
		}
	}
	// Directories too: they are what a walk prunes.
	paths = append(paths, "build", "cache", "node_modules", "tmp", "sub/local", "src/build", "docs", "a/b")
	check := exec.Command(git, "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--stdin", "-z")
	check.Dir = dir
	check.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	check.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	out, err := check.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git check-ignore: %v", err)
		}
	}
	gitSays := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			gitSays[p] = true
		}
	}
	if len(gitSays) < 10 || len(gitSays) >= len(paths) {
		t.Fatalf("git ignores %d of %d paths; the fixture should mix both", len(gitSays), len(paths))
	}
	ig := newWalker(ws, 1000).ig
	for _, p := range paths {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if got := ig.Ignored(p, fi.IsDir()); got != gitSays[p] {
			t.Errorf("Ignored(%q) = %v, git check-ignore says %v", p, got, gitSays[p])
		}
	}
}

func TestGlobToRegexp(t *testing.T) {
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "dir/a.go", false},
		{"a?c", "abc", true},
		{"a?c", "a/c", false},
		{"[!a]x", "bx", true},
		{"[!a]x", "ax", false},
		{"[]]", "]", true},
		{"[a-c]", "b", true},
		{"[", "[", true},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{"**/x", "x", true},
		{"**/x", "a/b/x", true},
		{"a/**", "a/b/c", true},
		{"a/**", "a", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a.(b)+", "a.(b)+", true},
	}
	for _, tt := range tests {
		f := parseGitignore("", tt.glob+"\n")
		if len(f.rules) != 1 {
			t.Fatalf("%q parsed into %d rules", tt.glob, len(f.rules))
		}
		if got := f.rules[0].re.MatchString(tt.name); got != tt.want {
			t.Errorf("glob %q vs %q = %v, want %v (re %s)", tt.glob, tt.name, got, tt.want, f.rules[0].re)
		}
	}
}

// FuzzGitignore checks the .gitignore parser never panics and always
// produces compilable rules, whatever the file holds.
func FuzzGitignore(f *testing.F) {
	f.Add(gitignoreTree[".gitignore"])
	f.Add("[\n\\\n!\n/\n**\n***/x\n[!]\n")
	f.Fuzz(func(t *testing.T, content string) {
		g := parseGitignore("base", content)
		for _, r := range g.rules {
			if r.re == nil {
				t.Fatal("rule without a regexp")
			}
		}
		g.match("base/x/y", false)
		g.match("base/x", true)
	})
}
