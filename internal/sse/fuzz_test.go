package sse

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// fuzzMaxEvent is small so the fuzzer reaches the size limit and the
// buffer-growth path with short inputs.
const fuzzMaxEvent = 256

// FuzzDecoder checks that no input makes the decoder panic, that no event
// exceeds the limit, and that how the input is split into reads never
// changes the events or the kind of error at the end.
func FuzzDecoder(f *testing.F) {
	seeds := []string{
		"data: hello\n\n",
		"event: a\r\ndata: x\r\n\r\n",
		"data: x\rdata: y\r\r",
		": comment\ndata\n\nid: 1\x00\ndata: z\n\n",
		"\xEF\xBB\xBFdata: a\n\n",
		"data: a\n\ndata: b",
		"retry: 10\nevent\n\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint16(3))
	}
	f.Add(recordedStream(f, "openai_multi_tool_streaming.yaml")[:2000], uint16(977))
	f.Add(recordedStream(f, "anthropic_multi_tool_streaming.yaml")[:2000], uint16(1201))

	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		want, wantErr := decodeAll(bytes.NewReader(in), fuzzMaxEvent)
		for _, ev := range want {
			if len(ev.Data) > fuzzMaxEvent {
				t.Fatalf("event of %d bytes passed a %d-byte limit", len(ev.Data), fuzzMaxEvent)
			}
		}
		if wantErr == nil || !isKnownEnd(wantErr) {
			t.Fatalf("unexpected terminal error %v", wantErr)
		}
		readers := map[string]io.Reader{
			"split":    &splitReader{data: in, k: int(split) % (len(in) + 1)},
			"one-byte": iotest.OneByteReader(bytes.NewReader(in)),
		}
		for name, r := range readers {
			got, err := decodeAll(r, fuzzMaxEvent)
			if errClass(err) != errClass(wantErr) {
				t.Fatalf("%s: error %v, whole read gave %v", name, err, wantErr)
			}
			if slices.Equal(want, got) {
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: events differ from a whole read (-want +got):\n%s", name, diff)
			}
		}
	})
}

// isKnownEnd reports whether err is one of the ways a stream from an
// in-memory reader may end.
func isKnownEnd(err error) bool {
	return err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrEventTooLarge)
}
