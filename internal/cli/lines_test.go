package cli

import (
	"context"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func collect(ch <-chan inputLine) []string {
	var got []string
	for in := range ch {
		if in.err != nil {
			got = append(got, "ERR "+in.err.Error())
			continue
		}
		got = append(got, in.text)
	}
	return got
}

func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", maxChatLine+100)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"plain", "a\nb\n", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"final line without newline", "a\nb", []string{"a", "b"}},
		{"empty lines kept", "a\n\nb\n", []string{"a", "", "b"}},
		{"empty input", "", nil},
		{"overlong line skipped", "a\n" + long + "\nb\n", []string{"a", "ERR input line longer than 1024 KiB ignored", "b"}},
		{"overlong final line", long, []string{"ERR input line longer than 1024 KiB ignored"}},
		{"exactly at the limit", strings.Repeat("y", maxChatLine) + "\n", []string{strings.Repeat("y", maxChatLine)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collect(readLines(t.Context(), strings.NewReader(tt.in)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			// Byte-at-a-time reads give the same lines.
			got = collect(readLines(t.Context(), iotest.OneByteReader(strings.NewReader(tt.in))))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("one-byte reads (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadLinesReadError(t *testing.T) {
	got := collect(readLines(t.Context(), iotest.DataErrReader(iotest.ErrReader(iotest.ErrTimeout))))
	if diff := cmp.Diff([]string{"ERR reading input: timeout"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// endless is an input that never ends: line after line.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "ab\n"[i%3]
	}
	return len(p), nil
}

func TestReadLinesStopsWhenNobodyListens(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ch := readLines(ctx, endless{})
	if in := <-ch; in.text != "ab" {
		t.Fatalf("first line = %+v", in)
	}
	cancel()
	// The input never ends, so only the cancellation can close the
	// channel; keep receiving to show it does even with a reader waiting.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the reader goroutine did not stop after cancellation")
		}
	}
}
