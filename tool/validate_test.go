package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

type calcIn struct {
	Expression string `json:"expression"`
}

type richIn struct {
	Name   string            `json:"name"`
	Count  int8              `json:"count,omitempty"`
	Big    int64             `json:"big,omitempty"`
	Ratio  float64           `json:"ratio,omitempty"`
	Tags   []string          `json:"tags,omitempty"`
	Home   *address          `json:"home,omitempty"`
	Many   []address         `json:"many,omitempty"`
	Labels map[string]int    `json:"labels,omitempty"`
	Unit   string            `json:"unit,omitempty" enum:"c,f"`
	Odd    map[string]string `json:"odd,omitempty"`
}

func TestFuncValidationMessages(t *testing.T) {
	calls := 0
	calc := Func("calculator", "", func(_ context.Context, in calcIn) (string, error) { calls++; return in.Expression, nil })
	rich := Func("rich", "", func(context.Context, richIn) (string, error) { calls++; return "ok", nil })
	tests := []struct {
		name string
		tool Tool
		args string
		want string
	}{
		{"wrong type", calc, `{"expression":1}`, `invalid arguments for "calculator": field "expression": want string, got number`},
		{"null for string", calc, `{"expression":null}`, `invalid arguments for "calculator": field "expression": want string, got null`},
		{"missing", calc, `{}`, `invalid arguments for "calculator": field "expression": required field is missing`},
		{"empty args", calc, ``, `invalid arguments for "calculator": field "expression": required field is missing`},
		{"null args", calc, ` null `, `invalid arguments for "calculator": field "expression": required field is missing`},
		{"unknown field", calc, `{"expr":"1"}`, `invalid arguments for "calculator": field "expr": unknown field; allowed fields: expression`},
		{"unknown fields reported in order", calc, `{"zz":1,"expression":"1","aa":2}`, `invalid arguments for "calculator": field "aa": unknown field; allowed fields: expression`},
		{"case matters", calc, `{"Expression":"1"}`, `invalid arguments for "calculator": field "Expression": unknown field; allowed fields: expression`},
		{"array args", calc, `[1,2]`, `invalid arguments for "calculator": arguments: want a JSON object, got array`},
		{"string args", calc, `"1+1"`, `invalid arguments for "calculator": arguments: want a JSON object, got string`},
		{"truncated", calc, `{"expression":"1+`, `invalid arguments for "calculator": arguments: not valid JSON: the argument object is incomplete`},
		{"garbage", calc, `{expression: 1}`, `invalid arguments for "calculator": arguments: not valid JSON: invalid character 'e' looking for beginning of object key string (at byte 2)`},
		{"trailing data", calc, `{"expression":"1"}{}`, `invalid arguments for "calculator": arguments: not valid JSON: invalid character '{' after top-level value (at byte 19)`},
		{"int bound", rich, `{"name":"x","count":300}`, `invalid arguments for "rich": field "count": want <= 127, got 300`},
		{"integer wanted", rich, `{"name":"x","count":1.5}`, `invalid arguments for "rich": field "count": want integer, got number`},
		{"int overflow on decode", rich, `{"name":"x","big":1e30}`, `invalid arguments for "rich": field "big": cannot use number 1e30 as an integer of 64 bits`},
		// JSON Schema counts 2.0 as an integer, Go's decoder does not: the
		// decoder's complaint is still reported against the field.
		{"integral float for int", rich, `{"name":"x","labels":{"b":2.0}}`, `invalid arguments for "rich": field "labels": cannot use number 2.0 as an integer of 64 bits`},
		{"nested pointer", rich, `{"name":"x","home":{"zip":"1"}}`, `invalid arguments for "rich": field "home.city": required field is missing`},
		{"array element", rich, `{"name":"x","many":[{"city":"a"},{"city":2}]}`, `invalid arguments for "rich": field "many[1].city": want string, got number`},
		{"array of strings", rich, `{"name":"x","tags":["a",true]}`, `invalid arguments for "rich": field "tags[1]": want string, got boolean`},
		{"map value", rich, `{"name":"x","labels":{"ok":1,"bad":"no"}}`, `invalid arguments for "rich": field "labels.bad": want integer, got string`},
		{"odd map key", rich, `{"name":"x","odd":{"a b":1}}`, `invalid arguments for "rich": field "odd[\"a b\"]": want string, got number`},
		{"enum", rich, `{"name":"x","unit":"kelvin"}`, `invalid arguments for "rich": field "unit": want one of "c", "f", got "kelvin"`},
		{"object for string", rich, `{"name":{"a":1}}`, `invalid arguments for "rich": field "name": want string, got object`},
		{"nested unknown", rich, `{"name":"x","home":{"city":"a","planet":"mars"}}`, `invalid arguments for "rich": field "home.planet": unknown field; allowed fields: city, zip`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = 0
			res, err := tt.tool.Call(context.Background(), json.RawMessage(tt.args))
			if err != nil {
				t.Fatalf("Call error: %v", err)
			}
			if !res.IsError {
				t.Fatalf("Call(%s) succeeded with %q; want is_error", tt.args, res.Content)
			}
			if diff := cmp.Diff(tt.want, res.Content); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if calls != 0 {
				t.Errorf("fn was called %d times for invalid arguments", calls)
			}
		})
	}
}

func TestFuncValidArguments(t *testing.T) {
	var got richIn
	rich := Func("rich", "", func(_ context.Context, in richIn) (string, error) { got = in; return "ok", nil })
	args := `{"name":"x","count":-128,"big":9007199254740993,"ratio":1e-3,"tags":null,"home":null,
		"many":[{"city":"a","zip":"1"}],"labels":{"a":1,"b":2},"unit":"f"}`
	res, err := rich.Call(context.Background(), json.RawMessage(args))
	if err != nil || res.IsError {
		t.Fatalf("Call = %+v, %v; want success", res, err)
	}
	want := richIn{Name: "x", Count: -128, Big: 9007199254740993, Ratio: 1e-3,
		Many: []address{{City: "a", Zip: "1"}}, Labels: map[string]int{"a": 1, "b": 2}, Unit: "f"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded input (-want +got):\n%s", diff)
	}
}

func TestFuncUnknownFieldsAllowed(t *testing.T) {
	var got calcIn
	tl := Func("c", "", func(_ context.Context, in calcIn) (string, error) { got = in; return "", nil }, WithUnknownFields())
	res, _ := tl.Call(context.Background(), json.RawMessage(`{"expression":"1","extra":true}`))
	if res.IsError || got.Expression != "1" {
		t.Errorf("Call = %+v, input %+v; want success with expression 1", res, got)
	}
}

func TestNewValidator(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		args    string
		wantErr string // "" = valid
	}{
		{"fast ok", `{"type":"object","properties":{"a":{"type":"string","minLength":2,"maxLength":3,"pattern":"^[a-z]+$"}}}`, `{"a":"ab"}`, ""},
		{"min length", `{"type":"object","properties":{"a":{"type":"string","minLength":2}}}`, `{"a":"é"}`, `field "a": want at least 2 characters, got 1`},
		{"max length", `{"type":"object","properties":{"a":{"type":"string","maxLength":1}}}`, `{"a":"ab"}`, `field "a": want at most 1 character, got 2`},
		{"pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}}`, `{"a":"A"}`, `field "a": want a string matching "^[a-z]+$"`},
		{"min items", `{"type":"object","properties":{"a":{"type":"array","minItems":1}}}`, `{"a":[]}`, `field "a": want at least 1 item, got 0`},
		{"max items", `{"type":"object","properties":{"a":{"type":"array","maxItems":1}}}`, `{"a":[1,2]}`, `field "a": want at most 1 item, got 2`},
		{"exclusive min", `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0}}}`, `{"a":0}`, `field "a": want > 0, got 0`},
		{"exclusive max", `{"type":"object","properties":{"a":{"type":"number","exclusiveMaximum":1}}}`, `{"a":1.0}`, `field "a": want < 1, got 1`},
		{"minimum", `{"type":"object","properties":{"a":{"type":"number","minimum":0.5}}}`, `{"a":0.25}`, `field "a": want >= 0.5, got 0.25`},
		{"const", `{"type":"object","properties":{"a":{"const":"x"}}}`, `{"a":"y"}`, `field "a": want "x", got "y"`},
		{"numeric enum", `{"type":"object","properties":{"a":{"enum":[1,2.5,"x",null]}}}`, `{"a":2.50}`, ""},
		{"numeric enum miss", `{"type":"object","properties":{"a":{"enum":[1,2.5]}}}`, `{"a":3}`, `field "a": want one of 1, 2.5, got 3`},
		{"object enum", `{"type":"object","properties":{"a":{"enum":[{"k":[1]}]}}}`, `{"a":{"k":[1.0]}}`, ""},
		{"integer 1.0", `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":1.0}`, ""},
		{"false property", `{"type":"object","properties":{"a":false}}`, `{"a":1}`, `field "a": no value is allowed here`},
		{"required without property", `{"type":"object","required":["x"]}`, `{}`, `field "x": required field is missing`},
		{"full: anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"a":true}`, `field "a": anyOf: did not validate against any of`},
		{"full: anyOf ok", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"a":3}`, ""},
		{"full: $ref", `{"type":"object","$defs":{"p":{"type":"string"}},"properties":{"a":{"type":"array","items":{"$ref":"#/$defs/p"}}}}`, `{"a":["x",1]}`, `field "a[]": type: 1 has type "integer", want "string"`},
		{"full: not an object", `{"type":"object","properties":{"a":{"not":{"type":"string"}}}}`, `[]`, `arguments: want a JSON object, got array`},
		{"full: garbage", `{"type":"object","uniqueItems":true}`, `{"a":`, `arguments: not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewValidator(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("NewValidator: %v", err)
			}
			err = v.Validate(json.RawMessage(tt.args))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate(%s) = %v; want valid", tt.args, err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Validate(%s) = nil; want error containing %q", tt.args, tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Validate(%s) = %q; want it to contain %q", tt.args, err, tt.wantErr)
			}
			var ve *ValidationError
			if err != nil && !errors.As(err, &ve) {
				t.Errorf("error %T is not a *ValidationError", err)
			}
		})
	}
}

func TestNewValidatorRejects(t *testing.T) {
	for _, s := range []string{
		`not json`,
		`{"type":"string"}`,
		`{"type":"object","properties":{"a":{"type":"strange"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"(("}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}`,
	} {
		if _, err := NewValidator(json.RawMessage(s)); err == nil {
			t.Errorf("NewValidator(%s) succeeded; want error", s)
		}
	}
}

func TestValidatorBoundsHostileValues(t *testing.T) {
	v, err := NewValidator(json.RawMessage(`{"type":"object","properties":{"a":{"enum":["x"]}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 100000)
	for _, args := range []string{
		`{"a":"` + long + `"}`,
		`{"` + long + `":1}`,
		`{"a":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
	} {
		err := v.Validate(json.RawMessage(args))
		if err == nil {
			t.Fatal("hostile args validated")
		}
		if msg := err.Error(); len(msg) > 512 || !utf8.ValidString(msg) {
			t.Errorf("message is %d bytes (valid UTF-8: %v); want short and valid", len(msg), utf8.ValidString(msg))
		}
	}
}

func TestPointerSegments(t *testing.T) {
	for ptr, want := range map[string]string{
		"root":                             "",
		"/properties/a":                    "a",
		"/properties/a/items/properties/b": "a[].b",
		"/properties/a~1b":                 `["a/b"]`,
		"/additionalProperties":            "*",
		"/properties/m/additionalProperties/properties/x": "m.*.x",
		"/properties/a/anyOf/0":                           "a",
		"/$defs/p/properties/q":                           "q",
	} {
		if got := joinSegments(pointerSegments(ptr)); got != want {
			t.Errorf("field of %q = %q; want %q", ptr, got, want)
		}
	}
}

func FuzzValidate(f *testing.F) {
	schemas := []*Validator{}
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"n":{"type":["null","integer"],"minimum":0},"l":{"type":"array","items":{"type":"object","properties":{"k":{"type":"number"}},"required":["k"],"additionalProperties":false}}},"required":["a"],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#"}}]}}}`,
	} {
		v, err := NewValidator(json.RawMessage(s))
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, v)
	}
	for _, seed := range []string{``, `null`, `{}`, `{"a":"x"}`, `{"a":"x","n":1e400}`, `{"a":1}`,
		`{"a":"x","l":[{"k":1},{"k":"2"}]}`, `{"a":["x",[1]]}`, `[`, `{"a":"\ud800"}`, "{\"\xff\":1}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, v := range schemas {
			err := v.Validate(args)
			if err == nil {
				if !json.Valid(NormalizeArgs(args)) {
					t.Fatalf("invalid JSON %q validated", args)
				}
				continue
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T is not a *ValidationError: %v", err, err)
			}
			if len(err.Error()) > 2048 {
				t.Fatalf("message is %d bytes", len(err.Error()))
			}
		}
	})
}

// keep jsonschema imported for Ptr in other tests of this package.
var _ = jsonschema.Ptr[int]
