package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// maxFileSize bounds a config file: anything larger is not a hand-written
// configuration and is refused before parsing.
const maxFileSize = 1 << 20

// fileLayer is one parsed configuration file.
type fileLayer struct {
	kind     LayerKind
	path     string
	set      Settings
	lines    map[string]int // "model.endpoint" → line
	sections []RawSection
}

// parseFile parses and validates one file's [model] and [agent] tables and
// keeps the tables other packages own as RawSections.
func parseFile(kind LayerKind, path string, data []byte) (*fileLayer, error) {
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("config: %s: file is larger than %d bytes; is this really a rein config file?", path, maxFileSize)
	}
	if err := checkNesting(path, data); err != nil {
		return nil, err
	}
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil, syntaxError(path, err)
	}
	f := &fileLayer{kind: kind, path: path, lines: map[string]int{}}
	for _, name := range topLevelOrder(&md) {
		prim := top[name]
		switch {
		case slices.Contains(typedSections, name):
			if err := f.parseSection(&md, name, prim); err != nil {
				return nil, err
			}
		case slices.Contains(deferredSections, name):
			if !isTable(&md, prim) {
				return nil, f.errorAt(keyLine(&md, prim, toml.Key{name}), "%s must be a table ([%s])", name, name)
			}
			src := Source{Layer: kind, Name: path, Line: keyLine(&md, prim, toml.Key{name})}
			f.sections = append(f.sections, RawSection{Name: name, Source: src, data: data})
		default:
			return nil, f.errorAt(keyLine(&md, prim, toml.Key{name}), "unknown key %q%s", name, suggest(name, append(slices.Clone(typedSections), deferredSections...)))
		}
	}
	return f, nil
}

// parseSection decodes [model] or [agent] key by key, so that each error
// names its key and line.
func (f *fileLayer) parseSection(md *toml.MetaData, section string, prim toml.Primitive) error {
	if !isTable(md, prim) {
		return f.errorAt(keyLine(md, prim, toml.Key{section}), "%s must be a table ([%s])", section, section)
	}
	var keys map[string]toml.Primitive
	if err := md.PrimitiveDecode(prim, &keys); err != nil {
		return f.errorAt(keyLine(md, prim, toml.Key{section}), "%s: %v", section, err)
	}
	for _, name := range sectionOrder(md, section) {
		kp := keys[name]
		line := keyLine(md, kp, toml.Key{section, name})
		key := section + "." + name
		spec, ok := specFor(key)
		if !ok || !spec.inFiles {
			if key == "model.api_key" {
				return f.errorAt(line, "model.api_key: API keys do not belong in files; set model.api_key_env to the name of an environment variable holding the key")
			}
			return f.errorAt(line, "unknown key %q%s", key, hint(section, name))
		}
		if f.kind == LayerProject && spec.trustedOnly {
			return f.errorAt(line, "%s may not be set in a project config (a cloned repository must not redirect your API key); set it in your user config, the environment or a flag", key)
		}
		var raw any
		if err := md.PrimitiveDecode(kp, &raw); err != nil {
			return f.errorAt(line, "%s: %v", key, err)
		}
		v, err := spec.convert(raw)
		if err == nil && spec.validate != nil {
			err = spec.validate(v)
		}
		if err != nil {
			return f.errorAt(line, "%s: %v", key, err)
		}
		spec.setValue(&f.set, v)
		f.lines[key] = line
	}
	return nil
}

func (f *fileLayer) errorAt(line int, format string, args ...any) error {
	where := f.path
	if line > 0 {
		where = fmt.Sprintf("%s:%d", f.path, line)
	}
	return fmt.Errorf("config: %s: %s", where, fmt.Sprintf(format, args...))
}

func (f *fileLayer) source(key string) Source {
	return Source{Layer: f.kind, Name: f.path, Line: f.lines[key]}
}

// syntaxError turns a TOML parse error into one line naming file and line.
func syntaxError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := strings.TrimSpace(pe.Message)
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return fmt.Errorf("config: %s:%d: invalid TOML: %s", path, pe.Position.Line, msg)
	}
	return fmt.Errorf("config: %s: invalid TOML: %v", path, err)
}

// topLevelOrder returns the document's top-level names in order of first
// appearance, so the first problem reported is the first in the file.
func topLevelOrder(md *toml.MetaData) []string {
	var names []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) > 0 && !seen[k[0]] {
			seen[k[0]] = true
			names = append(names, k[0])
		}
	}
	return names
}

// sectionOrder returns the keys directly under section in document order.
func sectionOrder(md *toml.MetaData, section string) []string {
	var names []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) > 1 && k[0] == section && !seen[k[1]] {
			seen[k[1]] = true
			names = append(names, k[1])
		}
	}
	return names
}

// errLineProbe is returned by lineProbe to make the TOML decoder report the
// position of the value being decoded.
var errLineProbe = errors.New("line probe")

// lineProbe is a toml.Unmarshaler that always fails. The decoder wraps an
// Unmarshaler's error in a ParseError carrying the position of the key being
// decoded; MetaData has no public accessor for key positions, and this is
// the only public route to them.
type lineProbe struct{}

func (*lineProbe) UnmarshalTOML(any) error { return errLineProbe }

// lineOf returns the line where prim's key was defined, or 0 if unknown.
func lineOf(md *toml.MetaData, prim toml.Primitive) int {
	var pe toml.ParseError
	if err := md.PrimitiveDecode(prim, &lineProbe{}); errors.As(err, &pe) {
		return pe.Position.Line
	}
	return 0
}

// isTable reports whether prim holds a table (explicit, inline or implied
// by a dotted key or a sub-table header).
func isTable(md *toml.MetaData, prim toml.Primitive) bool {
	var v any
	if err := md.PrimitiveDecode(prim, &v); err != nil {
		return false
	}
	_, ok := v.(map[string]any)
	return ok
}

// keyLine returns the line where the key at path (prim's key) is defined.
// A table only implied by its sub-keys ([mcp_servers.fs] without
// [mcp_servers], or a.b = 1 implying a) has no position of its own; its
// first sub-key's line is used.
func keyLine(md *toml.MetaData, prim toml.Primitive, path toml.Key) int {
	if line := lineOf(md, prim); line > 0 {
		return line
	}
	for _, k := range md.Keys() {
		if len(k) <= len(path) || !slices.Equal(k[:len(path)], path) {
			continue
		}
		var m map[string]toml.Primitive
		if err := md.PrimitiveDecode(prim, &m); err != nil {
			return 0
		}
		sub, ok := m[k[len(path)]]
		if !ok {
			return 0
		}
		return keyLine(md, sub, k[:len(path)+1])
	}
	return 0
}
