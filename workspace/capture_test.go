package workspace

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
		trunc  bool
	}{
		{name: "fits", max: 10, writes: []string{"abc", "de"}, want: "abcde"},
		{name: "exactly", max: 4, writes: []string{"ab", "cd"}, want: "abcd"},
		{name: "one big write", max: 4, writes: []string{"0123456789"}, want: "01" + marker(6, 10, 2, 2) + "89", trunc: true},
		{name: "ring wraps", max: 6, writes: []string{"abc", "def", "ghi", "jk"}, want: "abc" + marker(5, 11, 3, 3) + "ijk", trunc: true},
		{name: "many small", max: 4, writes: strings.Split("abcdefgh", ""), want: "ab" + marker(4, 8, 2, 2) + "gh", trunc: true},
	}
	for _, tt := range tests {
		b := newHeadTail(tt.max)
		for _, w := range tt.writes {
			if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("%s: Write = %d, %v", tt.name, n, err)
			}
		}
		got, trunc := b.Result()
		if got != tt.want || trunc != tt.trunc {
			t.Errorf("%s: Result = %q, %v; want %q, %v", tt.name, got, trunc, tt.want, tt.trunc)
		}
	}
}

// marker spells out the truncation marker the model sees.
func marker(omitted, total, head, tail int) string {
	return fmt.Sprintf("\n\n[... %d bytes of output omitted (%d bytes in total); showing the first %d and last %d bytes ...]\n\n",
		omitted, total, head, tail)
}

func TestHeadTailKeepsUTF8Whole(t *testing.T) {
	b := newHeadTail(8)
	// 3-byte runes: both cuts land inside one.
	b.Write([]byte(strings.Repeat("€", 10)))
	got, trunc := b.Result()
	if !trunc || !utf8.ValidString(got) {
		t.Errorf("Result = %q (valid=%v), truncated=%v", got, utf8.ValidString(got), trunc)
	}
}

func TestHeadTailConcurrentWrites(t *testing.T) {
	b := newHeadTail(1 << 10)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				b.Write([]byte("0123456789"))
			}
		}()
	}
	wg.Wait()
	if b.Total() != 40000 {
		t.Errorf("Total = %d", b.Total())
	}
}

func BenchmarkHeadTail10MB(b *testing.B) {
	chunk := []byte(strings.Repeat("x", 32<<10))
	b.SetBytes(10 << 20)
	b.ReportAllocs()
	for b.Loop() {
		h := newHeadTail(64 << 10)
		for range (10 << 20) / len(chunk) {
			h.Write(chunk)
		}
		_, _ = h.Result()
	}
}
