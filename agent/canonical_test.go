package agent

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestIsCanonical(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`{"n":0}`, true},
		{`{"n":-42}`, true},
		{`{"a":1,"b":"x","c":true,"d":false,"e":null}`, true},
		{`{"content":"line one\nline \"two\"\t\\","path":"a/b.go"}`, true},
		{`{"list":[1,[2,{"k":"v"}],[]],"obj":{"x":{}}}`, true},
		{`{"text":"héllo wörld, 日本, 🙂"}`, true},
		{`{"n":999999999999999}`, true},
		{`{"A":1,"_":2,"a":3}`, true},
		// Not canonical, or not surely: the full path decides.
		{`{"b":1,"a":2}`, false},
		{`{"a":1,"a":1}`, false},
		{`{ "a":1}`, false},
		{`{"a": 1}`, false},
		{`{"n":1.0}`, false},
		{`{"n":1e2}`, false},
		{`{"n":-0}`, false},
		{`{"n":01}`, false},
		{`{"n":1000000000000000}`, false},
		{`{"s":"\u0041"}`, false},
		{`{"s":"a\/b"}`, false},
		{`{"é":1}`, false},
		{`{"k\"":1}`, false},
		{"{\"s\":\"\xff\"}", false},
		{"{\"s\":\"\x01\"}", false},
		{`[1]`, false},
		{`"x"`, false},
		{`{"a":1}x`, false},
		{`{"a":1`, false},
		{`{"a":[1,]}`, false},
		{`{"a":tru}`, false},
		{`{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}}}}}}}}}}}}`, false},
	} {
		if got := isCanonical([]byte(tt.in)); got != tt.want {
			t.Errorf("isCanonical(%s) = %v, want %v", tt.in, got, tt.want)
		}
		if tt.want {
			checkCanonical(t, []byte(tt.in))
		}
	}
}

// checkCanonical fails t unless jsontext, canonicalising b, leaves it as
// it is.
func checkCanonical(t *testing.T, b []byte) {
	t.Helper()
	v := jsontext.Value(bytes.Clone(b))
	if err := v.Canonicalize(); err != nil {
		t.Fatalf("isCanonical accepted %q, which jsontext refuses: %v", b, err)
	}
	if !bytes.Equal(v, b) {
		t.Fatalf("isCanonical accepted %q, whose canonical form is %q", b, v)
	}
}

// FuzzIsCanonical: whatever isCanonical accepts is valid JSON that
// jsontext's Canonicalize leaves unchanged.
func FuzzIsCanonical(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"n":1}`, `{"a":[1,"x",{"b":null}],"c":-5}`, `{"s":"\n\t\"\\\b\f\r"}`,
		`{"b":1,"a":2}`, `{"n":1.5}`, `{"s":"\u00e9"}`, "{\"s\":\"\x7f\u2028\"}", `{"a":{"b":{}}}`,
		`{"n":123456789012345}`, `{"n":-0}`, `{"":1,"a":2}`, `{"A":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if isCanonical(b) {
			checkCanonical(t, b)
		}
	})
}
