package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

type flatIn struct {
	Expression string `json:"expression" jsonschema:"the expression to evaluate"`
	Precision  int    `json:"precision,omitempty"`
}

type address struct {
	City string `json:"city"`
	Zip  string `json:"zip,omitempty"`
}

type nestedIn struct {
	Name    string    `json:"name"`
	Home    address   `json:"home"`
	Others  []address `json:"others,omitempty"`
	Nick    *string   `json:"nick,omitempty"`
	Age     *int      `json:"age"`
	Ignored string    `json:"-"`
}

type enumIn struct {
	Unit   string   `json:"unit" enum:"celsius,fahrenheit"`
	Level  int      `json:"level,omitempty" enum:"1,2,3"`
	Mode   *string  `json:"mode,omitempty" enum:"fast,slow"`
	Colors []string `json:"colors,omitempty" enum:"red,green"`
	Flag   bool     `json:"flag,omitempty" enum:"true"`
}

type embedded struct {
	ID string `json:"id" enum:"a,b"`
}

type withEmbedded struct {
	embedded
	Note string `json:"note"`
}

func schemaOf[In any](t *testing.T, opts ...FuncOption) map[string]any {
	t.Helper()
	tl, err := NewFunc("t", "d", func(context.Context, In) (string, error) { return "", nil }, opts...)
	if err != nil {
		t.Fatalf("NewFunc: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(tl.Spec().InputSchema, &m); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	return m
}

func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

func TestSchemaGeneration(t *testing.T) {
	tests := []struct {
		name string
		got  func(*testing.T, ...FuncOption) map[string]any
		want string
	}{
		{"flat", schemaOf[flatIn], `{"type":"object","properties":{
			"expression":{"type":"string","description":"the expression to evaluate"},
			"precision":{"type":"integer"}},
			"required":["expression"],"additionalProperties":false}`},
		{"nested, slices, pointers", schemaOf[nestedIn], `{"type":"object","properties":{
			"name":{"type":"string"},
			"home":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"],"additionalProperties":false},
			"others":{"type":["null","array"],"items":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"],"additionalProperties":false}},
			"nick":{"type":["null","string"]},
			"age":{"type":["null","integer"]}},
			"required":["name","home","age"],"additionalProperties":false}`},
		{"enum tags", schemaOf[enumIn], `{"type":"object","properties":{
			"unit":{"type":"string","enum":["celsius","fahrenheit"]},
			"level":{"type":"integer","enum":[1,2,3]},
			"mode":{"type":["null","string"],"enum":["fast","slow",null]},
			"colors":{"type":["null","array"],"items":{"type":"string","enum":["red","green"]}},
			"flag":{"type":"boolean","enum":[true]}},
			"required":["unit"],"additionalProperties":false}`},
		{"embedded struct", schemaOf[withEmbedded], `{"type":"object","properties":{
			"id":{"type":"string","enum":["a","b"]},"note":{"type":"string"}},
			"required":["id","note"],"additionalProperties":false}`},
		{"pointer input", schemaOf[*flatIn], `{"type":"object","properties":{
			"expression":{"type":"string","description":"the expression to evaluate"},
			"precision":{"type":"integer"}},
			"required":["expression"],"additionalProperties":false}`},
		{"empty struct", schemaOf[struct{}], `{"type":"object","properties":{},"additionalProperties":false}`},
		{"map input", schemaOf[map[string]int], `{"type":"object","properties":{},"additionalProperties":{"type":"integer"}}`},
		{"any input", schemaOf[any], `{"type":"object","properties":{}}`},
		{"raw input", schemaOf[json.RawMessage], `{"type":"object","properties":{}}`},
		{"unknown fields allowed", func(t *testing.T, _ ...FuncOption) map[string]any { return schemaOf[nestedIn](t, WithUnknownFields()) },
			`{"type":"object","properties":{
			"name":{"type":"string"},
			"home":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"]},
			"others":{"type":["null","array"],"items":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"]}},
			"nick":{"type":["null","string"]},
			"age":{"type":["null","integer"]}},
			"required":["name","home","age"]}`},
		{"schema edit", func(t *testing.T, _ ...FuncOption) map[string]any {
			return schemaOf[flatIn](t, WithSchemaEdit(func(s *jsonschema.Schema) error {
				s.Properties["precision"].Minimum = jsonschema.Ptr(0.0)
				s.Properties["precision"].Maximum = jsonschema.Ptr(12.0)
				return nil
			}))
		}, `{"type":"object","properties":{
			"expression":{"type":"string","description":"the expression to evaluate"},
			"precision":{"type":"integer","minimum":0,"maximum":12}},
			"required":["expression"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(jsonMap(t, tt.want), tt.got(t)); diff != "" {
				t.Errorf("schema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSchemaPropertyOrderIsFieldOrder(t *testing.T) {
	tl := Func("t", "d", func(context.Context, nestedIn) (string, error) { return "", nil })
	s := string(tl.Spec().InputSchema)
	last := -1
	for _, name := range []string{`"name"`, `"home"`, `"others"`, `"nick"`, `"age"`} {
		i := strings.Index(s, name)
		if i < last {
			t.Fatalf("property %s out of field order in %s", name, s)
		}
		last = i
	}
}

type badEnum struct {
	N int `json:"n" enum:"1,two"`
}

type badEnumType struct {
	A address `json:"a" enum:"x"`
}

type chanField struct {
	C chan int `json:"c"`
}

type cyclic struct {
	Next *cyclic `json:"next,omitempty"`
}

func TestNewFuncErrors(t *testing.T) {
	noop := func(context.Context, flatIn) (string, error) { return "", nil }
	tests := []struct {
		name string
		make func() (Tool, error)
		want string
	}{
		{"invalid name", func() (Tool, error) { return NewFunc("bad name", "", noop) }, "invalid tool name"},
		{"empty name", func() (Tool, error) { return NewFunc("", "", noop) }, "the name is empty"},
		{"long name", func() (Tool, error) { return NewFunc(strings.Repeat("a", 65), "", noop) }, "at most 64"},
		{"nil fn", func() (Tool, error) {
			return NewFunc[flatIn, string]("t", "", nil)
		}, "function is nil"},
		{"string input", func() (Tool, error) {
			return NewFunc("t", "", func(context.Context, string) (string, error) { return "", nil })
		}, "is not an object"},
		{"slice input", func() (Tool, error) {
			return NewFunc("t", "", func(context.Context, []int) (string, error) { return "", nil })
		}, "is not an object"},
		{"map with int keys", func() (Tool, error) {
			return NewFunc("t", "", func(context.Context, map[int]string) (string, error) { return "", nil })
		}, "is not an object"},
		{"chan field", func() (Tool, error) {
			return NewFunc("t", "", func(context.Context, chanField) (string, error) { return "", nil })
		}, "cannot infer an input schema"},
		{"cyclic type", func() (Tool, error) {
			return NewFunc("t", "", func(context.Context, cyclic) (string, error) { return "", nil })
		}, "cycle"},
		{"bad enum value", func() (Tool, error) {
			return NewFunc("t", "", func(context.Context, badEnum) (string, error) { return "", nil })
		}, `enum tag on tool.badEnum.N`},
		{"enum on struct", func() (Tool, error) {
			return NewFunc("t", "", func(context.Context, badEnumType) (string, error) { return "", nil })
		}, "not supported"},
		{"edit error", func() (Tool, error) {
			return NewFunc("t", "", noop, WithSchemaEdit(func(*jsonschema.Schema) error { return errors.New("boom") }))
		}, "editing the input schema: boom"},
		{"edit breaks object", func() (Tool, error) {
			return NewFunc("t", "", noop, WithSchemaEdit(func(s *jsonschema.Schema) error { s.Type = "string"; return nil }))
		}, `must stay "object"`},
		{"edit adds bad pattern", func() (Tool, error) {
			return NewFunc("t", "", noop, WithSchemaEdit(func(s *jsonschema.Schema) error {
				s.Properties["expression"].Pattern = "(("
				return nil
			}))
		}, "pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := tt.make()
			if err == nil {
				t.Fatalf("NewFunc succeeded with schema %s; want error containing %q", tl.Spec().InputSchema, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q; want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestFuncPanicsOnProgrammingError(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Func with an invalid name did not panic")
		}
	}()
	Func("not valid!", "", func(context.Context, flatIn) (string, error) { return "", nil })
}

func TestFuncSpec(t *testing.T) {
	ro := true
	tl := Func("calc", "evaluates", func(context.Context, flatIn) (string, error) { return "", nil },
		WithAnnotations(Annotations{Title: "Calc", ReadOnlyHint: &ro}),
		WithEffects(Effects{ReadsFiles: true, PathArgs: []string{"path"}}))
	got := tl.Spec()
	if got.Name != "calc" || got.Description != "evaluates" || got.Annotations.Title != "Calc" ||
		got.Annotations.ReadOnlyHint == nil || !*got.Annotations.ReadOnlyHint {
		t.Errorf("Spec = %+v", got)
	}
	if diff := cmp.Diff(Effects{ReadsFiles: true, PathArgs: []string{"path"}}, got.Effects); diff != "" {
		t.Errorf("Effects (-want +got):\n%s", diff)
	}
}
