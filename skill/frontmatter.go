package skill

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// ErrNoFrontMatter reports a SKILL.md that does not open with a "---" line.
var ErrNoFrontMatter = errors.New("no YAML front matter")

// SplitFrontMatter splits a Markdown file that opens with YAML front matter
// ("---" on the first line, a closing "---" line) into the YAML and the
// body after the closing line. A UTF-8 byte-order mark and CRLF line ends
// are accepted. It fails with ErrNoFrontMatter when the file does not open
// with "---", and when the front matter is unclosed or longer than
// MaxFrontMatterBytes.
func SplitFrontMatter(data []byte) (front, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, _ := cutLine(data)
	if !isFence(first) {
		return nil, nil, fmt.Errorf("%w: the file must start with a line \"---\", then the YAML, then a line \"---\"", ErrNoFrontMatter)
	}
	for off := 0; ; {
		if off > MaxFrontMatterBytes {
			return nil, nil, fmt.Errorf("the front matter is longer than %d KiB or never closed; keep it to the metadata and end it with a line \"---\"", MaxFrontMatterBytes>>10)
		}
		line, after, more := cutLine(rest[off:])
		if isFence(line) {
			return rest[:off], after, nil
		}
		if !more {
			return nil, nil, errors.New("the front matter is never closed; end it with a line \"---\"")
		}
		off = len(rest) - len(after)
	}
}

// isFence reports whether line is a front-matter delimiter.
func isFence(line []byte) bool { return strings.TrimRight(string(line), " \t") == "---" }

// cutLine returns data's first line without its line end, the rest after
// it, and whether a line end was found.
func cutLine(data []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return bytes.TrimSuffix(data, []byte("\r")), nil, false
	}
	return bytes.TrimSuffix(data[:i], []byte("\r")), data[i+1:], true
}

// frontMatter is SKILL.md's metadata, as the Agent Skills specification
// defines it. Keys it does not define (Claude Code's argument-hint,
// disable-model-invocation, model, …) are accepted and ignored, so one
// folder can serve several harnesses.
type frontMatter struct {
	Name, Description, License, Compatibility string
	AllowedTools                              []string
	HasAllowedTools                           bool
	Metadata                                  map[string]string
}

// fieldProblem is a problem with one key of the front matter or manifest.
type fieldProblem struct {
	field, msg string
}

func (p *fieldProblem) Error() string {
	if p.field == "" {
		return p.msg
	}
	return p.field + ": " + p.msg
}

// parseFrontMatter decodes and checks the YAML between the "---" lines.
// Warnings are flaws that do not stop the skill from loading.
func parseFrontMatter(src []byte) (fm frontMatter, warnings []fieldProblem, err *fieldProblem) {
	if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
		return fm, nil, &fieldProblem{"", "the front matter is not UTF-8 text"}
	}
	var doc yaml.Node
	if e := yaml.Unmarshal(src, &doc); e != nil {
		return fm, nil, &fieldProblem{"", "the front matter is not valid YAML: " + clipLine(fileLines(e.Error()), 200)}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return fm, nil, &fieldProblem{"", "the front matter must be a YAML mapping of keys such as name: and description:"}
	}
	m := doc.Content[0]
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], deref(m.Content[i+1])
		key := k.Value
		if seen[key] {
			return fm, nil, &fieldProblem{clipLine(key, 64), "is given twice"}
		}
		seen[key] = true
		var p *fieldProblem
		switch key {
		case "name":
			fm.Name, p = scalar(key, v)
		case "description":
			fm.Description, p = scalar(key, v)
		case "license":
			fm.License, p = scalar(key, v)
		case "compatibility":
			fm.Compatibility, p = scalar(key, v)
		case "allowed-tools":
			fm.AllowedTools, p = toolList(key, v)
			fm.HasAllowedTools = p == nil && fm.AllowedTools != nil
		case "metadata":
			var w []fieldProblem
			fm.Metadata, w, p = metadata(v)
			warnings = append(warnings, w...)
		}
		if p != nil {
			return fm, nil, p
		}
	}
	if p := checkCommon(fm.Name, fm.Description); p != nil {
		return fm, nil, p
	}
	if n := utf8.RuneCountInString(fm.Compatibility); n > MaxCompatibilityLen {
		return fm, nil, &fieldProblem{"compatibility", fmt.Sprintf("is %d characters long; the limit is %d", n, MaxCompatibilityLen)}
	}
	return fm, warnings, nil
}

// checkCommon checks the two fields every skill needs.
func checkCommon(name, description string) *fieldProblem {
	if msg := nameProblem(name); msg != "" {
		if name == "" {
			msg = "is missing; add name: with the skill folder's name"
		}
		return &fieldProblem{"name", msg}
	}
	if msg := descriptionProblem(description); msg != "" {
		if description == "" {
			msg = "is missing; add description: saying what the skill does and when to use it"
		}
		return &fieldProblem{"description", msg}
	}
	return nil
}

// yamlLine matches the line numbers in yaml.v3's messages.
var yamlLine = regexp.MustCompile(`\bline (\d+)`)

// fileLines renumbers the lines a YAML error names from the front
// matter's first line to the file's (one more, for the opening "---").
func fileLines(msg string) string {
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+1)
	})
}

// deref follows a YAML alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// scalar returns a string-valued key's value; null is "".
func scalar(key string, v *yaml.Node) (string, *fieldProblem) {
	if v == nil || v.Kind != yaml.ScalarNode {
		return "", &fieldProblem{key, "must be a single text value"}
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

// toolList accepts allowed-tools as the specification spells it (one
// space-separated string) and as Claude Code also does (a list). Commas
// are accepted as separators too. Spaces inside parentheses do not split
// ("Bash(git log:*)" stays one entry).
func toolList(key string, v *yaml.Node) ([]string, *fieldProblem) {
	switch {
	case v == nil:
		return nil, nil
	case v.Kind == yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		return splitTools(v.Value), nil
	case v.Kind == yaml.SequenceNode:
		out := []string{}
		for _, e := range v.Content {
			e = deref(e)
			if e == nil || e.Kind != yaml.ScalarNode {
				return nil, &fieldProblem{key, "must be a list of tool names"}
			}
			out = append(out, splitTools(e.Value)...)
		}
		return out, nil
	}
	return nil, &fieldProblem{key, "must be a space-separated string or a list of tool names"}
}

// splitTools splits an allowed-tools string at spaces and commas outside
// parentheses.
func splitTools(s string) []string {
	out := []string{}
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ' ' || c == ',' || c == '\t' || c == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

// metadata reads the string-to-string map. A value that is not a single
// text value (a list, a nested map) is dropped with a warning rather than
// failing the skill: many published skills put tags lists there.
func metadata(v *yaml.Node) (map[string]string, []fieldProblem, *fieldProblem) {
	if v == nil || v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, nil, &fieldProblem{"metadata", "must be a mapping of keys to text values"}
	}
	out := make(map[string]string, len(v.Content)/2)
	var warnings []fieldProblem
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i].Value, deref(v.Content[i+1])
		if val == nil || val.Kind != yaml.ScalarNode {
			warnings = append(warnings, fieldProblem{"metadata." + clipLine(k, 64), "is not a text value; it is ignored"})
			continue
		}
		out[k] = val.Value
	}
	return out, warnings, nil
}
