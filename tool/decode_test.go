package tool

import (
	"encoding/json"
	"testing"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"
)

// decodeFuzzIn covers what tool inputs are made of: scalars of every
// size, pointers, slices, arrays, maps, embedded structs, the string
// option, raw and generic values, and a type with its own UnmarshalJSON.
type decodeFuzzIn struct {
	RichIn
	*Address
	Any     any             `json:"any,omitempty"`
	Raw     json.RawMessage `json:"raw,omitempty"`
	Num     json.Number     `json:"num,omitempty"`
	Quoted  int             `json:"quoted,omitempty,string"`
	Flag    *bool           `json:"flag,omitempty"`
	F32     float32         `json:"f32,omitempty"`
	U8      uint8           `json:"u8,omitempty"`
	Bytes   []byte          `json:"bytes,omitempty"`
	Pair    [2]int          `json:"pair,omitempty"`
	Generic map[string]any  `json:"generic,omitempty"`
	When    time.Time       `json:"when,omitzero"`
	Skipped string          `json:"-"`
	NoTag   string
}

// Exported names for the embedded fields, which go-cmp compares.
type (
	RichIn  = richIn
	Address = address
)

// FuzzDecodeInput: whenever the json/v2 engine's encoding/json semantics
// (what decodeInput tries first) accept an input, encoding/json accepts
// it too and decodes the same value. Where it fails, decodeInput takes
// encoding/json's word, so only this direction matters.
func FuzzDecodeInput(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"name":"x","count":3,"big":-9007199254740993,"ratio":1.5e3}`,
		`{"tags":["a","b"],"home":{"city":"c"},"many":[{"city":"a","zip":"1"}]}`,
		`{"labels":{"a":1,"b":2},"odd":{"k":"v"},"unit":"c"}`,
		`{"city":"embedded","any":[1,"x",null,{"k":true}],"raw":{"a" : [1, 2]}}`,
		`{"num":12.50,"quoted":"42","flag":false,"f32":3.4e38,"u8":255}`,
		`{"bytes":"aGVsbG8=","pair":[1,2],"generic":{"x":{"y":[]}}}`,
		`{"when":"2026-01-02T03:04:05Z","NoTag":"n","notag":"m","Skipped":"s"}`,
		`{"NAME":"case","Name":"again","name":"last"}`, `{"name":"\ud800\u00e9\n"}`,
		`{"count":1.0}`, `{"big":1e30}`, `{"u8":256}`, `{"pair":[1,2,3]}`, `null`, `[]`,
		"{\"name\":\"\xff\"}", `{"name":"x"} `, `{"home":null,"tags":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, std decodeFuzzIn
		if jsonv1.Unmarshal(data, &fast) != nil {
			return
		}
		if err := json.Unmarshal(data, &std); err != nil {
			t.Fatalf("encoding/json refuses what the v1 package accepted: %v", err)
		}
		if diff := cmp.Diff(std, fast); diff != "" {
			t.Fatalf("decoded values differ (-encoding/json +v1 package):\n%s", diff)
		}
	})
}
