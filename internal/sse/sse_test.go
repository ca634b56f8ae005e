package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDecoder(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		want    []testEvent
		wantErr error
	}{
		{name: "empty stream", in: "", wantErr: io.EOF},
		{name: "only blank lines", in: "\n\n\r\n\r", wantErr: io.EOF},
		{name: "single event LF", in: "data: hello\n\n", want: []testEvent{{Data: "hello"}}, wantErr: io.EOF},
		{name: "CRLF", in: "event: a\r\ndata: x\r\n\r\ndata: y\r\n\r\n",
			want: []testEvent{{Type: "a", Data: "x"}, {Data: "y"}}, wantErr: io.EOF},
		{name: "CR only", in: "data: x\rdata: y\r\rdata: z\r\r",
			want: []testEvent{{Data: "x\ny"}, {Data: "z"}}, wantErr: io.EOF},
		{name: "mixed line endings", in: "data: a\r\ndata: b\rdata: c\n\r\n",
			want: []testEvent{{Data: "a\nb\nc"}}, wantErr: io.EOF},
		{name: "CR CR is two line ends", in: "data: a\r\r",
			want: []testEvent{{Data: "a"}}, wantErr: io.EOF},
		{name: "LF CR is two line ends", in: "data: a\n\r",
			want: []testEvent{{Data: "a"}}, wantErr: io.EOF},
		{name: "comments", in: ": keep-alive\ndata: a\n: inside\ndata: b\n\n:\n\n",
			want: []testEvent{{Data: "a\nb"}}, wantErr: io.EOF},
		{name: "multi-line data", in: "data: {\ndata: \"k\": 1\ndata: }\n\n",
			want: []testEvent{{Data: "{\n\"k\": 1\n}"}}, wantErr: io.EOF},
		{name: "leading empty data line", in: "data\ndata: x\n\n",
			want: []testEvent{{Data: "\nx"}}, wantErr: io.EOF},
		{name: "BOM skipped", in: "\xEF\xBB\xBFdata: a\n\n",
			want: []testEvent{{Data: "a"}}, wantErr: io.EOF},
		{name: "second BOM is not skipped", in: "\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n",
			want: []testEvent{{Data: "a"}}, wantErr: io.EOF},
		{name: "BOM alone", in: "\xEF\xBB\xBF", wantErr: io.EOF},
		{name: "partial BOM is a field", in: "\xEF\xBBdata: a\n\n", wantErr: io.EOF},
		{name: "missing trailing blank line", in: "data: a\n\ndata: b\n",
			want: []testEvent{{Data: "a"}}, wantErr: io.ErrUnexpectedEOF},
		{name: "unterminated data line", in: "data: {\"partial", wantErr: io.ErrUnexpectedEOF},
		{name: "unterminated field name", in: "data: a\n\nda", want: []testEvent{{Data: "a"}}, wantErr: io.ErrUnexpectedEOF},
		{name: "unterminated comment is clean", in: "data: a\n\n: bye", want: []testEvent{{Data: "a"}}, wantErr: io.EOF},
		{name: "trailing event-only block is a truncation", in: "data: a\n\nevent: x\n", want: []testEvent{{Data: "a"}}, wantErr: io.ErrUnexpectedEOF},
		{name: "trailing comment after blank line is clean", in: "data: a\n\n: done\n", want: []testEvent{{Data: "a"}}, wantErr: io.EOF},
		{name: "empty data with colon", in: "data:\n\n", want: []testEvent{{Data: ""}}, wantErr: io.EOF},
		{name: "empty data without colon", in: "data\n\n", want: []testEvent{{Data: ""}}, wantErr: io.EOF},
		{name: "two empty data lines", in: "data\ndata\n\n", want: []testEvent{{Data: "\n"}}, wantErr: io.EOF},
		{name: "event-only block dropped and type not leaked", in: "event: ping\n\ndata: x\n\n",
			want: []testEvent{{Data: "x"}}, wantErr: io.EOF},
		{name: "type resets after dispatch", in: "event: a\ndata: 1\n\ndata: 2\n\n",
			want: []testEvent{{Type: "a", Data: "1"}, {Data: "2"}}, wantErr: io.EOF},
		{name: "last event type wins", in: "event: a\nevent: b\ndata: 1\n\n",
			want: []testEvent{{Type: "b", Data: "1"}}, wantErr: io.EOF},
		{name: "id persists, NUL id ignored, empty id resets", in: "id: 1\ndata: a\n\ndata: b\n\nid: 2\x003\ndata: c\n\nid\ndata: d\n\n",
			want: []testEvent{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}, {ID: "1", Data: "c"}, {Data: "d"}}, wantErr: io.EOF},
		{name: "only one space stripped", in: "data:  two\n\n", want: []testEvent{{Data: " two"}}, wantErr: io.EOF},
		{name: "no space after colon", in: "data:x\n\n", want: []testEvent{{Data: "x"}}, wantErr: io.EOF},
		{name: "colon inside value", in: "data: a: b:c\n\n", want: []testEvent{{Data: "a: b:c"}}, wantErr: io.EOF},
		{name: "tab is not stripped", in: "data:\tx\n\n", want: []testEvent{{Data: "\tx"}}, wantErr: io.EOF},
		{name: "retry and unknown fields ignored", in: "retry: 1000\nfoo: bar\nData: no\ndata: y\n\n",
			want: []testEvent{{Data: "y"}}, wantErr: io.EOF},
		{name: "field names are case sensitive", in: "DATA: x\n\n", wantErr: io.EOF},
		{name: "event at limit", in: "data: 12345678\n\n", max: 8, want: []testEvent{{Data: "12345678"}}, wantErr: io.EOF},
		{name: "joined data over limit", in: "data: 1234\ndata: 5678\n\n", max: 8, wantErr: ErrEventTooLarge},
		{name: "huge single line", in: "data: " + strings.Repeat("x", 4096) + "\n\n", max: 100, wantErr: ErrEventTooLarge},
		{name: "huge comment line", in: ":" + strings.Repeat("x", 4096) + "\n\ndata: a\n\n", max: 100, wantErr: ErrEventTooLarge},
		{name: "many small events under limit", in: strings.Repeat("data: 1234567\n\n", 100), max: 8,
			want: repeatEvents(testEvent{Data: "1234567"}, 100), wantErr: io.EOF},
		{name: "long line grows buffer", in: "data: " + strings.Repeat("y", 3*initialBuffer) + "\n\n",
			want: []testEvent{{Data: strings.Repeat("y", 3*initialBuffer)}}, wantErr: io.EOF},
		{name: "NUL and invalid UTF-8 pass through", in: "data: \x00\xff\n\n",
			want: []testEvent{{Data: "\x00\xff"}}, wantErr: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := map[string]io.Reader{
				"whole":    strings.NewReader(tt.in),
				"one-byte": iotest.OneByteReader(strings.NewReader(tt.in)),
				"data-err": iotest.DataErrReader(strings.NewReader(tt.in)),
			}
			for rname, r := range readers {
				got, err := decodeAll(r, tt.max)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: events mismatch (-want +got):\n%s", rname, diff)
				}
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("%s: error = %v, want %v", rname, err, tt.wantErr)
				}
			}
		})
	}
}

func repeatEvents(ev testEvent, n int) []testEvent {
	out := make([]testEvent, n)
	for i := range out {
		out[i] = ev
	}
	return out
}

// TestSplitInvariance feeds real recorded streams, in all three line-ending
// styles, with a read boundary at every byte offset and one byte at a time;
// every way of reading must yield exactly the events of a single read.
func TestSplitInvariance(t *testing.T) {
	for _, name := range []string{"openai_multi_tool_streaming.yaml", "anthropic_multi_tool_streaming.yaml"} {
		lf := recordedStream(t, name)
		for eolName, eol := range map[string]string{"LF": "\n", "CRLF": "\r\n", "CR": "\r"} {
			stream := withLineEndings(lf, eol)
			t.Run(name+"/"+eolName, func(t *testing.T) {
				want, err := decodeAll(bytes.NewReader(stream), 0)
				if err != io.EOF {
					t.Fatalf("whole read: error = %v, want io.EOF", err)
				}
				if len(want) < 10 {
					t.Fatalf("whole read: %d events, the recording has more", len(want))
				}
				got, err := decodeAll(iotest.OneByteReader(bytes.NewReader(stream)), 0)
				if diff := cmp.Diff(want, got); diff != "" || err != io.EOF {
					t.Fatalf("one byte at a time: err %v, events (-want +got):\n%s", err, diff)
				}
				step := 1
				if testing.Short() {
					step = 7
				}
				for k := 0; k <= len(stream); k += step {
					got, err := decodeAll(&splitReader{data: stream, k: k}, 0)
					if slices.Equal(want, got) && err == io.EOF {
						continue // cmp.Diff only on failure: it dominates the run time otherwise
					}
					if diff := cmp.Diff(want, got); diff != "" || err != io.EOF {
						t.Fatalf("split at %d: err %v, events (-want +got):\n%s", k, err, diff)
					}
				}
			})
		}
	}
}

// TestRecordedOpenAI pins what the decoder makes of the recorded OpenAI
// stream: every event is an untyped JSON chunk and each turn ends in [DONE].
func TestRecordedOpenAI(t *testing.T) {
	evs, err := decodeAll(bytes.NewReader(recordedStream(t, "openai_multi_tool_streaming.yaml")), 0)
	if err != io.EOF {
		t.Fatalf("error = %v, want io.EOF", err)
	}
	done := 0
	for i, ev := range evs {
		if ev.Type != "" || ev.ID != "" {
			t.Errorf("event %d: type %q id %q, want untyped events", i, ev.Type, ev.ID)
		}
		switch {
		case ev.Data == "[DONE]":
			done++
		case !strings.HasPrefix(ev.Data, `{"id":"chatcmpl-`) || !strings.HasSuffix(ev.Data, "}"):
			t.Errorf("event %d: data %q is not a whole chunk", i, ev.Data)
		}
	}
	if done != 2 {
		t.Errorf("saw %d [DONE] events, want 2 (one per recorded turn)", done)
	}
}

// TestRecordedAnthropic pins the typed events of the recorded Anthropic stream.
func TestRecordedAnthropic(t *testing.T) {
	evs, err := decodeAll(bytes.NewReader(recordedStream(t, "anthropic_multi_tool_streaming.yaml")), 0)
	if err != io.EOF {
		t.Fatalf("error = %v, want io.EOF", err)
	}
	counts := map[string]int{}
	for i, ev := range evs {
		counts[ev.Type]++
		var body struct{ Type string }
		if err := json.Unmarshal([]byte(ev.Data), &body); err != nil || body.Type != ev.Type {
			t.Errorf("event %d: type %q does not match its data %q (%v)", i, ev.Type, ev.Data, err)
		}
	}
	for _, typ := range []string{"message_start", "message_stop", "content_block_start", "content_block_delta", "content_block_stop", "message_delta"} {
		if counts[typ] == 0 {
			t.Errorf("no %q events decoded; counts %v", typ, counts)
		}
	}
	if counts["message_start"] != counts["message_stop"] {
		t.Errorf("message_start %d != message_stop %d", counts["message_start"], counts["message_stop"])
	}
}

// TestTruncatedRecording cuts a recorded stream at every offset: the result
// must be io.EOF exactly when the cut falls on an event boundary, and the
// events seen must be a prefix of the whole stream's events.
func TestTruncatedRecording(t *testing.T) {
	stream := recordedStream(t, "anthropic_multi_tool_streaming.yaml")
	want, _ := decodeAll(bytes.NewReader(stream), 0)
	for k := 0; k < len(stream); k++ {
		got, err := decodeAll(bytes.NewReader(stream[:k]), 0)
		if len(got) > len(want) || !slices.Equal(want[:len(got)], got) {
			diff := cmp.Diff(want[:min(len(got), len(want))], got, cmpopts.EquateEmpty())
			t.Fatalf("cut at %d: events are not a prefix (-want +got):\n%s", k, diff)
		}
		atBoundary := k == 0 || bytes.HasSuffix(stream[:k], []byte("\n\n"))
		if atBoundary && err != io.EOF {
			t.Fatalf("cut at %d (event boundary): error = %v, want io.EOF", k, err)
		}
		if !atBoundary && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d (inside an event, after %q): error = %v, want io.ErrUnexpectedEOF", k, tail(stream[:k]), err)
		}
	}
}

func tail(b []byte) []byte {
	return b[max(0, len(b)-20):]
}

func TestReadErrorIsReturnedAfterCompleteEvents(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := decodeAll(r, 0)
	if diff := cmp.Diff([]testEvent{{Data: "a"}}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if err != boom {
		t.Errorf("error = %v, want the reader's error unchanged", err)
	}
}

func TestErrorIsSticky(t *testing.T) {
	d := NewDecoderSize(strings.NewReader("data: "+strings.Repeat("x", 64)+"\n\ndata: ok\n\n"), 16)
	_, first := d.Next()
	if !errors.Is(first, ErrEventTooLarge) {
		t.Fatalf("first error = %v, want ErrEventTooLarge", first)
	}
	for range 3 {
		if _, err := d.Next(); err != first {
			t.Fatalf("later error = %v, want the first error %v again", err, first)
		}
	}
}

// stallReader returns (0, nil) forever, which io.Reader discourages.
type stallReader struct{}

func (stallReader) Read([]byte) (int, error) { return 0, nil }

// badReader claims to have read more than it was given room for.
type badReader struct{}

func (badReader) Read(p []byte) (int, error) { return len(p) + 1, nil }

func TestMisbehavingReaders(t *testing.T) {
	if _, err := NewDecoder(stallReader{}).Next(); err != io.ErrNoProgress {
		t.Errorf("stalled reader: error = %v, want io.ErrNoProgress", err)
	}
	if _, err := NewDecoder(badReader{}).Next(); !errors.Is(err, errNegativeRead) {
		t.Errorf("over-reporting reader: error = %v, want errNegativeRead", err)
	}
}

// TestDataReusedUntilNext documents the buffer contract: Data is overwritten
// by the next call, so callers must copy what they keep.
func TestDataReusedUntilNext(t *testing.T) {
	d := NewDecoder(strings.NewReader("data: first\n\ndata: again\n\n"))
	a, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	kept := a.Data
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if string(kept) != "again" {
		t.Errorf("first Data after second Next = %q; the decoder no longer reuses its buffer (update the doc comment)", kept)
	}
}

// TestSteadyStateAllocations guards the hot path: decoding a long recorded
// stream must allocate a bounded number of times, not once per event or line.
func TestSteadyStateAllocations(t *testing.T) {
	stream := repeatTo(recordedStream(t, "anthropic_multi_tool_streaming.yaml"), 1<<20)
	r := bytes.NewReader(stream)
	events := 0
	allocs := testing.AllocsPerRun(5, func() {
		r.Reset(stream)
		d := NewDecoder(r)
		events = 0
		for {
			if _, err := d.Next(); err != nil {
				break
			}
			events++
		}
	})
	if events < 1000 {
		t.Fatalf("decoded only %d events", events)
	}
	if allocs > 20 {
		t.Errorf("%.0f allocations to decode %d events, want a small constant", allocs, events)
	}
}

// TestLiveStreamDoesNotWaitForMoreBytes: on a live connection each event
// must come out as soon as its blank line arrives, also when that line ends
// in a CR whose possible LF has not been sent yet.
func TestLiveStreamDoesNotWaitForMoreBytes(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	d := NewDecoder(pr)
	for _, tc := range []struct{ write, want string }{
		{"data: 1\n\n", "1"},
		{"data: 2\r\r", "2"},
		{"\ndata: 3\r\n\r", "3"}, // the leading LF completes the previous CR
	} {
		go pw.Write([]byte(tc.write))
		got := make(chan string, 1)
		go func() {
			ev, err := d.Next()
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- string(ev.Data)
		}()
		select {
		case g := <-got:
			if g != tc.want {
				t.Fatalf("after writing %q: got %q, want %q", tc.write, g, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("after writing %q: Next is still waiting for more bytes", tc.write)
		}
	}
}
