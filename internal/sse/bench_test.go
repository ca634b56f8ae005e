package sse

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// benchStreamSize is the size of the benchmark stream: the recorded
// response bodies repeated to about 2 MB, as DESIGN.md's comparison uses.
const benchStreamSize = 2 << 20

// scannerDecode is the straightforward decoder most SSE clients ship: a
// bufio.Scanner over lines, strings for fields, a fresh data string per
// event. It only understands "\n" and "\r\n" line ends. It is here to keep
// the performance claim of Decoder honest, side by side in one process.
func scannerDecode(r io.Reader, visit func(typ, data string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), DefaultMaxEvent)
	var typ string
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(data) > 0 {
				visit(typ, strings.Join(data, "\n"))
			}
			typ, data = "", data[:0]
		case strings.HasPrefix(line, ":"):
		default:
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "data":
				data = append(data, value)
			case "event":
				typ = value
			}
		}
	}
	return sc.Err()
}

func benchStream(b *testing.B, fixture string) []byte {
	return repeatTo(recordedStream(b, fixture), benchStreamSize)
}

var benchFixtures = []struct{ name, file string }{
	{"openai", "openai_multi_tool_streaming.yaml"},
	{"anthropic", "anthropic_multi_tool_streaming.yaml"},
}

// BenchmarkDecode measures Decoder on about 2 MB of recorded model stream.
func BenchmarkDecode(b *testing.B) {
	for _, fx := range benchFixtures {
		b.Run(fx.name, func(b *testing.B) {
			stream := benchStream(b, fx.file)
			r := bytes.NewReader(stream)
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(stream)
				d := NewDecoder(r)
				n := 0
				for {
					ev, err := d.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n += len(ev.Data)
				}
				if n == 0 {
					b.Fatal("no data decoded")
				}
			}
		})
	}
}

// BenchmarkDecodeScanner measures the naive bufio.Scanner decoder on the
// same input, for comparison with BenchmarkDecode.
func BenchmarkDecodeScanner(b *testing.B) {
	for _, fx := range benchFixtures {
		b.Run(fx.name, func(b *testing.B) {
			stream := benchStream(b, fx.file)
			r := bytes.NewReader(stream)
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(stream)
				n := 0
				if err := scannerDecode(r, func(_, data string) { n += len(data) }); err != nil {
					b.Fatal(err)
				}
				if n == 0 {
					b.Fatal("no data decoded")
				}
			}
		})
	}
}

// TestScannerBaselineAgrees makes sure the benchmark compares equal work:
// the baseline must see the same events as Decoder on the recordings.
func TestScannerBaselineAgrees(t *testing.T) {
	for _, fx := range benchFixtures {
		stream := recordedStream(t, fx.file)
		want, _ := decodeAll(bytes.NewReader(stream), 0)
		var got []testEvent
		if err := scannerDecode(bytes.NewReader(stream), func(typ, data string) {
			got = append(got, testEvent{Type: typ, Data: data})
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: baseline saw %d events, Decoder %d", fx.name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: event %d: baseline %+v, Decoder %+v", fx.name, i, got[i], want[i])
			}
		}
	}
}
