package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Value is one setting in force, rendered for people, and where it came
// from.
type Value struct {
	// Key is the setting's full name: "model.endpoint",
	// "policy.preset", "mcp_servers.gh.headers.Authorization".
	Key string
	// Value is the value in TOML-like form ("\"openai\"", "50", "2m0s");
	// a secret is a placeholder.
	Value string
	// Secret says Value is a placeholder for a credential.
	Secret bool
	Source Source
}

// Values returns every [model] and [agent] setting in force, in the
// order of the documentation, with its source; unset settings show their
// default. The API key is a placeholder.
func (c *Config) Values() []Value {
	d := defaultSettings()
	provider := c.Model.Provider
	var out []Value
	for i := range specs {
		spec := &specs[i]
		v, ok := spec.getValue(&c.merged)
		if !ok {
			v, ok = spec.getValue(&d)
		}
		val := "(unset)"
		switch {
		case spec.key == "model.api_key":
			if c.Model.APIKey != "" {
				val = redacted
			}
			out = append(out, Value{Key: spec.key, Value: val, Secret: c.Model.APIKey != "", Source: c.Source(spec.key)})
			continue
		case spec.key == "model.provider" && !ok:
			val = fmt.Sprintf("%q", provider)
		case spec.key == "model.endpoint" && !ok:
			val = fmt.Sprintf("%q", c.Model.Endpoint)
		case ok:
			val = formatValue(v)
		}
		out = append(out, Value{Key: spec.key, Value: val, Source: c.Source(spec.key)})
	}
	if text, src := c.ProjectInstructions(); text != "" {
		out = append(out, Value{Key: "agent.system_prompt (project instructions)", Value: formatValue(text), Source: src})
	}
	return out
}

// Leaf is one value of a RawSection, at its path below the file's top
// table (Path[0] is the section's name; a profile's prefix is left out).
type Leaf struct {
	Path  []string
	Value any // string, int64, float64, bool, a datetime, or []any of those
}

// Leaves decodes the table loosely (its owner checks it strictly) and
// returns its values in key order, tables flattened: for display.
func (s RawSection) Leaves() ([]Leaf, error) {
	md, prim, err := s.parse()
	if err != nil {
		return nil, err
	}
	var v any
	if err := md.PrimitiveDecode(prim, &v); err != nil {
		return nil, s.decodeError(err)
	}
	var out []Leaf
	flatten([]string{s.Name}, v, &out)
	return out, nil
}

func flatten(path []string, v any, out *[]Leaf) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(append(path[:len(path):len(path)], k), v[k], out)
		}
	case []map[string]any:
		for i, t := range v {
			flatten(append(path[:len(path):len(path)], fmt.Sprintf("[%d]", i)), t, out)
		}
	case []any:
		if hasTable(v) {
			for i, e := range v {
				flatten(append(path[:len(path):len(path)], fmt.Sprintf("[%d]", i)), e, out)
			}
			return
		}
		*out = append(*out, Leaf{Path: path, Value: v})
	default:
		*out = append(*out, Leaf{Path: path, Value: v})
	}
}

func hasTable(v []any) bool {
	for _, e := range v {
		switch e.(type) {
		case map[string]any, []any:
			return true
		}
	}
	return false
}

// JoinPath renders a Leaf's path as a key: "mcp_servers.gh.args",
// "verify.commands[0]"; a part that is not a bare key is quoted.
func JoinPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case strings.HasPrefix(p, "["):
			b.WriteString(p)
			continue
		case i > 0:
			b.WriteByte('.')
		}
		if bareKey(p) {
			b.WriteString(p)
		} else {
			fmt.Fprintf(&b, "%q", p)
		}
	}
	return b.String()
}

func bareKey(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// FormatTOML renders a decoded TOML value for display.
func FormatTOML(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = FormatTOML(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": v}); err == nil {
		return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
	}
	return fmt.Sprint(v)
}

// SectionNames lists the tables other packages own that some layer sets,
// in the package's order.
func (c *Config) SectionNames() []string {
	var out []string
	for _, n := range deferredSections {
		if len(c.sections[n]) > 0 {
			out = append(out, n)
		}
	}
	return out
}
