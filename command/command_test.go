package command

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseClaudeCodeCommand(t *testing.T) {
	doc := "---\nallowed-tools: Bash(git add:*), Bash(git status:*), Read\nargument-hint: [message] [scope]\ndescription: Create a git commit\nmodel: claude-3-5-haiku-20241022\ndisable-model-invocation: true\n---\n\n## Context\n\nCommit with message $1 in $2: $ARGUMENTS\n"
	c, err := Parse("commit", "/x/commit.md", LayerUser, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := &Command{Name: "commit", Path: "/x/commit.md", Layer: LayerUser, Description: "Create a git commit",
		ArgumentHint: "[message] [scope]", AllowedTools: []string{"Bash(git add:*)", "Bash(git status:*)", "Read"},
		Model: "claude-3-5-haiku-20241022", Body: "## Context\n\nCommit with message $1 in $2: $ARGUMENTS"}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseForms(t *testing.T) {
	tests := []struct {
		name, doc string
		hint      string
		tools     []string
	}{
		{"no front matter", "Just do $ARGUMENTS", "", nil},
		{"list of tools", "---\nallowed-tools:\n  - Read\n  - Bash(npm test)\n---\nbody", "", []string{"Read", "Bash(npm test)"}},
		{"empty tools list narrows to nothing", "---\nallowed-tools: []\n---\nbody", "", []string{}},
		{"hint as YAML flow list stays text", "---\nargument-hint: [a, b]\n---\nbody", "[a, b]", nil},
		{"hint as YAML block list", "---\nargument-hint:\n  - a\n  - b\n---\nbody", "[a] [b]", nil},
		{"hint quoted", "---\nargument-hint: \"<file> [n]\"\n---\nbody", "<file> [n]", nil},
		{"CRLF and bracket hint", "---\r\nargument-hint: [pr] [prio]\r\ndescription: d\r\n---\r\nbody\r\n", "[pr] [prio]", nil},
		{"empty front matter", "---\n---\nbody", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("n", "p", LayerProject, []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if c.ArgumentHint != tt.hint || !cmp.Equal(c.AllowedTools, tt.tools) || c.Body == "" {
				t.Errorf("hint %q tools %#v body %q", c.ArgumentHint, c.AllowedTools, c.Body)
			}
		})
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, doc, field, text string
	}{
		{"tools a mapping", "---\nallowed-tools:\n  a: b\n---\nbody", "allowed-tools", "expected a list"},
		{"unbalanced", "---\nallowed-tools: Bash(git status\n---\nbody", "allowed-tools", "unbalanced"},
		{"bad entry", "---\nallowed-tools: [\"(x)\"]\n---\nbody", "allowed-tools", "expected Name"},
		{"description a list", "---\ndescription: [a, b]\n---\nbody", "description", "cannot unmarshal"},
		{"control chars", "---\ndescription: \"a\\x1b[31mred\"\n---\nbody", "description", "control characters"},
		{"model with blanks", "---\nmodel: two words\n---\nbody", "model", "not a model name"},
		{"unclosed", "---\ndescription: x\nbody", "front matter", "never closed"},
		{"bad yaml without a line", "---\ndescription: : :\n  - x\n---\nbody", "front matter", "not valid YAML"},
		{"bad yaml on a line", "---\ndescription: ok\nmodel: [\n---\nbody", "model", "not valid YAML"},
		{"empty body", "---\ndescription: x\n---\n\n", "", "body is empty"},
		{"not utf-8", "---\ndescription: \xff\n---\nbody", "front matter", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("n", "/p/n.md", LayerProject, []byte(tt.doc))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FieldError", err)
			}
			if fe.Field != tt.field || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "/p/n.md: ") {
				t.Errorf("error %q (field %q), want field %q and %q", err, fe.Field, tt.field, tt.text)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	big := "---\ndescription: x\n---\n" + strings.Repeat("a", MaxBody+1)
	if _, err := Parse("n", "p", LayerUser, []byte(big)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversized body: %v", err)
	}
	many := "---\nallowed-tools: " + strings.Repeat("Read ", MaxAllowedTools+1) + "\n---\nbody"
	if _, err := Parse("n", "p", LayerUser, []byte(many)); err == nil || !strings.Contains(err.Error(), "allowed-tools") {
		t.Errorf("too many tools: %v", err)
	}
}

func TestSplitToolList(t *testing.T) {
	got, err := splitToolList("Bash(git add:*), Bash(git status:*),Read  Grep\tmcp__s__t")
	if err != nil {
		t.Fatal(err)
	}
	want := toolList{"Bash(git add:*)", "Bash(git status:*)", "Read", "Grep", "mcp__s__t"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}
