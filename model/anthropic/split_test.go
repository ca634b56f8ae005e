package anthropic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/anthropic"
	"github.com/reinharness/rein/model/modeltest"
)

// recordedStreams returns every streamed response body in the recordings,
// keyed by file and interaction.
func recordedStreams(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../modeltest/testdata/fantasy/TestAnthropic*/claude-sonnet-4/*streaming.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no streamed recordings found (%v)", err)
	}
	out := make(map[string]string)
	for _, f := range files {
		c, err := modeltest.LoadCassette(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range c.Interactions {
			out[filepath.Base(f)+"#"+itoa(in.ID)] = in.Response.Body
		}
	}
	return out
}

// splitReader returns its data in two reads: the first k bytes, then the
// rest, so that every event, line and JSON value can be cut at any byte.
type splitReader struct {
	data []byte
	k    int
	n    int // reads so far
}

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	end := len(r.data)
	if r.n == 0 {
		end = min(r.k, end)
	}
	r.n++
	n := copy(p, r.data[:end])
	r.data = r.data[n:]
	return n, nil
}

// TestStreamSplitAnywhere is the property that the event stream a
// provider yields does not depend on how the network chunked the bytes.
// Every recorded stream is read one byte at a time (a cut at every
// boundary at once) and in half-size reads; the richest one (thinking,
// signature and a streamed tool call) is also split into two reads at
// every byte boundary. Each must yield exactly the events of the whole
// stream.
func TestStreamSplitAnywhere(t *testing.T) {
	const exhaustive = "thinking-streaming.yaml#0"
	streams := recordedStreams(t)
	if _, ok := streams[exhaustive]; !ok {
		t.Fatalf("recording %s not found", exhaustive)
	}
	for name, body := range streams {
		t.Run(name, func(t *testing.T) {
			want, err := drain(anthropic.StreamEvents(strings.NewReader(body)))
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || want[len(want)-1].Kind != model.EventStop {
				t.Fatalf("recorded stream does not end with stop: %v", want)
			}
			check := func(how string, r io.Reader) {
				got, err := drain(anthropic.StreamEvents(r))
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s: events differ (-whole +split):\n%s", how, diff)
				}
			}
			check("one byte at a time", iotest.OneByteReader(strings.NewReader(body)))
			check("half-size reads", iotest.HalfReader(strings.NewReader(body)))
			if name != exhaustive {
				return
			}
			step := 1
			if testing.Short() {
				step = 7
			}
			for k := 0; k <= len(body); k += step {
				check("split at "+itoa(k), &splitReader{data: []byte(body), k: k})
			}
		})
	}
}

// goTypeNames matches Go type and decoder names, which must never reach
// an error about what a server sent.
var goTypeNames = regexp.MustCompile(`Go (struct|value|type|int|string|\[\])|anthropic\.wire|\*json\.|json: cannot|jsontext:`)

// FuzzStreamEvents feeds arbitrary bytes to the stream decoder and state
// machine. It must never panic, and whatever it yields must keep the
// Provider contract: complete tool calls with object arguments, at most
// one stop and only as the last event, an error or a stop at the end, and
// the same result however the bytes are chunked.
func FuzzStreamEvents(f *testing.F) {
	for _, body := range recordedStreams(f) {
		f.Add([]byte(body), uint16(len(body)/2))
	}
	for _, body := range []string{
		"",
		"data: {}\n\n",
		sse(evStart, toolStart(0, "t", "f"), jsonDelta(0, `{"a":`), jsonDelta(0, `1}`), blockStop(0), evMsgStop),
		sse(evStart, toolStart(0, "t", "f"), jsonDelta(0, `{"a":`), blockStop(0)),
		sse(evStart, `content_block_start {"type":"content_block_start","index":-1,"content_block":{"type":"thinking"}}`, `content_block_stop {"type":"content_block_stop","index":-1}`, evMsgStop),
		sse(evStart, `content_block_start {"type":"content_block_start","index":99999999999,"content_block":{"type":"text"}}`),
		sse(`error {"type":"error","error":{"type":"overloaded_error","message":"x-api-key: sk-ant-123"}}`),
		sse(evStart, `message_delta {"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":-5}}`, evMsgStop),
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}",
		modeltest.GarbageBody,
	} {
		f.Add([]byte(body), uint16(3))
	}
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		got, gotErr := drain(anthropic.StreamEvents(bytes.NewReader(body)))
		stops := 0
		for i, ev := range got {
			switch ev.Kind {
			case model.EventStop:
				stops++
				if i != len(got)-1 {
					t.Fatalf("stop at %d of %d events", i, len(got))
				}
			case model.EventToolCall:
				c := ev.ToolCall
				if c == nil || c.ID == "" || c.Name == "" {
					t.Fatalf("incomplete tool call %+v", c)
				}
				// Args are a compact JSON object, or the model's input
				// passed through because it is none.
				var obj map[string]any
				if err := json.Unmarshal(c.Args, &obj); err == nil && obj != nil {
					var compact bytes.Buffer
					if json.Compact(&compact, c.Args) != nil || compact.String() != string(c.Args) {
						t.Fatalf("tool call object args %q are not compacted", c.Args)
					}
				} else if len(bytes.TrimSpace(c.Args)) == 0 || bytes.HasPrefix(bytes.TrimSpace(c.Args), []byte("{")) && json.Valid(c.Args) {
					t.Fatalf("tool call args %q passed through though they are an object or empty", c.Args)
				}
			case model.EventToolCallStart:
				if c := ev.ToolCall; c == nil || c.ID == "" || c.Name == "" || c.Args != nil {
					t.Fatalf("tool call start %+v: want an id, a name and no args", c)
				}
			case model.EventUsage:
				if ev.Usage == nil {
					t.Fatal("usage event without usage")
				}
			}
		}
		if gotErr == nil && stops != 1 {
			t.Fatalf("stream ended without error and with %d stops", stops)
		}
		if gotErr != nil && stops != 0 {
			t.Fatalf("stream both stopped and failed: %v", gotErr)
		}
		if gotErr != nil && goTypeNames.MatchString(gotErr.Error()) {
			t.Fatalf("error names Go types instead of describing the data: %v", gotErr)
		}
		k := int(cut) % (len(body) + 1)
		again, againErr := drain(anthropic.StreamEvents(&splitReader{data: body, k: k}))
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("split at %d changes the events (-whole +split):\n%s", k, diff)
		}
		if (gotErr == nil) != (againErr == nil) {
			t.Fatalf("split at %d changes the outcome: %v vs %v", k, gotErr, againErr)
		}
	})
}
