// Package wirejson turns the errors of Go's JSON decoders into words about
// the data, for messages about what a model server sent. The decoders'
// own texts name Go types ("cannot unmarshal … into Go struct field
// delta.choices.delta.content of type string"), which say nothing to a
// user about the server; Describe says "field /choices/0/delta/content is
// a number, want a string".
package wirejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Describe explains a decoding error of encoding/json or json/v2.
// syntax is true when the data is not JSON at all, false when it is JSON
// of the wrong shape.
func Describe(err error) (text string, syntax bool) {
	if se, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		return semantic(se), false
	}
	if se, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		text := fmt.Sprintf("%s at byte %d", strings.TrimPrefix(errText(se.Err), "jsontext: "), se.ByteOffset)
		if se.JSONPointer != "" {
			text += fmt.Sprintf(" (in field %s)", se.JSONPointer)
		}
		return text, true
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("%s at byte %d", strings.TrimPrefix(se.Error(), "json: "), se.Offset), true
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return mismatch(te.Field, an(te.Value), te.Type), false
	}
	return stripGo(err.Error()), false
}

func semantic(se *jsonv2.SemanticError) string {
	if se.GoType != nil && se.JSONKind != 0 {
		text := mismatch(string(se.JSONPointer), kindName(se.JSONKind), se.GoType)
		if se.Err != nil {
			text += " (" + stripGo(se.Err.Error()) + ")"
		}
		return text
	}
	where := "the data"
	if se.JSONPointer != "" {
		where = fmt.Sprintf("field %s", se.JSONPointer)
	}
	if se.Err != nil {
		return fmt.Sprintf("%s: %s", where, stripGo(errText(se.Err)))
	}
	return where + " has an unexpected value"
}

// mismatch says that the value at field has the wrong JSON type.
func mismatch(field, got string, want reflect.Type) string {
	where := "the data"
	if field != "" {
		where = "field " + field
	}
	return fmt.Sprintf("%s is %s, want %s", where, got, wantName(want))
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "an unexpected value"
}

// an puts the article before an encoding/json value name ("number").
func an(v string) string {
	switch {
	case v == "":
		return "an unexpected value"
	case strings.ContainsAny(v[:1], "aeiou"):
		return "an " + v
	}
	return "a " + v
}

// wantName names the JSON a Go type accepts.
func wantName(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another type"
}

func errText(err error) string {
	if err == nil {
		return "invalid JSON"
	}
	return err.Error()
}

// stripGo removes the decoders' prefixes and any "Go …" type mention from
// a message that none of the cases above explained.
func stripGo(s string) string {
	for _, p := range []string{"json: ", "jsontext: "} {
		s = strings.TrimPrefix(s, p)
	}
	if i := strings.Index(s, " Go "); i >= 0 {
		s = s[:i]
	}
	return s
}
