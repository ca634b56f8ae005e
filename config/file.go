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
	// profiles are the file's [profiles.NAME] tables, each parsed as a
	// layer of its own (profile set, profiles nil).
	profiles map[string]*fileLayer
	// profile names the profile this layer is, "" for a file's top;
	// profileLine is its header's line.
	profile     string
	profileLine int
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
	if err := f.parseTop(&md, top, nil, data); err != nil {
		return nil, err
	}
	return f, nil
}

// parseTop parses the tables of a file's top (at nil) or of a profile (at
// profiles.NAME), whose keys are top: [model] and [agent] are decoded,
// the tables other packages own kept as RawSections.
func (f *fileLayer) parseTop(md *toml.MetaData, top map[string]toml.Primitive, at toml.Key, data []byte) error {
	known := append(slices.Clone(typedSections), deferredSections...)
	if at == nil {
		known = append(known, keyProfiles)
	}
	for _, name := range keysUnder(md, at) {
		prim := top[name]
		key := append(slices.Clone(at), name)
		line := keyLine(md, prim, key)
		switch {
		case slices.Contains(typedSections, name):
			if err := f.parseSection(md, name, prim, at); err != nil {
				return err
			}
		case slices.Contains(deferredSections, name):
			if !isTable(md, prim) {
				return f.errorAt(line, "%s must be a table ([%s])", key, key)
			}
			src := Source{Layer: f.kind, Name: f.path, Line: line, Profile: f.profile}
			f.sections = append(f.sections, RawSection{Name: name, Source: src, data: data, prefix: slices.Clone(at)})
		case name == keyProfiles && at == nil:
			if err := f.parseProfiles(md, prim, data); err != nil {
				return err
			}
		case name == keyProfiles:
			return f.errorAt(line, "%s: profiles do not nest; define each profile at the top, as [profiles.NAME]", key)
		default:
			return f.errorAt(line, "unknown key %q%s", key.String(), suggest(name, known))
		}
	}
	return nil
}

// parseSection decodes [model] or [agent] key by key, so that each error
// names its key and line.
func (f *fileLayer) parseSection(md *toml.MetaData, section string, prim toml.Primitive, at toml.Key) error {
	sk := append(slices.Clone(at), section)
	if !isTable(md, prim) {
		return f.errorAt(keyLine(md, prim, sk), "%s must be a table ([%s])", sk, sk)
	}
	var keys map[string]toml.Primitive
	if err := md.PrimitiveDecode(prim, &keys); err != nil {
		return f.errorAt(keyLine(md, prim, sk), "%s: %v", sk, err)
	}
	// shown is the key as the file spells it (profiles.ci.model.model).
	prefix := ""
	if len(at) > 0 {
		prefix = at.String() + "."
	}
	for _, name := range keysUnder(md, sk) {
		kp := keys[name]
		line := keyLine(md, kp, append(slices.Clone(sk), name))
		key := section + "." + name
		shown := prefix + key
		spec, ok := specFor(key)
		if !ok || !spec.inFiles {
			if key == "model.api_key" {
				return f.errorAt(line, "%s: API keys do not belong in files; set model.api_key_env to the name of an environment variable holding the key", shown)
			}
			return f.errorAt(line, "unknown key %q%s", shown, hint(section, name))
		}
		if f.kind == LayerProject && spec.trustedOnly {
			return f.errorAt(line, "%s may not be set in a project config (a cloned repository must not redirect your API key); set it in your user config, the environment or a flag", shown)
		}
		var raw any
		if err := md.PrimitiveDecode(kp, &raw); err != nil {
			return f.errorAt(line, "%s: %v", shown, err)
		}
		v, err := spec.convert(raw)
		if err == nil && spec.validate != nil {
			err = spec.validate(v)
		}
		if err != nil {
			return f.errorAt(line, "%s: %v", shown, err)
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
	return Source{Layer: f.kind, Name: f.path, Line: f.lines[key], Profile: f.profile}
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

// keysUnder returns the keys directly below the table at (nil: the
// document's top) in order of first appearance, so the first problem
// reported is the first in the file.
func keysUnder(md *toml.MetaData, at toml.Key) []string {
	var names []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) > len(at) && slices.Equal(k[:len(at)], at) && !seen[k[len(at)]] {
			seen[k[len(at)]] = true
			names = append(names, k[len(at)])
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
