// Package frontmatter splits a markdown document into its YAML front
// matter and body, the format Agent Skills (SKILL.md), Claude Code's
// custom agents and commands share:
//
//	---
//	name: reviewer
//	description: Reviews a change
//	---
//	Body text…
//
// The documents come from users and repositories, so everything is
// bounded and every failure is an error that names the line, never a panic.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Limits on what Split accepts.
const (
	// MaxDocument bounds a whole document.
	MaxDocument = 1 << 20
	// MaxFrontMatter bounds the YAML block.
	MaxFrontMatter = 64 << 10
)

// ErrNoFrontMatter reports a document that does not start with "---".
var ErrNoFrontMatter = errors.New("no front matter (the file must start with a line \"---\")")

// Split returns the YAML between the opening "---" line and the closing
// one, and the body after it. A document without front matter returns
// ErrNoFrontMatter and the whole document as body. A leading UTF-8 byte
// order mark and CRLF line ends are accepted.
func Split(doc []byte) (front, body []byte, err error) {
	if len(doc) > MaxDocument {
		return nil, nil, fmt.Errorf("the document is %d bytes; the limit is %d", len(doc), MaxDocument)
	}
	if !utf8.Valid(doc) {
		return nil, nil, errors.New("the document is not valid UTF-8")
	}
	doc = bytes.TrimPrefix(doc, []byte("\ufeff"))
	first, rest, ok := cutLine(doc)
	if !ok && len(first) == 0 || strings.TrimRight(string(first), " \t") != "---" {
		return nil, doc, ErrNoFrontMatter
	}
	off := 0
	for line := 2; ; line++ {
		l, next, more := cutLine(rest[off:])
		if strings.TrimRight(string(l), " \t") == "---" {
			front = rest[:off]
			body = next
			break
		}
		if !more {
			return nil, nil, fmt.Errorf("the front matter opened on line 1 is never closed with a line \"---\"")
		}
		off = len(rest) - len(next)
		if off > MaxFrontMatter {
			return nil, nil, fmt.Errorf("the front matter is longer than %d bytes", MaxFrontMatter)
		}
	}
	if len(front) > MaxFrontMatter {
		return nil, nil, fmt.Errorf("the front matter is longer than %d bytes", MaxFrontMatter)
	}
	return front, body, nil
}

// cutLine returns the first line of b without its line end, the rest, and
// whether a line end was found.
func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return bytes.TrimSuffix(b[:i], []byte("\r")), b[i+1:], true
}

// Parse splits doc and decodes its front matter into v (a pointer to a
// struct with yaml tags). Unknown keys are allowed (the formats grow); a
// YAML error names its line within the document. A document without front
// matter returns ErrNoFrontMatter.
func Parse(doc []byte, v any) (body []byte, err error) {
	front, body, err := Split(doc)
	if err != nil {
		return body, err
	}
	if len(bytes.TrimSpace(front)) == 0 {
		return body, nil
	}
	if err := decode(front, v); err != nil {
		return nil, err
	}
	return body, nil
}

// decode unmarshals YAML, turning a panic of the decoder (hostile input)
// into an error and shifting line numbers past the opening "---".
func decode(front []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the front matter is not valid YAML (%v)", r)
		}
	}()
	if err := yaml.Unmarshal(front, v); err != nil {
		return fmt.Errorf("the front matter is not valid YAML: %s", shiftLines(err.Error()))
	}
	return nil
}

// shiftLines rewrites yaml.v3's "line N" to count from the top of the
// document, which has the "---" line before the YAML.
func shiftLines(msg string) string {
	var out strings.Builder
	for {
		i := strings.Index(msg, "line ")
		if i < 0 {
			out.WriteString(msg)
			return out.String()
		}
		out.WriteString(msg[:i+5])
		msg = msg[i+5:]
		j := 0
		n := 0
		for j < len(msg) && j < 9 && msg[j] >= '0' && msg[j] <= '9' {
			n = n*10 + int(msg[j]-'0')
			j++
		}
		if j == 0 {
			continue
		}
		fmt.Fprintf(&out, "%d", n+1)
		msg = msg[j:]
	}
}

// StringList decodes a YAML value that is either a list of strings or one
// string of comma- or space-separated names ("Read, Grep, Glob"), the two
// forms Claude Code accepts for tools lists.
type StringList []string

// UnmarshalYAML implements yaml.Unmarshaler.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = splitNames(n.Value)
		return nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: expected a name, got a %s", c.Line, kindName(c.Kind))
			}
			if s := strings.TrimSpace(c.Value); s != "" {
				out = append(out, s)
			}
		}
		*l = out
		return nil
	}
	return fmt.Errorf("line %d: expected a list of names or a comma-separated string, got a %s", n.Line, kindName(n.Kind))
}

func splitNames(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(f) == 0 {
		return nil
	}
	return f
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "scalar"
}
