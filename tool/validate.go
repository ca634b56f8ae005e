package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ValidationError is one problem with a tool call's arguments. Field is the
// path of the offending value ("expression", "items[2].name"), empty when
// the problem is the argument object as a whole.
type ValidationError struct {
	Field   string
	Problem string
}

// Error names the field and the problem, e.g.
// `field "expression": want string, got number`.
func (e *ValidationError) Error() string {
	if e.Field == "" {
		return "arguments: " + e.Problem
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Problem)
}

// Validator checks tool arguments against a JSON Schema and reports the first
// problem as a *ValidationError naming the field.
//
// Schemas built from the keywords that Go-type inference produces (type,
// properties, required, additionalProperties, items, enum, const, numeric
// and length bounds, pattern) are checked by a fast walker with precise
// messages. Any other keyword ($ref, anyOf, …) switches the validator to
// github.com/google/jsonschema-go's full implementation, so a schema is never
// checked only in part.
//
// A Validator is immutable and safe for concurrent use.
type Validator struct {
	node *node                // fast path; nil when full is used
	full *jsonschema.Resolved // full JSON Schema validation
}

// NewValidator compiles a JSON Schema given as JSON (for example an MCP
// server's inputSchema). The schema must describe an object.
func NewValidator(schema json.RawMessage) (*Validator, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("tool input schema is not valid JSON Schema: %w", err)
	}
	return newValidator(&s)
}

// newValidator compiles s, which the caller must not modify afterwards.
func newValidator(s *jsonschema.Schema) (*Validator, error) {
	if s.Type != "object" && !slices.Contains(s.Types, "object") {
		return nil, errors.New(`tool input schema must have "type": "object" (model APIs accept only object arguments)`)
	}
	if fastSupported(s, 0) {
		n, err := compileNode(s)
		if err != nil {
			return nil, err
		}
		return &Validator{node: n}, nil
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool input schema cannot be resolved: %w", err)
	}
	return &Validator{full: r}, nil
}

// Validate checks args, a JSON object. Empty or null args count as {}.
// Malformed JSON, a non-object and every schema violation yield a
// *ValidationError.
func (v *Validator) Validate(args json.RawMessage) error {
	args = NormalizeArgs(args)
	if v.node != nil && v.node.quickValid(args) {
		return nil
	}
	val, err := decodeArgs(args)
	if err != nil {
		return err
	}
	if v.node != nil {
		if verr := v.node.check(val); verr != nil {
			return verr
		}
		return nil
	}
	if err := v.full.Validate(val); err != nil {
		return fullError(err)
	}
	return nil
}

// NormalizeArgs returns args with surrounding white space removed and an
// empty or JSON null argument list replaced by {}: models often send either
// for a tool that takes no arguments.
func NormalizeArgs(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return t
}

// decodeArgs parses args into generic JSON values (numbers as float64,
// which both validation paths expect) and checks that they form an object.
func decodeArgs(args json.RawMessage) (any, error) {
	if string(args) == "{}" {
		return map[string]any{}, nil
	}
	var val any
	if err := json.Unmarshal(args, &val); err != nil {
		return nil, &ValidationError{Problem: "not valid JSON: " + jsonProblem(err)}
	}
	if _, ok := val.(map[string]any); !ok {
		return nil, &ValidationError{Problem: "want a JSON object, got " + typeWord(valueType(val))}
	}
	return val, nil
}

// jsonProblem describes a decoding error without echoing the input.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		if syn.Error() == "unexpected end of JSON input" {
			return "the argument object is incomplete"
		}
		return fmt.Sprintf("%s (at byte %d)", strings.TrimPrefix(syn.Error(), "json: "), syn.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// fullError turns a jsonschema-go error chain ("validating root: validating
// /properties/a: type: …") into a ValidationError. Each schema location in
// the chain extends the previous one or, after a $ref, starts afresh; the
// instance path is assembled from the new part of each. That library does
// not report array positions, so elements show as "[]".
func fullError(err error) error {
	msg := err.Error()
	var field []pathSeg
	prev := ""
	for strings.HasPrefix(msg, "validating ") {
		rest := msg[len("validating "):]
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		loc := rest[:i]
		msg = rest[i+2:]
		if loc == "root" {
			continue
		}
		added := loc
		if prev != "" && strings.HasPrefix(loc, prev+"/") {
			added = loc[len(prev):]
		}
		field = append(field, pointerSegments(added)...)
		prev = loc
	}
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
	return &ValidationError{Field: joinSegments(field), Problem: clip(msg, 512)}
}
