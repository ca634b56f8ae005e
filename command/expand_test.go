package command

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"  a  b ", []string{"a", "b"}, false},
		{`a "b c" 'd e'`, []string{"a", "b c", "d e"}, false},
		{`"say \"hi\"" 'it''s' a\ b`, []string{`say "hi"`, "its", "a b"}, false},
		{`"" x`, []string{"", "x"}, false},
		{`pre"mid"post`, []string{"premidpost"}, false},
		{`"$HOME" '$(rm -rf /)'`, []string{"$HOME", "$(rm -rf /)"}, false},
		{`"open`, nil, true},
		{`'open`, nil, true},
		{`trailing\`, []string{`trailing\`}, false},
	}
	for _, tt := range tests {
		got, err := SplitArgs(tt.in)
		if (err != nil) != tt.err || !cmp.Equal(got, tt.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestJoinArgsRoundTrip(t *testing.T) {
	words := []string{"plain", "two words", "it's", `"q"`, "", "$x", "a\\b"}
	got, err := SplitArgs(JoinArgs(words))
	if err != nil || !cmp.Equal(got, words) {
		t.Errorf("round trip of %q gave %q (%v) via %s", words, got, err, JoinArgs(words))
	}
}

func TestExpand(t *testing.T) {
	c := &Command{Body: "Fix issue #$1 with priority $2 (missing: [$3]). All: $ARGUMENTS; cost $10"}
	e, err := c.Expand(`  123 "high prio" `)
	if err != nil {
		t.Fatal(err)
	}
	want := `Fix issue #123 with priority high prio (missing: []). All: 123 "high prio"; cost 1230`
	if e.Prompt != want || len(e.Notes) != 0 {
		t.Errorf("prompt %q notes %q\nwant  %q", e.Prompt, e.Notes, want)
	}
	// A body without placeholders gets the arguments appended.
	e, _ = (&Command{Body: "Review the code."}).Expand("src/a.go")
	if e.Prompt != "Review the code.\n\nARGUMENTS: src/a.go" {
		t.Errorf("appended: %q", e.Prompt)
	}
	e, _ = (&Command{Body: "Review the code."}).Expand("")
	if e.Prompt != "Review the code." {
		t.Errorf("no args: %q", e.Prompt)
	}
	// Arguments are inserted once, never expanded again.
	e, _ = (&Command{Body: "$1 / $ARGUMENTS"}).Expand("$ARGUMENTS $2")
	if e.Prompt != "$ARGUMENTS / $ARGUMENTS $2" {
		t.Errorf("re-expanded: %q", e.Prompt)
	}
	if _, err := (&Command{Body: "$1"}).Expand(`"open`); err != ErrUnterminatedQuote {
		t.Errorf("unterminated: %v", err)
	}
}

// !`cmd` is never run and @file never inlined: both stay as text, and
// the model and the user are told.
func TestExpandLeavesShellAndFileReferences(t *testing.T) {
	c := &Command{Body: "Status: !`git status`\nLook at @src/main.go and mail a@b.c"}
	e, err := c.Expand("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.Prompt, c.Body) || !strings.Contains(e.Prompt, "[Note from rein: Lines written as !`command` were not run") ||
		!strings.Contains(e.Prompt, "read those files with read_file") {
		t.Errorf("prompt %q", e.Prompt)
	}
	if len(e.Notes) != 2 {
		t.Errorf("notes %q", e.Notes)
	}
	e, _ = (&Command{Body: "mail a@b.c, pay $ 5"}).Expand("")
	if len(e.Notes) != 0 {
		t.Errorf("an e-mail address is not a file reference: %q", e.Notes)
	}
}
