package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// MaxLine bounds one message. Prompts with embedded files are large, but a
// line without end must not exhaust memory.
const MaxLine = 32 << 20

// ErrClosed is returned by calls pending when the peer closed the stream.
var ErrClosed = errors.New("acp: the connection is closed")

// Handler answers the peer's requests and notifications. HandleRequest's
// result is sent as the response; an *Error becomes the error object as
// is, any other error an internal error with its message. Requests run
// concurrently, each in its own goroutine (a prompt lasts a whole turn, and
// the cancel for it must still be read); notifications run one at a time on
// the reading goroutine, in order, so they must not block.
type Handler interface {
	HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error)
	HandleNotification(ctx context.Context, method string, params json.RawMessage)
}

// Conn is one JSON-RPC connection over newline-delimited streams.
type Conn struct {
	r *bufio.Reader
	h Handler

	wmu sync.Mutex // one message per line, never interleaved
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan *Message
	closed  bool

	wg sync.WaitGroup
}

// NewConn returns a connection reading r and writing w; Serve starts it.
func NewConn(r io.Reader, w io.Writer, h Handler) *Conn {
	return &Conn{r: bufio.NewReaderSize(r, 64<<10), w: w, h: h, pending: map[string]chan *Message{}}
}

// Serve reads messages until the stream ends or ctx is done, then cancels
// the requests still running, fails the calls still waiting for an answer
// and waits for the handlers to return.
func (c *Conn) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		c.shut() // before cancel: waiting calls see ErrClosed, not ctx's error
		cancel()
		c.wg.Wait()
	}()
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		for {
			line, err := c.readLine()
			if errors.Is(err, errTooLong) {
				line, err = nil, nil
			}
			if err != nil {
				errc <- err
				return
			}
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case line := <-lines:
			c.dispatch(ctx, line)
		}
	}
}

// errTooLong marks a line over MaxLine; the rest of it was discarded.
var errTooLong = errors.New("line too long")

// readLine returns the next line without its newline. An over-long line is
// skipped and returned as nil, so the caller answers it with an error and
// the stream stays in step.
func (c *Conn) readLine() ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := c.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, errTooLong
			}
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0 && !tooLong:
			return buf, nil // a last line without a newline
		default:
			return nil, err
		}
	}
}

// dispatch handles one line.
func (c *Conn) dispatch(ctx context.Context, line []byte) {
	if line == nil {
		c.write(&Message{JSONRPC: "2.0", ID: nullID, Error: Errorf(CodeInvalidRequest, "message longer than %d MiB", MaxLine>>20)})
		return
	}
	m, replyID, perr := ParseLine(line)
	switch {
	case perr != nil:
		c.write(&Message{JSONRPC: "2.0", ID: replyID, Error: perr})
	case m == nil: // a blank line
	case m.IsResponse():
		c.mu.Lock()
		ch := c.pending[string(m.ID)]
		delete(c.pending, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	case m.IsNotification():
		c.safely(func() { c.h.HandleNotification(ctx, m.Method, m.Params) })
	default:
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.respond(ctx, m)
		}()
	}
}

// respond runs a request's handler and sends its answer.
func (c *Conn) respond(ctx context.Context, m *Message) {
	var (
		res any
		err error
	)
	func() {
		defer func() {
			if recover() != nil {
				res, err = nil, errPanic
			}
		}()
		res, err = c.h.HandleRequest(ctx, m.Method, m.Params)
	}()
	var then func()
	if d, ok := res.(Deferred); ok {
		res, then = d.Result, d.Then
	}
	out := &Message{JSONRPC: "2.0", ID: m.ID}
	if err == nil {
		data, merr := json.Marshal(res)
		if merr == nil {
			out.Result = data
		} else {
			err = merr
		}
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		out.Result, out.Error, then = nil, e, nil
	}
	c.write(out)
	if then != nil {
		c.safely(then)
	}
}

// Deferred is a handler's result with work to do once it was sent: the
// notifications that must follow the response, such as a new session's
// available commands, which the client can place only once it knows the
// session's id.
type Deferred struct {
	Result any
	Then   func()
}

// errPanic is what a request whose handler panicked answers: the details
// stay on stderr's side of rein, never in the protocol stream.
var errPanic = &Error{Code: CodeInternalError, Message: "internal error"}

// safely runs a notification's handler: a panic in it is dropped (a
// notification has no answer to carry it) so one bad message cannot take
// the connection down.
func (c *Conn) safely(fn func()) {
	defer func() { _ = recover() }()
	fn()
}

// write sends one message as one line.
func (c *Conn) write(m *Message) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(append(data, '\n'))
	return err
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	data, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(&Message{JSONRPC: "2.0", Method: method, Params: data})
}

// Call sends a request and waits for its answer, decoding the result into
// out. It returns ErrClosed when the connection closes first, ctx's error
// when ctx ends first, and the peer's *Error when it answered with one.
func (c *Conn) Call(ctx context.Context, method string, params, out any) error {
	data, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan *Message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.nextID++
	id := json.RawMessage(strconv.FormatInt(c.nextID, 10))
	c.pending[string(id)] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, string(id))
		c.mu.Unlock()
	}
	if err := c.write(&Message{JSONRPC: "2.0", ID: id, Method: method, Params: data}); err != nil {
		forget()
		return fmt.Errorf("acp: sending %s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		forget()
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return ErrClosed
		}
		return ctx.Err()
	case m, ok := <-ch:
		switch {
		case !ok:
			return ErrClosed
		case m.Error != nil:
			return m.Error
		case out != nil:
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("acp: the answer to %s does not parse: %w", method, err)
			}
		}
		return nil
	}
}

// shut fails the calls still waiting: nobody will answer them.
func (c *Conn) shut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}
