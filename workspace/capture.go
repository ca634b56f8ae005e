package workspace

import (
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// headTail keeps the first head bytes and the last tail bytes written to
// it, counting everything, so a command that prints 10 MB costs 64 KiB of
// memory and the model still sees how it started and how it ended. It is
// safe for concurrent writes (stdout and stderr share one).
type headTail struct {
	mu    sync.Mutex
	head  []byte
	tail  []byte // ring buffer once full
	start int    // index of the oldest byte in tail when full
	hcap  int
	tcap  int
	total int64
}

func newHeadTail(max int) *headTail {
	h := max / 2
	return &headTail{hcap: h, tcap: max - h}
}

// Write never fails: the command must not get EPIPE because we stopped
// keeping its output.
func (b *headTail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.hcap - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || b.tcap == 0 {
		return n, nil
	}
	if len(p) >= b.tcap {
		b.tail = append(b.tail[:0], p[len(p)-b.tcap:]...)
		b.start = 0
		return n, nil
	}
	if len(b.tail) < b.tcap {
		k := min(b.tcap-len(b.tail), len(p))
		b.tail = append(b.tail, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // ring is full: overwrite the oldest bytes
		k := copy(b.tail[b.start:], p)
		p = p[k:]
		b.start = (b.start + k) % b.tcap
	}
	return n, nil
}

// Result returns the kept output with a marker where bytes were dropped,
// cut on UTF-8 boundaries, and whether anything was dropped.
func (b *headTail) Result() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := append(append([]byte(nil), b.tail[b.start:]...), b.tail[:b.start]...)
	kept := int64(len(b.head) + len(tail))
	if kept == b.total {
		return string(b.head) + string(tail), false
	}
	head := trimPartialEnd(b.head)
	tail = trimPartialStart(tail)
	omitted := b.total - int64(len(head)) - int64(len(tail))
	marker := fmt.Sprintf("\n\n[... %d bytes of output omitted (%d bytes in total); showing the first %d and last %d bytes ...]\n\n",
		omitted, b.total, len(head), len(tail))
	return string(head) + marker + string(tail), true
}

// Total returns the number of bytes written.
func (b *headTail) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// trimPartialEnd drops an incomplete UTF-8 sequence at the end of p.
func trimPartialEnd(p []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < utf8.RuneSelf {
			return p // ASCII: nothing partial after it
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// trimPartialStart drops UTF-8 continuation bytes at the start of p (at
// most UTFMax-1 of them: more than that was never valid UTF-8).
func trimPartialStart(p []byte) []byte {
	i := 0
	for i < utf8.UTFMax-1 && i < len(p) && !utf8.RuneStart(p[i]) {
		i++
	}
	return p[i:]
}

// observed returns w, or a writer that also hands each chunk to fn before
// writing it to w: ExecOptions.OnOutput's live view of what is captured.
func observed(w io.Writer, fn func([]byte)) io.Writer {
	if fn == nil {
		return w
	}
	return observer{w: w, fn: fn}
}

type observer struct {
	w  io.Writer
	fn func([]byte)
}

func (o observer) Write(p []byte) (int, error) {
	if len(p) > 0 {
		o.fn(p)
	}
	return o.w.Write(p)
}
