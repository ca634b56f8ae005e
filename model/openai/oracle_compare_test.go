package openai_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/openai"
)

// matchOracle parses body with the parser and with the oracle (the parser
// as it was before the fast chunk path) and reports any difference in the
// events, or in the error: its text, its type and the sentinels it wraps.
func matchOracle(body []byte) error {
	want, wantErr := collectEvents(openai.OracleParseStream(bytes.NewReader(body)))
	got, gotErr := collectEvents(openai.ParseStream(bytes.NewReader(body)))
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("events differ (-oracle +new):\n%s", cmp.Diff(want, got))
	}
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || fmt.Sprintf("%T", wantErr) != fmt.Sprintf("%T", gotErr) {
		return fmt.Errorf("errors differ:\noracle: %v\nnew:    %v", wantErr, gotErr)
	}
	for _, sentinel := range []error{openai.ErrMalformedResponse, model.ErrIncompleteStream} {
		if errors.Is(wantErr, sentinel) != errors.Is(gotErr, sentinel) {
			return fmt.Errorf("errors.Is(%v) differs: oracle %v, new %v", sentinel, wantErr, gotErr)
		}
	}
	return nil
}

// oracleChunks are hand-written chunks at the edges of the fast path: the
// shapes it declines (usage, timings, errors, duplicates, escaped names,
// odd numbers and types, invalid UTF-8, lone surrogates) and the ones it
// decodes itself (escapes, nulls, raw object arguments, several choices).
var oracleChunks = []string{
	`{"id":"r","choices":[{"index":0,"delta":{"content":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2603\ud83d\ude00\u0000"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"\ud83d"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"\ude00x"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"\ud83d\u0041"}}]}`,
	"{\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"bad \xff utf8\"}}]}",
	"{\"id\":\"r\xff\",\"obfuscation\":\"\xc3\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}",
	"{\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ctl \x01\"}}]}",
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x","content":"y"}}]}`,
	`{"id":"r","choices":[{"index":0,"index":1,"delta":{"content":"x"}}]}`,
	`{"id":"r","id":"s","choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x"}}],"choices":[{"index":0,"delta":{"reasoning":"y"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x"},"delta":{"refusal":"y"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"con\u0074ent":"x"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"Content":"x"}}]}`,
	`{"id":"r","choices":[{"index":1.0,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":-0,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":-1,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":1e0,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":01,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":99999999999999999999,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":"0","delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":7}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":true}}]}`,
	`{"id":7,"choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":{"index":0}}`,
	`{"id":"r","choices":[null,{"index":0,"delta":{"content":"x"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":null,"finish_reason":null}]}`,
	`{"id":"r","choices":null}`,
	`{"id":null,"choices":[{"index":0,"delta":{"content":null,"refusal":"no"}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"reasoning_content":"a","reasoning":"b"}},{"index":0,"delta":{"content":"c"}}]}`,
	`{"id":"r","choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"mine"},"finish_reason":"stop"}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":{"a": [1, 2.5e3, true, null, "\u00e9"]}}}]}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":[1]}},{"id":"d","function":{"name":"g","arguments":"{\"k\":\"\\u0041\"}"}}]}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":12}},{"index":0,"function":{"arguments":"x"}}]}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":null,"id":"c","function":{"name":"f","arguments":null}}]}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":null}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":null}]}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}","arguments":"{}"}}]}}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":{"a":1,"a":2}}}]}}]}`,
	`{"id":"r","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7},"timings":{"cache_n":3}}`,
	`{"id":"r","choices":[],"usage":null,"timings":null,"error":null}`,
	`{"error":{"message":"boom","type":"server_error","code":500}}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x"}}]} trailing`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x"}}]}{}`,
	` { "id" : "r" , "choices" : [ { "index" : 0 , "delta" : { "content" : "x" } } ] } `,
	"{\"id\":\"r\",\"choices\":[{\"index\":0,\r\n\t\"delta\":{\"content\":\"x\"}}]}",
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x"}}],}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x"},}]}`,
	`{"id":"r","choices":[{"index":0,"delta":{"content":"x"}},]}`,
	`{"id":"r","x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"choices":[]}`,
	`{"id":"r","x":{"a\u0000\ud800":-0.0e+1,"b":[true,false,null,{}]},"choices":[]}`,
	`{"id":"r","x":tru,"choices":[]}`,
	`{"id":"r","x":-,"choices":[]}`,
	`{"id":"r","x":1.,"choices":[]}`,
	`{"id":"r","x":"\x","choices":[]}`,
	`{"id":"r","x":"\u12","choices":[]}`,
	`null`,
	`[]`,
	`"x"`,
	`{}`,
	``,
	`   `,
}

// oracleBodies is every stream the differential tests start from: the
// recordings, the benchmark stream, the tool-argument fuzz seeds and the
// hand-written chunks, each alone in a stream.
func oracleBodies(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for name, body := range streamBodies(t) {
		out[name] = []byte(body)
	}
	if b, ok := t.(*testing.B); ok {
		out["bench"] = benchStream(b)
	}
	for i, args := range []string{`{"location":"Florence, Italy"}`, "```json\n{\"k\":1}\n```", `{"a":1,}`, `"{\"k\":1}"`, `[1,2]`, "\xff\xfe", `{"emoji":"☃ 😀"}`} {
		out[fmt.Sprintf("args#%d", i)] = []byte(toolArgsStream(args, 123456789, false))
		out[fmt.Sprintf("args-object#%d", i)] = []byte(toolArgsStream(args, 0, true))
	}
	for i, c := range oracleChunks {
		out[fmt.Sprintf("chunk#%d", i)] = []byte(sse(`{"id":"r0","choices":[{"index":0,"delta":{"content":"before"}}]}`, c))
	}
	return out
}

// TestParseMatchesOracle checks that the fast chunk path changes nothing:
// every recording and hand-written edge case, and every recording with one
// chunk cut short at every third byte or with such a byte replaced by a
// structural character, yields the same events and the same error as the
// oracle.
func TestParseMatchesOracle(t *testing.T) {
	for name, body := range oracleBodies(t) {
		if err := matchOracle(body); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	step := 3
	if raceEnabled || testing.Short() {
		step = 13
	}
	for name, body := range streamBodies(t) {
		variants := 0
		for _, m := range mutations(body, step) {
			variants++
			if err := matchOracle(m); err != nil {
				t.Fatalf("%s, variant %d %q: %v", name, variants, m, err)
			}
		}
		if variants < len(body)/step {
			t.Fatalf("%s: only %d variants", name, variants)
		}
	}
}

// mutations returns variants of a stream: each data line cut at every
// step-th byte (the stream stopping there), and each such byte replaced by
// a character that changes the JSON structure.
func mutations(body string, step int) [][]byte {
	var out [][]byte
	for off := 0; off < len(body); {
		line := strings.IndexByte(body[off:], '\n')
		if line < 0 {
			break
		}
		end := off + line
		if strings.HasPrefix(body[off:], "data: {") {
			for k := off + len("data: "); k < end; k += step {
				out = append(out, []byte(body[:k]+"\n\n"))
				c := `"\}],:0-n{[ ` + "\x80"
				r := c[k%len(c)]
				out = append(out, []byte(body[:k]+string(r)+body[k+1:]))
			}
		}
		off = end + 1
	}
	return out
}

// FuzzParseMatchesOracle is the differential fuzz target: for any bytes,
// the parser and the oracle yield the same events and the same error.
func FuzzParseMatchesOracle(f *testing.F) {
	for _, body := range oracleBodies(f) {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := matchOracle(body); err != nil {
			t.Fatal(err)
		}
	})
}
