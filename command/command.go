// Package command loads custom slash commands written as markdown, in the
// format Claude Code users already have (.claude/commands/*.md): YAML front
// matter with description, argument-hint, allowed-tools and model, and a
// body that becomes the prompt, with $ARGUMENTS and $1…$9 filled in from
// the arguments the user typed.
//
// Commands come from users and from the repositories rein works in, so the
// package treats them as untrusted text: files are read through os.Root
// (a symlink cannot pull in a file outside the commands folder), sizes are
// bounded, a malformed file is skipped with one warning naming the file and
// the field, and allowed-tools can only narrow a run (see Restriction):
// nothing in a command file widens the tools or the policy. Shell commands
// a body asks for with !`cmd` are never run while expanding: see Expand.
package command

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reinharness/rein/internal/frontmatter"
)

// Command is one custom command.
type Command struct {
	// Name is what the user types after "/": the file's path below its
	// commands folder without ".md", folders joined with ":"
	// (frontend/test.md is "frontend:test").
	Name string
	// Path is the file the command was read from.
	Path string
	// Layer names where it came from: "user" or "project".
	Layer string
	// Description and ArgumentHint are shown in listings.
	Description  string
	ArgumentHint string
	// AllowedTools is the allowed-tools list as written, in Claude Code's
	// vocabulary (Read, Bash(git status:*)); nil when the front matter
	// has none, so the run is not narrowed. See NewRestriction.
	AllowedTools []string
	// Model is the model the command asks for, "" for the session's.
	Model string
	// Body is the prompt template.
	Body string
}

// frontMatter is the YAML the package reads; other keys are ignored
// (Claude Code's disable-model-invocation, for one).
type frontMatter struct {
	Description  string    `yaml:"description"`
	ArgumentHint hintValue `yaml:"argument-hint"`
	AllowedTools toolList  `yaml:"allowed-tools"`
	Model        string    `yaml:"model"`
}

// Limits on a command.
const (
	// MaxBody bounds the body of one command (the whole file is bounded
	// by frontmatter.MaxDocument).
	MaxBody = 256 << 10
	// MaxAllowedTools bounds the allowed-tools list.
	MaxAllowedTools = 64
	// maxField bounds description, argument-hint and model.
	maxField = 1024
)

// FieldError reports a problem with one front matter field of a file.
type FieldError struct {
	Path  string
	Field string // "" when the problem is the file as a whole
	Err   error
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s: field %s: %v", e.Path, e.Field, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// Parse reads one command file's content. name, path and layer are
// recorded as given. A file without front matter is a command whose whole
// content is the body, as in Claude Code. Errors are *FieldError.
func Parse(name, path, layer string, data []byte) (*Command, error) {
	var fm frontMatter
	body, err := frontmatter.Parse(quoteBracketHints(data), &fm)
	switch {
	case errors.Is(err, frontmatter.ErrNoFrontMatter):
		body, err = data, nil
	case err != nil:
		return nil, &FieldError{Path: path, Field: fieldOf(err, data), Err: err}
	}
	c := &Command{Name: name, Path: path, Layer: layer, Body: strings.TrimSpace(string(body)),
		Description: strings.TrimSpace(fm.Description), ArgumentHint: string(fm.ArgumentHint),
		Model: strings.TrimSpace(fm.Model)}
	if fm.AllowedTools != nil {
		c.AllowedTools = []string(fm.AllowedTools)
	}
	if err := c.check(); err != nil {
		err.Path = path
		return nil, err
	}
	return c, nil
}

// check enforces the limits and the characters a terminal may show.
func (c *Command) check() *FieldError {
	for _, f := range []struct{ name, v string }{
		{"description", c.Description}, {"argument-hint", c.ArgumentHint}, {"model", c.Model},
	} {
		if len(f.v) > maxField {
			return &FieldError{Field: f.name, Err: fmt.Errorf("is %d bytes; the limit is %d", len(f.v), maxField)}
		}
		if strings.ContainsFunc(f.v, isControl) {
			return &FieldError{Field: f.name, Err: errors.New("contains control characters")}
		}
	}
	if strings.ContainsAny(c.Model, " \t") {
		return &FieldError{Field: "model", Err: fmt.Errorf("%q is not a model name", c.Model)}
	}
	if len(c.AllowedTools) > MaxAllowedTools {
		return &FieldError{Field: "allowed-tools", Err: fmt.Errorf("names %d tools; the limit is %d", len(c.AllowedTools), MaxAllowedTools)}
	}
	for _, t := range c.AllowedTools {
		if _, _, err := splitEntry(t); err != nil {
			return &FieldError{Field: "allowed-tools", Err: err}
		}
	}
	if len(c.Body) > MaxBody {
		return &FieldError{Err: fmt.Errorf("the body is %d bytes; the limit is %d", len(c.Body), MaxBody)}
	}
	if c.Body == "" {
		return &FieldError{Err: errors.New("the body is empty: a command's text after the front matter is its prompt")}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// fieldOf names the field a front matter error is about: the top-level
// key at or above the line the error names, else one the message quotes,
// else "front matter".
func fieldOf(err error, doc []byte) string {
	msg := err.Error()
	if m := lineRef.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		lines := strings.Split(string(doc), "\n")
		for i := min(n, len(lines)) - 1; i >= 1; i-- {
			if k := topKey.FindStringSubmatch(lines[i]); k != nil {
				return k[1]
			}
		}
	}
	for _, f := range []string{"allowed-tools", "argument-hint", "description", "model"} {
		if strings.Contains(msg, f) {
			return f
		}
	}
	return "front matter"
}

var (
	lineRef = regexp.MustCompile(`line (\d{1,7})`)
	topKey  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]{0,63})[ \t]*:`)
)

// hintLine matches an argument-hint whose plain value starts with "[",
// which YAML would read as a list (or reject: "[pr] [priority]").
var hintLine = regexp.MustCompile(`(?m)^argument-hint:[ \t]*(\[[^\r\n]*?)[ \t]*(\r?)$`)

// quoteBracketHints quotes an argument-hint written as Claude Code's
// documentation writes it (argument-hint: [pr-number] [priority]), which
// is not valid YAML, so such files load as they do in Claude Code. Only
// that line of the front matter changes; line numbers stay.
func quoteBracketHints(data []byte) []byte {
	front, _, err := frontmatter.Split(data)
	if err != nil {
		return data
	}
	loc := hintLine.FindSubmatchIndex(front)
	if loc == nil {
		return data
	}
	// The front matter starts after the opening "---" line.
	off := strings.IndexByte(string(data), '\n') + 1
	val := string(front[loc[2]:loc[3]])
	quoted, _ := yaml.Marshal(val) // a YAML scalar, quoted as needed
	out := make([]byte, 0, len(data)+8)
	out = append(out, data[:off+loc[2]]...)
	out = append(out, strings.TrimSpace(string(quoted))...)
	out = append(out, data[off+loc[3]:]...)
	return out
}

// hintValue is argument-hint: a string, or a list of strings shown in
// brackets ([a, b] gives "[a] [b]").
type hintValue string

func (h *hintValue) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*h = hintValue(strings.TrimSpace(n.Value))
		return nil
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: argument-hint: expected text", c.Line)
			}
			parts = append(parts, "["+strings.TrimSpace(c.Value)+"]")
		}
		*h = hintValue(strings.Join(parts, " "))
		return nil
	}
	return fmt.Errorf("line %d: argument-hint: expected text", n.Line)
}

// toolList is allowed-tools: a list, or one string of entries separated
// by commas or spaces outside parentheses ("Bash(git add:*), Read").
type toolList []string

func (l *toolList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		entries, err := splitToolList(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: allowed-tools: %v", n.Line, err)
		}
		*l = entries
		return nil
	case yaml.SequenceNode:
		out := toolList{}
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: allowed-tools: expected a tool name", c.Line)
			}
			if s := strings.TrimSpace(c.Value); s != "" {
				out = append(out, s)
			}
		}
		*l = out
		return nil
	}
	return fmt.Errorf("line %d: allowed-tools: expected a list of tools or a comma-separated string", n.Line)
}

// splitToolList splits "Bash(git add:*), Read Grep" into its entries.
func splitToolList(s string) (toolList, error) {
	out := toolList{}
	depth, start := 0, -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, s[start:end])
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			if depth == 0 {
				return nil, fmt.Errorf("unbalanced ')' in %q", s)
			}
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced '(' in %q", s)
	}
	flush(len(s))
	return out, nil
}
