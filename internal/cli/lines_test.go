package cli

import (
	"strings"
	"testing"
	"testing/iotest"

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
			got := collect(readLines(strings.NewReader(tt.in)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			// Byte-at-a-time reads give the same lines.
			got = collect(readLines(iotest.OneByteReader(strings.NewReader(tt.in))))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("one-byte reads (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadLinesReadError(t *testing.T) {
	got := collect(readLines(iotest.DataErrReader(iotest.ErrReader(iotest.ErrTimeout))))
	if diff := cmp.Diff([]string{"ERR reading input: timeout"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
