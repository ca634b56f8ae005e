package command

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// FuzzParseExpand feeds hostile command files and arguments: Parse and
// Expand never panic, a parsed command respects the limits, and the
// expansion keeps the arguments' text.
func FuzzParseExpand(f *testing.F) {
	f.Add("---\nallowed-tools: Bash(git add:*), Read\nargument-hint: [a] [b]\n---\n$1 $ARGUMENTS !`ls` @f", `x "y z"`)
	f.Add("---\r\nargument-hint: [\r\n---\r\n$9", "'")
	f.Add("no front matter $2", "a b")
	f.Add("---\nallowed-tools: ((\n---\nb", "")
	f.Fuzz(func(t *testing.T, doc, args string) {
		c, err := Parse("n", "p", LayerProject, []byte(doc))
		if err != nil {
			return
		}
		if c.Body == "" || len(c.Body) > MaxBody || len(c.AllowedTools) > MaxAllowedTools {
			t.Fatalf("limits not enforced: %+v", c)
		}
		e, err := c.Expand(args)
		if err != nil {
			return
		}
		if strings.Contains(c.Body, "$ARGUMENTS") && !strings.Contains(e.Prompt, strings.TrimSpace(args)) {
			t.Fatalf("$ARGUMENTS lost the arguments: %q", e.Prompt)
		}
		r, _ := NewRestriction(c.AllowedTools, reinTools, "x")
		cmd, _ := json.Marshal(map[string]string{"command": args})
		r.Decide(context.Background(), policy.Call{Spec: tool.Spec{Name: "run_command"}, Args: cmd})
	})
}

// FuzzSplitArgs checks that JoinArgs and SplitArgs are inverses.
func FuzzSplitArgs(f *testing.F) {
	f.Add(`a "b c" 'd' e\ f`)
	f.Add(`"\\\"" ''`)
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitArgs(s)
		if err != nil {
			return
		}
		if !utf8.ValidString(s) {
			return
		}
		again, err := SplitArgs(JoinArgs(words))
		if err != nil || len(again) != len(words) {
			t.Fatalf("%q: split %q, rejoined %q split %q (%v)", s, words, JoinArgs(words), again, err)
		}
		for i := range words {
			if again[i] != words[i] {
				t.Fatalf("%q: word %d %q became %q", s, i, words[i], again[i])
			}
		}
	})
}
