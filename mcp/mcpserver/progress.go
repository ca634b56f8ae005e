package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// Bounds on the progress a call forwards, so a command printing without
// pause cannot flood the client: output is batched per interval, each
// notification carries at most progressChunk bytes, and a call forwards at
// most progressBudget bytes in all (the result still has the output, under
// the result cap).
const (
	progressInterval = 100 * time.Millisecond
	progressChunk    = 4 << 10
	progressBudget   = 256 << 10
)

// progressSink forwards a tool's tool.ReportProgress text (run_command's
// output lines) as notifications/progress carrying the client's
// progressToken. Text is buffered and sent from one goroutine, so the tool
// never waits on the connection.
type progressSink struct {
	notify func(context.Context, *sdk.ProgressNotificationParams) error
	token  any

	mu      sync.Mutex
	buf     []byte
	dropped int  // bytes not forwarded once the budget is spent
	sent    int  // bytes forwarded, the notifications' progress value
	closed  bool // no more text is accepted
	wake    chan struct{}
	done    chan struct{}
}

// withProgress returns ctx with a progress function forwarding to the
// client when the request carries a progressToken, and a stop function
// that flushes what is left; without a token the context is unchanged.
func withProgress(ctx context.Context, req *sdk.CallToolRequest) (context.Context, func()) {
	if req == nil || req.Params == nil || req.Session == nil {
		return ctx, func() {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return ctx, func() {}
	}
	p := &progressSink{notify: req.Session.NotifyProgress, token: token,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.run(ctx)
	return tool.WithProgress(ctx, p.add), p.stop
}

// add buffers text; it never blocks on the client.
func (p *progressSink) add(text string) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	room := progressBudget - p.sent - len(p.buf)
	if room < len(text) {
		if room < 0 {
			room = 0
		}
		p.dropped += len(text) - room
		text = text[:room]
	}
	p.buf = append(p.buf, text...)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// stop flushes the buffer and waits for the sender, so every notification
// precedes the call's result.
func (p *progressSink) stop() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	<-p.done
}

// run sends batches at most once per interval until stopped.
func (p *progressSink) run(ctx context.Context) {
	defer close(p.done)
	for {
		<-p.wake
		closed := p.flush(ctx)
		if closed {
			return
		}
		select {
		case <-time.After(progressInterval):
		case <-ctx.Done():
			// The call is ending; stop will wake us for the last flush.
		}
	}
}

// flush sends what is buffered, in chunks, and reports whether the sink
// is closed (after sending everything).
func (p *progressSink) flush(ctx context.Context) bool {
	for {
		p.mu.Lock()
		chunk := takeChunk(&p.buf, progressChunk)
		closed := p.closed
		if len(chunk) == 0 && closed && p.dropped > 0 {
			chunk = []byte(fmt.Sprintf("… %d more bytes of output not forwarded as progress (the result has them)\n", p.dropped))
			p.dropped = 0
		}
		p.sent += len(chunk)
		progress := p.sent
		p.mu.Unlock()
		if len(chunk) == 0 {
			return closed
		}
		// A client gone or a stream closed only loses progress; the call
		// goes on and its result says the rest.
		_ = p.notify(ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(progress), Message: string(chunk)})
	}
}

// takeChunk removes up to max bytes from the front of *buf, cutting only
// between UTF-8 characters.
func takeChunk(buf *[]byte, max int) []byte {
	b := *buf
	n := len(b)
	if n > max {
		n = max
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		if n == 0 {
			n = max
		}
	}
	chunk := append([]byte(nil), b[:n]...)
	*buf = b[n:]
	return chunk
}
