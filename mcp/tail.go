package mcp

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// tailBuffer keeps the last max bytes written to it: the end of a server's
// stderr, which is where the reason for a failure usually is. It is safe
// for concurrent use.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	max   int
	total int64
}

func newTail(max int) *tailBuffer { return &tailBuffer{max: max} }

// Write implements io.Writer; it never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String returns the kept text, trimmed, starting at a line boundary when
// older output was dropped, with invalid UTF-8 and control characters
// (other than newlines and tabs) replaced so that it is safe to print.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	b := string(t.buf)
	dropped := t.total > int64(len(t.buf))
	t.mu.Unlock()
	if dropped {
		if i := strings.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return printable(strings.TrimSpace(b))
}

// lastLines returns at most n trailing lines of s joined with " | ", for a
// one-line message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, " | ")
}

// printable replaces invalid UTF-8 and control characters other than
// newline and tab, so that text from a server cannot garble a terminal.
func printable(s string) string {
	ok := true
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteRune('\uFFFD')
		case (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
