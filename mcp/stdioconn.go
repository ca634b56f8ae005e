package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxNoiseLines is how many lines of stray text (a banner, a log line
// printed to the wrong stream) a stdio server may write to stdout before
// rein gives up on it. The TypeScript SDK skips such lines forever; rein
// tolerates a few and then fails clearly, so a server that only ever
// writes garbage cannot leave a call hanging until its timeout.
const maxNoiseLines = 8

// errTooLargeCode is the JSON-RPC error code of the response rein
// substitutes for one over the message limit.
const errTooLargeCode = jsonrpc.CodeInternalError

// stdioTransport is an sdk.Transport over a started process.
type stdioTransport struct{ conn *stdioConn }

// Connect implements sdk.Transport.
func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) { return t.conn, nil }

// stdioConn is the JSON-RPC connection to a stdio server: newline-delimited
// JSON on the process's stdin and stdout, each inbound message bounded,
// stray output tolerated a little and garbage reported clearly.
// Read is called by one goroutine at a time, Write may be called
// concurrently, Close may be called at any time and more than once.
type stdioConn struct {
	p     *process
	limit int
	stop  func(*process) // stops the process, asynchronously

	incoming chan jsonrpc.Message
	done     chan struct{} // closed when the read loop has stopped
	readErr  error         // why it stopped; valid after done
	closed   chan struct{}
	closeMu  sync.Once

	writeMu sync.Mutex
	wire    wireMethods // carries task fields past the SDK (taskwire.go)

	mu        sync.Mutex
	noise     int    // non-JSON lines seen
	noiseText string // the first of them
	dropped   int    // oversized messages that could not be answered
}

func newStdioConn(p *process, limit int, stop func(*process)) *stdioConn {
	c := &stdioConn{
		p:        p,
		limit:    limit,
		stop:     stop,
		incoming: make(chan jsonrpc.Message),
		done:     make(chan struct{}),
		closed:   make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// SessionID implements sdk.Connection; stdio has no sessions.
func (c *stdioConn) SessionID() string { return "" }

// Read implements sdk.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.done:
		// Prefer a message that raced with the end of the stream.
		select {
		case m := <-c.incoming:
			return m, nil
		default:
		}
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements sdk.Connection. A server that stops reading its stdin
// cannot block the caller past ctx.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(c.wire.outbound(msg))
	if err != nil {
		return fmt.Errorf("encoding a message for the server: %w", err)
	}
	data = append(data, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return sdk.ErrConnectionClosed
	default:
	}
	stop := context.AfterFunc(ctx, func() { _ = c.p.stdin.SetWriteDeadline(time.Now()) })
	defer func() {
		if !stop() {
			_ = c.p.stdin.SetWriteDeadline(time.Time{})
		}
	}()
	if _, err := c.p.stdin.Write(data); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("writing to the server's stdin: %w", err)
	}
	return nil
}

// Close implements sdk.Connection: it closes the server's stdin and
// stops it in the background (a grace period, then SIGTERM, then
// SIGKILL), so that no caller waits on a server that will not exit.
func (c *stdioConn) Close() error {
	c.closeMu.Do(func() {
		close(c.closed)
		_ = c.p.stdin.Close()
		c.stop(c.p)
	})
	return nil
}

// readLoop decodes stdout until it ends or turns to garbage.
func (c *stdioConn) readLoop() {
	fr := newFrameReader(c.p.stdout, c.limit)
	c.readErr = c.read(fr)
	close(c.done)
}

func (c *stdioConn) read(fr *frameReader) error {
	for {
		line, over, err := fr.next()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
				return io.EOF
			}
			return fmt.Errorf("reading the server's stdout: %w", err)
		}
		if over != nil {
			if m := c.tooLarge(over); m != nil && !c.deliver(m) {
				return io.EOF
			}
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		msgs, derr := decodeFrame(line)
		if derr != nil {
			if err := c.noteNoise(line); err != nil {
				return err
			}
			continue
		}
		for _, m := range msgs {
			if !c.deliver(m) {
				return io.EOF
			}
		}
	}
}

func (c *stdioConn) deliver(m jsonrpc.Message) bool {
	m = c.wire.inbound(m)
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// decodeFrame decodes one line: a message or, from servers of the
// 2025-03-26 era, a batch of them.
func decodeFrame(line []byte) ([]jsonrpc.Message, error) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil {
			return nil, err
		}
		if len(raws) == 0 {
			return nil, errors.New("empty batch")
		}
		msgs := make([]jsonrpc.Message, 0, len(raws))
		for _, r := range raws {
			m, err := jsonrpc.DecodeMessage(r)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, err
	}
	return []jsonrpc.Message{m}, nil
}

// noteNoise records a line that is not JSON-RPC. Binary garbage, or more
// than maxNoiseLines lines of text, is fatal.
func (c *stdioConn) noteNoise(line []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noise++
	if c.noiseText == "" {
		c.noiseText = clip(printable(string(line)), 120)
	}
	binary := !utf8.Valid(line) || bytes.ContainsFunc(line, func(r rune) bool { return r < 0x20 && r != '\t' })
	if binary || c.noise > maxNoiseLines {
		return &garbageError{lines: c.noise, first: c.noiseText}
	}
	return nil
}

// garbageError says a stdio server's stdout is not a JSON-RPC stream.
type garbageError struct {
	lines int
	first string
}

// Error implements error.
func (e *garbageError) Error() string {
	return fmt.Sprintf("the server wrote output that is not JSON-RPC to stdout (%d line(s), first %q); an MCP stdio server must write only protocol messages to stdout and its logs to stderr", e.lines, e.first)
}

// tooLarge turns an oversized response into an error response for the
// call that is waiting for it, so the call fails at once instead of at
// its timeout. It returns nil when the frame is not a response or its id
// cannot be recovered.
func (c *stdioConn) tooLarge(o *oversize) jsonrpc.Message {
	id, ok := o.responseID()
	if ok {
		msg := fmt.Sprintf("the server's response is %s, more than rein's limit of %s per message; ask for less output", byteSize(o.size), byteSize(int64(c.limit)))
		raw, _ := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   jsonrpc.Error   `json:"error"`
		}{"2.0", id, jsonrpc.Error{Code: errTooLargeCode, Message: msg}})
		if m, err := jsonrpc.DecodeMessage(raw); err == nil {
			return m
		}
	}
	c.mu.Lock()
	c.dropped++
	c.mu.Unlock()
	return nil
}

// garbage returns the error that ended reading when the server's stdout
// turned out not to be JSON-RPC, else nil.
func (c *stdioConn) garbage() *garbageError {
	select {
	case <-c.done:
		var ge *garbageError
		if errors.As(c.readErr, &ge) {
			return ge
		}
	default:
	}
	return nil
}

// problem describes what went wrong with the stream, for an error
// message: garbage, stray lines or dropped messages; "" when nothing did.
func (c *stdioConn) problem() string {
	if ge := c.garbage(); ge != nil {
		return ge.Error()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.dropped > 0:
		return fmt.Sprintf("%d message(s) from the server exceeded rein's limit of %s and were dropped", c.dropped, byteSize(int64(c.limit)))
	case c.noise > 0:
		return fmt.Sprintf("the server also wrote non-JSON text to stdout (first %q); its logs belong on stderr", c.noiseText)
	}
	return ""
}

// byteSize renders n bytes for people: 512 bytes, 20.0 MiB.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
