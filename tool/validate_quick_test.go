package tool

import (
	"encoding/json"
	"testing"
)

// quickSchemas are schemas the quick check understands in part or whole.
var quickSchemas = []string{
	`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMaximum":100}},"required":["n"],"additionalProperties":false}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^a"},"b":{"type":["boolean","null"]},"l":{"type":"array","items":{"type":"number"},"minItems":1,"maxItems":2},"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}},"required":["s"]}`,
	`{"type":"object","properties":{"e":{"enum":["x"]}},"additionalProperties":{"type":"string"}}`,
}

// slowValidate is Validate without the quick check.
func slowValidate(v *Validator, args []byte) error {
	val, err := decodeArgs(NormalizeArgs(args))
	if err != nil {
		return err
	}
	if verr := v.node.check(val); verr != nil {
		return verr
	}
	return nil
}

func TestQuickValid(t *testing.T) {
	v0, v1 := mustValidator(t, quickSchemas[0]), mustValidator(t, quickSchemas[1])
	for _, c := range []struct {
		v    *Validator
		args string
		want bool // certain the quick check accepts it
	}{
		{v0, `{"n":5}`, true},
		{v0, ` { "n" : 99 } `, true},
		{v0, `{"n":100}`, false},
		{v0, `{"n":-1}`, false},
		{v0, `{"n":1.5}`, false},
		{v0, `{"n":1,"n":2}`, false},
		{v0, `{"n":"5"}`, false},
		{v0, `{}`, false},
		{v0, `{"n":5,"x":1}`, false},
		{v0, `{"n":1234567890123456}`, false},
		{v0, `{"n":5`, false},
		{v1, `{"s":"ab","b":null,"l":[1],"o":{"k":"v","z":[{}]}}`, true},
		{v1, `{"s":"ba"}`, false},
		{v1, `{"s":"a\u0062"}`, false},
		{v1, `{"s":"ab","l":[]}`, false},
		{v1, `{"s":"ab","o":{}}`, false},
		{v1, `{"s":"ab","b":1}`, false},
	} {
		if got := c.v.node.quickValid(NormalizeArgs([]byte(c.args))); got != c.want {
			t.Errorf("quickValid(%s) = %v; want %v", c.args, got, c.want)
		}
		if c.want {
			if err := slowValidate(c.v, []byte(c.args)); err != nil {
				t.Errorf("%s: the slow path says %v", c.args, err)
			}
		}
	}
}

func mustValidator(t testing.TB, schema string) *Validator {
	v, err := NewValidator(json.RawMessage(schema))
	if err != nil || v.node == nil {
		t.Fatalf("%s: %v (fast path: %v)", schema, err, v != nil && v.node != nil)
	}
	return v
}

// FuzzQuickValid: whatever the quick check accepts, the slow path accepts.
func FuzzQuickValid(f *testing.F) {
	var vs []*Validator
	for _, s := range quickSchemas {
		vs = append(vs, mustValidator(f, s))
	}
	for _, seed := range []string{`{"n":5}`, `{"s":"ab","l":[1,2],"o":{"k":"x"}}`, `{"n":1,"n":2}`,
		`{"s":"a\"b"}`, "{\"s\":\"a\xff\"}", `{"z":"q","e":"x"}`, `{"n":-0}`, `[1]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, v := range vs {
			if v.node.quickValid(NormalizeArgs(args)) {
				if err := slowValidate(v, args); err != nil {
					t.Fatalf("%q: quick check accepted, slow path says %v", args, err)
				}
			}
		}
	})
}
