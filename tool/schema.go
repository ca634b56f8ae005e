package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// rawMessageType is the one input type passed through without decoding.
var rawMessageType = reflect.TypeFor[json.RawMessage]()

// inputSchema infers the argument schema for a Func taking a value of type
// t. It returns whether t is json.RawMessage (arguments passed through).
//
// The result is always an object schema with "properties", which is what
// model APIs require of function parameters. Struct fields follow
// github.com/google/jsonschema-go: `json` tags name them, fields without
// omitempty/omitzero are required, `jsonschema:"…"` is the description and
// unknown fields are rejected. On top of that an `enum:"a,b,c"` tag limits a
// field (or the elements of a slice field) to the listed values.
func inputSchema(t reflect.Type, cfg *funcConfig) (*jsonschema.Schema, bool, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	var (
		s   *jsonschema.Schema
		raw bool
		err error
	)
	switch {
	case t == rawMessageType:
		s, raw = &jsonschema.Schema{Type: "object"}, true
	case base.Kind() == reflect.Interface && base.NumMethod() == 0:
		s = &jsonschema.Schema{Type: "object"}
	case base.Kind() == reflect.Struct, base.Kind() == reflect.Map && base.Key().Kind() == reflect.String:
		if s, err = jsonschema.ForType(t, nil); err != nil {
			return nil, false, fmt.Errorf("cannot infer an input schema from %s: %w", t, err)
		}
		if err := applyEnumTags(base, s); err != nil {
			return nil, false, err
		}
	default:
		return nil, false, fmt.Errorf("tool input type %s is not an object: use a struct, a map with string keys or json.RawMessage", t)
	}
	// A pointer input infers ["null","object"]; model APIs want "object",
	// and null arguments are normalised to {} before decoding anyway.
	s.Type, s.Types = "object", nil
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	if cfg.allowUnknown {
		allowAdditional(s)
	}
	for _, edit := range cfg.schemaEdits {
		if err := edit(s); err != nil {
			return nil, false, fmt.Errorf("editing the input schema: %w", err)
		}
	}
	if s.Type != "object" {
		return nil, false, fmt.Errorf("the edited input schema has type %q; it must stay \"object\"", s.Type)
	}
	return s, raw, nil
}

// allowAdditional removes every "additionalProperties": false, so unknown
// fields pass validation (and are ignored when decoding).
func allowAdditional(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if a := s.AdditionalProperties; a != nil && a.Not != nil && isEmptySchema(a.Not) {
		s.AdditionalProperties = nil
	}
	for _, p := range s.Properties {
		allowAdditional(p)
	}
	allowAdditional(s.Items)
	allowAdditional(s.AdditionalProperties)
}

// applyEnumTags walks struct type t alongside its inferred schema s and
// turns `enum:"…"` field tags into enum keywords.
func applyEnumTags(t reflect.Type, s *jsonschema.Schema) error {
	if s == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return applyEnumTags(t.Elem(), s)
	case reflect.Slice, reflect.Array:
		return applyEnumTags(t.Elem(), s.Items)
	case reflect.Map:
		return applyEnumTags(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
	default:
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, ok := jsonName(f)
		if !ok {
			continue
		}
		ps := s.Properties[name]
		if ps == nil {
			continue
		}
		if tag, ok := f.Tag.Lookup("enum"); ok {
			if err := setEnum(t, f, ps, tag); err != nil {
				return err
			}
		}
		if err := applyEnumTags(f.Type, ps); err != nil {
			return err
		}
	}
	return nil
}

// jsonName returns the JSON name encoding/json uses for f, and false when
// the field is not encoded.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, true
}

// setEnum parses an enum tag for field f into ps (or ps.Items for a slice
// field). A pointer field also admits null, as its schema does.
func setEnum(owner reflect.Type, f reflect.StructField, ps *jsonschema.Schema, tag string) error {
	ft, nullable := f.Type, false
	for ft.Kind() == reflect.Pointer {
		ft, nullable = ft.Elem(), true
	}
	target := ps
	if ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
		ft, target = ft.Elem(), ps.Items
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		nullable = false
	}
	if target == nil || tag == "" {
		return fmt.Errorf("enum tag on %s.%s is empty or unusable; list values like enum:\"a,b\"", owner, f.Name)
	}
	var vals []any
	for _, lit := range strings.Split(tag, ",") {
		v, err := parseEnumValue(ft, lit)
		if err != nil {
			return fmt.Errorf("enum tag on %s.%s: %w", owner, f.Name, err)
		}
		vals = append(vals, v)
	}
	if nullable {
		vals = append(vals, nil)
	}
	target.Enum = vals
	return nil
}

func parseEnumValue(t reflect.Type, lit string) (any, error) {
	switch t.Kind() {
	case reflect.String:
		return lit, nil
	case reflect.Bool:
		return strconv.ParseBool(lit)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.ParseInt(lit, 10, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.ParseUint(lit, 10, t.Bits())
	case reflect.Float32, reflect.Float64:
		return strconv.ParseFloat(lit, t.Bits())
	}
	return nil, fmt.Errorf("enum values for type %s are not supported; use a string, bool or number field", t)
}
