package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// RawSection is one layer's copy of a top-level table that another package
// owns ([policy], [sandbox], [tools], [mcp_servers], [session],
// [telemetry]). It stays undecoded until its owner calls Decode.
//
// A RawSection is immutable and safe for concurrent use: every call works
// on its own parse of the file (configuration files are small), so the
// TOML decoder's bookkeeping of which keys were decoded is never shared.
type RawSection struct {
	// Name is the table's name, e.g. "policy".
	Name string
	// Source is the layer and file the table came from, with the line of
	// its header.
	Source Source

	data []byte // the whole file, read-only
	// prefix is where the table sits below the file's top: nil, or
	// profiles.NAME for a profile's table.
	prefix toml.Key
}

// key is the table's full key in its file ("policy",
// "profiles.ci.policy").
func (s RawSection) key() toml.Key {
	return append(slices.Clone(s.prefix), s.Name)
}

// parse returns a fresh decoder state and the table's primitive.
func (s RawSection) parse() (*toml.MetaData, toml.Primitive, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(s.data), &top)
	if err != nil {
		return nil, toml.Primitive{}, syntaxError(s.Source.Name, err)
	}
	prim := top[s.key()[0]]
	for _, name := range s.key()[1:] {
		var m map[string]toml.Primitive
		if err := md.PrimitiveDecode(prim, &m); err != nil {
			return nil, toml.Primitive{}, s.errorAt(0, "[%s]: %v", s.key(), err)
		}
		prim = m[name]
	}
	return &md, prim, nil
}

// Decode decodes the table into v, a pointer to a struct or map, as
// toml.Decode would. It is strict: a key that v has no place for is an
// error naming the file, line and key. Use concrete field types (structs,
// map[string]T): keys held in fields of type any or toml.Primitive are not
// seen as decoded and are reported as unknown.
func (s RawSection) Decode(v any) error {
	md, prim, err := s.parse()
	if err != nil {
		return err
	}
	if err := md.PrimitiveDecode(prim, v); err != nil {
		return s.decodeError(err)
	}
	at := s.key()
	for _, k := range md.Undecoded() {
		if len(k) <= len(at) || !slices.Equal(k[:len(at)], at) {
			continue
		}
		// Walking to the key marks keys decoded; the check is done by now.
		line := s.lineOf(md, prim, k[len(at):])
		return s.errorAt(line, "unknown key %q in [%s]%s", k.String(), k[:len(k)-1].String(),
			suggest(k[len(k)-1], fieldNames(v, k[len(at):len(k)-1])))
	}
	return nil
}

// Position returns the source of a key inside the table, given its path
// below the table (for example Position("rules", "deny")), so an owner's
// semantic errors can name file and line. The line is that of the table's
// header when the key cannot be located.
func (s RawSection) Position(path ...string) Source {
	src := s.Source
	md, prim, err := s.parse()
	if err != nil {
		return src
	}
	if line := s.lineOf(md, prim, path); line > 0 {
		src.Line = line
	}
	return src
}

// Errorf returns an error in the config package's format, "config:
// FILE:LINE: message", pointing at the key at path inside the table.
func (s RawSection) Errorf(path []string, format string, args ...any) error {
	src := s.Position(path...)
	return s.errorAt(src.Line, format, args...)
}

func (s RawSection) errorAt(line int, format string, args ...any) error {
	where := s.Source.Name
	if line > 0 {
		where = fmt.Sprintf("%s:%d", where, line)
	}
	return fmt.Errorf("config: %s: %s", where, fmt.Sprintf(format, args...))
}

// lineOf walks path below the table through nested tables and returns the
// line of the last key, or 0 when it cannot be reached (for example inside
// an array of tables).
func (s RawSection) lineOf(md *toml.MetaData, prim toml.Primitive, path []string) int {
	key := s.key()
	for _, name := range path {
		key = append(key, name)
		var m map[string]toml.Primitive
		if err := md.PrimitiveDecode(prim, &m); err != nil {
			return 0
		}
		next, ok := m[name]
		if !ok {
			return 0
		}
		prim = next
	}
	if len(path) == 0 {
		return s.Source.Line
	}
	return keyLine(md, prim, key)
}

// decodeError rewrites the TOML decoder's messages into the package's
// one-line format.
func (s RawSection) decodeError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = pe.LastKey + ": " + msg
		}
		return s.errorAt(pe.Position.Line, "%s", msg)
	}
	// The decoder's other errors read "toml: line N (last key "x"): …";
	// drop the prefix, which would repeat what errorAt adds.
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	return s.errorAt(0, "[%s]: %s", s.key(), msg)
}
