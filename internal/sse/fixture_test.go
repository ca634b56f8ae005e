package sse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// cassette is the part of a go-vcr cassette the tests need: the raw
// response bodies, which keep the server-sent-events stream byte for byte.
type cassette struct {
	Interactions []struct {
		Response struct {
			Body string `yaml:"body"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// recordedStream returns the concatenated streaming response bodies of a
// recorded cassette in testdata.
func recordedStream(tb testing.TB, name string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatalf("read fixture: %v", err)
	}
	var c cassette
	if err := yaml.Unmarshal(raw, &c); err != nil {
		tb.Fatalf("parse fixture %s: %v", name, err)
	}
	var out []byte
	for _, it := range c.Interactions {
		if strings.Contains(it.Response.Body, "data:") {
			out = append(out, it.Response.Body...)
		}
	}
	if len(out) == 0 {
		tb.Fatalf("fixture %s has no event-stream body", name)
	}
	return out
}

// repeatTo repeats body until the result is at least n bytes long.
func repeatTo(body []byte, n int) []byte {
	out := make([]byte, 0, n+len(body))
	for len(out) < n {
		out = append(out, body...)
	}
	return out
}

// testEvent is Event with Data as a string, so results can be kept after
// the decoder reuses its buffer and compared with cmp.
type testEvent struct {
	Type, Data, ID string
}

// decodeAll reads every event from r and returns them with the terminal
// error (io.EOF for a clean end).
func decodeAll(r io.Reader, maxEvent int) ([]testEvent, error) {
	d := NewDecoderSize(r, maxEvent)
	var evs []testEvent
	for range 1 << 20 {
		ev, err := d.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, testEvent{Type: ev.Type, Data: string(ev.Data), ID: ev.ID})
	}
	return evs, errors.New("decoder did not stop")
}

// errClass reduces an error to the sentinel a caller would test for, so
// errors from differently split reads can be compared.
func errClass(err error) error {
	for _, target := range []error{io.ErrUnexpectedEOF, ErrEventTooLarge, io.EOF, io.ErrNoProgress} {
		if errors.Is(err, target) {
			return target
		}
	}
	return err
}

// splitReader returns the first k bytes of its data in one Read and the
// rest in the next, to place a buffer boundary at an exact offset.
type splitReader struct {
	data []byte
	k    int
	off  int
}

func (s *splitReader) Read(p []byte) (int, error) {
	if s.off >= len(s.data) {
		return 0, io.EOF
	}
	limit := len(s.data)
	if s.off < s.k {
		limit = s.k
	}
	n := copy(p, s.data[s.off:limit])
	s.off += n
	return n, nil
}

// withLineEndings rewrites every "\n" in an LF stream to eol.
func withLineEndings(b []byte, eol string) []byte {
	return bytes.ReplaceAll(b, []byte("\n"), []byte(eol))
}
