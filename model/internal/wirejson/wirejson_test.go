package wirejson

import (
	"encoding/json"
	"regexp"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
)

type delta struct {
	Content string `json:"content"`
	Index   *int   `json:"index"`
}

type chunk struct {
	Choices []struct {
		Delta delta `json:"delta"`
	} `json:"choices"`
	N float64 `json:"n"`
}

// goNames matches what must never reach a user: Go type and package names.
var goNames = regexp.MustCompile(`Go |struct|wirejson\.|\[\]|\*int|float64|json: |jsontext: `)

func TestDescribe(t *testing.T) {
	tests := []struct {
		data       string
		want       string
		wantSyntax bool
	}{
		{`{"choices":[{"delta":{"content":5}}]}`, "field /choices/0/delta/content is a number, want a string", false},
		{`{"choices":"x"}`, "field /choices is a string, want an array", false},
		{`{"choices":[{"delta":{"index":"0"}}]}`, "field /choices/0/delta/index is a string, want an integer", false},
		{`{"n":true}`, "field /n is a boolean, want a number", false},
		{`[1,2]`, "the data is an array, want an object", false},
		{`"x"`, "the data is a string, want an object", false},
	}
	for _, tt := range tests {
		var c chunk
		got, syntax := Describe(jsonv2.Unmarshal([]byte(tt.data), &c))
		if got != tt.want || syntax != tt.wantSyntax {
			t.Errorf("v2 %s: %q (syntax %v), want %q (%v)", tt.data, got, syntax, tt.want, tt.wantSyntax)
		}
		var c1 chunk
		got1, syntax1 := Describe(json.Unmarshal([]byte(tt.data), &c1))
		if syntax1 || goNames.MatchString(got1) {
			t.Errorf("v1 %s: %q (syntax %v) names Go types or claims bad syntax", tt.data, got1, syntax1)
		}
	}
}

func TestDescribeSyntax(t *testing.T) {
	for _, data := range []string{`{bad`, "\x00\x01garbage", `{"a":}`, `{"a":1`, `nul`, "{\"a\":\"\xff\"}x"} {
		var c chunk
		for _, err := range []error{jsonv2.Unmarshal([]byte(data), &c), json.Unmarshal([]byte(data), &c)} {
			if err == nil {
				continue
			}
			got, _ := Describe(err)
			if got == "" || goNames.MatchString(got) {
				t.Errorf("%q: %q (from %v) is empty or names Go types", data, got, err)
			}
		}
	}
}

// FuzzDescribe: whatever the data, the description names no Go type.
func FuzzDescribe(f *testing.F) {
	for _, s := range []string{`{"choices":[{"delta":{"content":5}}]}`, `[1]`, `{bad`, `{"n":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c chunk
		for _, err := range []error{jsonv2.Unmarshal(data, &c), json.Unmarshal(data, &c)} {
			if err == nil {
				continue
			}
			if got, _ := Describe(err); got == "" || goNames.MatchString(got) {
				t.Fatalf("%q: %q (from %v)", data, got, err)
			}
		}
	})
}
