package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// An MCP elicitation form is a flat JSON Schema object: each property is a
// string (free text, optionally with a format and length bounds), a number
// or integer (optionally bounded), a boolean, a single-select enum (enum,
// enum+enumNames, or oneOf of {const, title}) or a multi-select enum (an
// array whose items are enum or anyOf of {const, title}). The MCP
// specification allows nothing else, so anything else is refused rather
// than guessed at.

// fieldKind is what a form field asks for.
type fieldKind int

const (
	kindText fieldKind = iota
	kindNumber
	kindInteger
	kindBool
	kindChoice // one of options
	kindMulti  // a subset of options
)

// choice is one option of an enum field: the value sent and the label
// shown (the same unless the schema titles its values).
type choice struct{ value, label string }

// formField is one property of an elicitation form, ready to ask.
type formField struct {
	name, title, description string
	kind                     fieldKind
	required                 bool
	format                   string // text: email, uri, date or date-time
	minLen, maxLen           *int
	min, max                 *float64
	minItems, maxItems       *int
	options                  []choice
	// def is the schema's default, typed for kind (string, float64,
	// int64, bool or []string), or nil when it has none or an unusable
	// one.
	def any
}

// elicitForm is a parsed elicitation schema, fields in schema order.
type elicitForm struct{ fields []formField }

// maxFormFields bounds the fields of one form: a form is asked field by
// field, and a server sending thousands would hold the terminal.
const maxFormFields = 100

// propSchema is the subset of JSON Schema an elicitation property may use.
type propSchema struct {
	Type        json.RawMessage   `json:"type"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Format      string            `json:"format"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	Enum        []json.RawMessage `json:"enum"`
	EnumNames   []string          `json:"enumNames"`
	OneOf       []titledValue     `json:"oneOf"`
	AnyOf       []titledValue     `json:"anyOf"`
	Items       *itemsSchema      `json:"items"`
	MinItems    *int              `json:"minItems"`
	MaxItems    *int              `json:"maxItems"`
	Default     json.RawMessage   `json:"default"`
}

// itemsSchema is the items schema of a multi-select enum.
type itemsSchema struct {
	Type  json.RawMessage   `json:"type"`
	Enum  []json.RawMessage `json:"enum"`
	AnyOf []titledValue     `json:"anyOf"`
	OneOf []titledValue     `json:"oneOf"`
}

// titledValue is a {const, title} entry of a titled enum.
type titledValue struct {
	Const json.RawMessage `json:"const"`
	Title string          `json:"title"`
}

// parseForm parses an elicitation schema. An empty schema is a form
// without fields (a plain confirmation).
func parseForm(raw json.RawMessage) (*elicitForm, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return &elicitForm{}, nil
	}
	var top struct {
		Type       json.RawMessage `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("the schema is not a JSON object: %w", err)
	}
	if t, err := schemaType(top.Type); err != nil || (t != "" && t != "object") {
		return nil, errors.New(`the schema's type is not "object"`)
	}
	names, props, err := orderedObject(top.Properties)
	if err != nil {
		return nil, fmt.Errorf("the schema's properties: %w", err)
	}
	if len(names) > maxFormFields {
		return nil, fmt.Errorf("the form has %d fields; rein asks at most %d", len(names), maxFormFields)
	}
	f := &elicitForm{}
	for i, name := range names {
		field, err := parseField(name, props[i], slices.Contains(top.Required, name))
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", clipText(name, 60), err)
		}
		f.fields = append(f.fields, field)
	}
	return f, nil
}

// orderedObject returns the members of a JSON object in document order,
// so a form is asked in the order its author wrote it (where the order
// survived the trip).
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var (
		names []string
		vals  []json.RawMessage
		seen  = map[string]bool{}
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := tok.(string) // object keys are always strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("property %q appears twice", clipText(name, 60))
		}
		seen[name] = true
		names, vals = append(names, name), append(vals, v)
	}
	return names, vals, nil
}

// schemaType reads a "type" member, which must be a single string here.
func schemaType(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var t string
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", errors.New(`"type" must be a single string`)
	}
	return t, nil
}

// parseField turns one property schema into a field.
func parseField(name string, raw json.RawMessage, required bool) (formField, error) {
	var ps propSchema
	if err := json.Unmarshal(raw, &ps); err != nil {
		return formField{}, fmt.Errorf("unusable schema: %w", err)
	}
	t, err := schemaType(ps.Type)
	if err != nil {
		return formField{}, err
	}
	f := formField{
		name: name, title: ps.Title, description: ps.Description, required: required,
		minLen: ps.MinLength, maxLen: ps.MaxLength, min: ps.Minimum, max: ps.Maximum,
		minItems: ps.MinItems, maxItems: ps.MaxItems,
	}
	switch t {
	case "boolean":
		f.kind = kindBool
	case "integer":
		f.kind = kindInteger
	case "number":
		f.kind = kindNumber
	case "array":
		f.kind = kindMulti
		if ps.Items == nil {
			return f, errors.New("a multi-select field needs items")
		}
		if f.options, err = options(ps.Items.Enum, nil, append(ps.Items.AnyOf, ps.Items.OneOf...)); err != nil {
			return f, err
		}
	case "string", "":
		f.kind = kindText
		if len(ps.Enum) > 0 || len(ps.OneOf) > 0 || len(ps.AnyOf) > 0 {
			f.kind = kindChoice
			if f.options, err = options(ps.Enum, ps.EnumNames, append(ps.OneOf, ps.AnyOf...)); err != nil {
				return f, err
			}
			break
		}
		switch ps.Format {
		case "", "email", "uri", "date", "date-time":
			f.format = ps.Format
		default:
			return f, fmt.Errorf("unsupported format %q", clipText(ps.Format, 40))
		}
	default:
		return f, fmt.Errorf("unsupported type %q", clipText(t, 40))
	}
	if f.min != nil && f.max != nil && *f.max < *f.min {
		return f, errors.New("maximum is less than minimum")
	}
	f.def = f.defaultValue(ps.Default)
	return f, nil
}

// options builds the choices of an enum field from plain values (labelled
// by names when they match one to one) or titled values.
func options(enum []json.RawMessage, names []string, titled []titledValue) ([]choice, error) {
	var out []choice
	for i, raw := range enum {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, errors.New("enum values must be strings")
		}
		label := v
		if len(names) == len(enum) && names[i] != "" {
			label = names[i]
		}
		out = append(out, choice{value: v, label: label})
	}
	for _, tv := range titled {
		var v string
		if err := json.Unmarshal(tv.Const, &v); err != nil || v == "" {
			return nil, errors.New("titled enum values need a non-empty string const")
		}
		label := tv.Title
		if label == "" {
			label = v
		}
		out = append(out, choice{value: v, label: label})
	}
	if len(out) == 0 {
		return nil, errors.New("an enum field needs at least one value")
	}
	return out, nil
}

// defaultValue decodes a default for the field's kind; a default that
// does not fit the field is ignored (the user must answer instead).
func (f *formField) defaultValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	switch f.kind {
	case kindBool:
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return b
		}
	case kindNumber, kindInteger:
		var x float64
		if json.Unmarshal(raw, &x) != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		if f.kind == kindNumber {
			return x
		}
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x)
		}
	case kindText:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case kindChoice:
		var s string
		if json.Unmarshal(raw, &s) == nil && f.option(s) >= 0 {
			return s
		}
	case kindMulti:
		var ss []string
		if json.Unmarshal(raw, &ss) != nil {
			return nil
		}
		for _, s := range ss {
			if f.option(s) < 0 {
				return nil
			}
		}
		return ss
	}
	return nil
}

// option returns the index of the option whose value is v, or -1.
func (f *formField) option(v string) int {
	return slices.IndexFunc(f.options, func(c choice) bool { return c.value == v })
}
