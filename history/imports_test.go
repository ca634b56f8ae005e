package history

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScanImports(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"plain", "See @README.md for an overview and @docs/git.md.", []string{"README.md", "docs/git.md"}},
		{"line start and home", "@~/.claude/mine.md\n- @./rel.md, @/abs/x.md;", []string{"~/.claude/mine.md", "./rel.md", "/abs/x.md"}},
		{"escaped space", `read @my\ notes.md now`, []string{"my notes.md"}},
		{"emails and glued are not imports", "mail a@b.com or x@y, (@paren.md)", nil},
		{"code span", "run `cat @secret.md` but read @ok.md", []string{"ok.md"}},
		{"double backtick span", "``a ` @no.md`` @yes.md", []string{"yes.md"}},
		{"span over lines of a paragraph", "`start\n@no.md end` @yes.md", []string{"yes.md"}},
		{"unclosed backtick is text", "a ` b @yes.md", []string{"yes.md"}},
		{"span does not pass a blank line", "`a\n\n@yes.md `", []string{"yes.md"}},
		{"fenced block", "```sh\n@no.md\n```\n@yes.md", []string{"yes.md"}},
		{"tilde fence with backticks inside", "~~~\n```\n@no.md\n```\n~~~\n@yes.md", []string{"yes.md"}},
		{"longer fence needs a longer close", "````\n```\n@no.md\n````\n@yes.md", []string{"yes.md"}},
		{"unclosed fence runs to the end", "```\n@no.md\n", nil},
		{"indented code", "text\n\n    @no.md\n\n    @no2.md\nprose @yes.md", []string{"yes.md"}},
		{"indented continuation of a paragraph", "text\n    @yes.md", []string{"yes.md"}},
		{"not path-like", "@{x} @\"q\" @ @~user/x @~ @@double", nil},
		{"trailing punctuation", "(see @a.md) and @b.md!", []string{"a.md", "b.md"}},
		{"crlf", "@a.md\r\n@b.md\r\n", []string{"a.md", "b.md"}},
		{"control characters", "@a\x01b.md @ok.md", []string{"ok.md"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, scanImports(tt.text)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.name, diff)
		}
	}
	long := "@" + strings.Repeat("a", maxImportPath+1)
	if got := scanImports(long); got != nil {
		t.Errorf("an over-long token was taken for a path: %d bytes", len(got[0]))
	}
}

// FuzzScanImports: the scanner never panics, returns only valid paths
// that the text spells after an @, and finds nothing inside a fenced
// block no line of the text can close.
func FuzzScanImports(f *testing.F) {
	for _, s := range []string{
		"See @README.md", "`@x` @y", "```\n@x\n```\n@y", "    @code\n", `@a\ b`, "@~/.claude/x.md",
		"``` @x", "~~~~\n~~~\n@x", "@\xff.md", "\t@x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range scanImports(s) {
			if !validImportPath(p) {
				t.Fatalf("invalid path %q from %q", p, s)
			}
			if !strings.Contains(s, "@"+strings.ReplaceAll(p, " ", `\ `)) {
				t.Fatalf("path %q not spelled after an @ in %q", p, s)
			}
		}
		fence := strings.Repeat("`", longestRun(s, '`')+3)
		if got := scanImports(fence + "\n" + s + "\n"); got != nil {
			t.Fatalf("imports %q inside a fenced block:\n%s", got, s)
		}
	})
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
