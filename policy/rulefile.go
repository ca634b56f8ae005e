package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/reinharness/rein/internal/statefile"
)

// ProjectConfigPath is where a workspace's configuration lives.
func ProjectConfigPath(workspace string) string {
	return filepath.Join(workspace, ".rein", "config.toml")
}

// AppendRules appends rules to the TOML configuration file at path,
// creating it if needed and leaving everything already in it as it was.
// The result is checked before it replaces the file: if the file is not
// valid TOML, or appending would not add the rules (a [policy] table that
// writes its rules inline), nothing is written and the error shows the
// rules to add by hand. It returns the text appended.
func AppendRules(path string, tools []ToolRule, commands []CommandRule, comment string) (string, error) {
	snippet, err := renderRules(tools, commands, comment)
	if err != nil {
		return "", err
	}
	old, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return snippet, fmt.Errorf("policy: cannot read %s: %v", path, err)
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	before, err := ParseConfig(old)
	if err != nil {
		return snippet, fmt.Errorf("policy: %s is not valid (%v); fix it, then add this by hand:\n%s", path, err, snippet)
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	text += snippet
	after, err := ParseConfig([]byte(text))
	if err != nil || len(after.Tools) != len(before.Tools)+len(tools) || len(after.Commands) != len(before.Commands)+len(commands) {
		return snippet, fmt.Errorf("policy: rein cannot append to %s without changing its meaning; add this by hand:\n%s", path, snippet)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return snippet, fmt.Errorf("policy: cannot create %s: %v", filepath.Dir(path), err)
	}
	if err := statefile.WriteAtomic(path, []byte(text), mode); err != nil {
		return snippet, fmt.Errorf("policy: cannot write %s: %v", path, err)
	}
	return snippet, nil
}

// renderRules writes rules as TOML array-of-tables entries.
func renderRules(tools []ToolRule, commands []CommandRule, comment string) (string, error) {
	var b strings.Builder
	if comment != "" {
		for _, line := range strings.Split(comment, "\n") {
			b.WriteString("# " + line + "\n")
		}
	}
	for _, r := range tools {
		name, err := tomlString(r.Name)
		if err != nil {
			return "", err
		}
		action, _ := tomlString(r.Action)
		fmt.Fprintf(&b, "[[policy.tools]]\nname = %s\naction = %s\n", name, action)
	}
	for _, r := range commands {
		prefix, err := tomlArray(r.Prefix)
		if err != nil {
			return "", err
		}
		action, _ := tomlString(r.Action)
		fmt.Fprintf(&b, "[[policy.commands]]\nprefix = %s\n", prefix)
		if r.Exact {
			b.WriteString("exact = true\n")
		}
		fmt.Fprintf(&b, "action = %s\n", action)
		if len(r.Match) > 0 {
			m, err := tomlArray(r.Match)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "match = %s\n", m)
		}
	}
	return b.String(), nil
}

func tomlArray(ss []string) (string, error) {
	parts := make([]string, len(ss))
	for i, s := range ss {
		q, err := tomlString(s)
		if err != nil {
			return "", err
		}
		parts[i] = q
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("policy: %q is not valid UTF-8 and cannot be written to a TOML file", s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}
