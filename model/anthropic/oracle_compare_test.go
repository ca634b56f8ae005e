package anthropic_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/modeltest"
)

// matchOracle decodes body with the stream decoder and with the oracle
// (the decoder as it was before the fast event path) and reports any
// difference in the events, or in the error: its text, its type and the
// sentinels it wraps.
func matchOracle(body []byte) error {
	want, wantErr := drain(anthropic.OracleStreamEvents(bytes.NewReader(body)))
	got, gotErr := drain(anthropic.StreamEvents(bytes.NewReader(body)))
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("events differ (-oracle +new):\n%s", cmp.Diff(want, got))
	}
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || fmt.Sprintf("%T", wantErr) != fmt.Sprintf("%T", gotErr) {
		return fmt.Errorf("errors differ:\noracle: %v\nnew:    %v", wantErr, gotErr)
	}
	for _, sentinel := range []error{anthropic.ErrMalformedResponse, model.ErrIncompleteStream} {
		if errors.Is(wantErr, sentinel) != errors.Is(gotErr, sentinel) {
			return fmt.Errorf("errors.Is(%v) differs: oracle %v, new %v", sentinel, wantErr, gotErr)
		}
	}
	return nil
}

// oracleEvents are hand-written events at the edges of the fast path, each
// placed inside a started text block and a started tool_use block: the
// shapes it declines (objects it leaves to the general decoder, a stop
// reason, duplicates, escaped names, odd numbers and types, invalid UTF-8,
// lone surrogates) and the ones it decodes itself.
var oracleEvents = []string{
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2603\ud83d\ude00\u0000"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\udc00"}}`,
	"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"bad \xff\"}}",
	"{\"type\":\"content_block_delta\",\"index\":0,\"x\":\"\xff\",\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}",
	"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\x1f\"}}",
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","text":"y"}}`,
	`{"type":"content_block_delta","index":0,"index":1,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","type":"ping","index":0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"},"delta":{"text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","te\u0078t":"x"}}`,
	`{"t\u0079pe":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":null,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0.0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":1e1,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":99999999999999999999,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":null,"text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":null}`,
	`{"type":"content_block_delta","index":0,"delta":[]}`,
	`{"type":null,"index":0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": \"\\u00e9\""}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":null}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":{"a":1}}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a","partial_json":"b"}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"a":[1,2,{"b":null}]}}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"stop_reason":"end_turn"}}`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`,
	`{"type":"message_delta","delta":{"stop_reason":null},"usage":null}`,
	`{"type":"content_block_stop","index":0}`,
	`{"type":"content_block_stop","index":1}`,
	`{"type":"content_block_stop","index":7}`,
	`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"hi"}}`,
	`{"type":"content_block_start","index":2,"content_block":null}`,
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
	`{"type":"error","error":null}`,
	`{"type":"ping"}`,
	`{"type":"message_stop"}`,
	`{"type":"message_start","message":null}`,
	`{"type":"future_event","x":{"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} trailing`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}{}`,
	`  {  "type" : "content_block_delta" , "index" : 0 , "delta" : { "type" : "text_delta" , "text" : "x" }  }   `,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},}`,
	`{"type":"content_block_delta","index":0,"x":-0.5e-3,"y":[true,false,null],"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"x":tru}`,
	`{"type":"content_block_delta","index":0,"x":"\u12"}`,
	`{"type":"content_block_delta","index":0,"x":01}`,
	`null`,
	`[]`,
	`{}`,
	`"x"`,
	`7`,
}

// oracleBodies is every stream the differential tests start from: the
// recordings, the benchmark stream and the hand-written events, each after
// a started text block and tool_use block.
func oracleBodies(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for name, body := range recordedStreams(t) {
		out[name] = []byte(body)
	}
	if b, ok := t.(*testing.B); ok {
		out["bench"] = bigStream(b)
	}
	out["garbage"] = []byte(modeltest.GarbageBody)
	for i, ev := range oracleEvents {
		name := "x"
		if i%2 == 1 {
			name = "content_block_delta" // the type falls back to the SSE name when absent
		}
		out[fmt.Sprintf("event#%d", i)] = []byte(sse(evStart, evTextStart, toolStart(1, "toolu_1", "f"),
			jsonDelta(1, `{"k":`), name+" "+ev, evStop0, blockStop(1), evEndTurn, evMsgStop))
	}
	return out
}

// TestStreamMatchesOracle checks that the fast event path changes
// nothing: every recording and hand-written edge case, and every recording
// with one event cut short at each byte or with a byte replaced by a
// structural character, yields the same events and the same error as the
// oracle.
func TestStreamMatchesOracle(t *testing.T) {
	for name, body := range oracleBodies(t) {
		if err := matchOracle(body); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	step := 1
	if raceEnabled || testing.Short() {
		step = 7
	}
	for name, body := range recordedStreams(t) {
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

// FuzzStreamMatchesOracle is the differential fuzz target: for any bytes,
// the decoder and the oracle yield the same events and the same error.
func FuzzStreamMatchesOracle(f *testing.F) {
	for _, body := range oracleBodies(f) {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := matchOracle(body); err != nil {
			t.Fatal(err)
		}
	})
}
