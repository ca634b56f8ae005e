package lsp

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

// message is a JSON-RPC 2.0 request, notification or response.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is an error response from a server.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("language server error %d: %s", e.Code, clip(e.Message, 300))
}

// errClosed reports a call on a connection whose peer went away.
var errClosed = errors.New("language server connection closed")

// conn is the client end of a JSON-RPC connection. Requests from the
// server (workspace/configuration, client/registerCapability, …) are
// answered by handle; notifications go to notify.
type conn struct {
	w      io.Writer
	wmu    sync.Mutex
	notify func(method string, params json.RawMessage)
	handle func(method string, params json.RawMessage) (any, error)

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	err     error // set once the read loop ended
	done    chan struct{}

	inflight chan struct{} // bounds the server's requests being answered
}

const maxInflight = 16

func newConn(r io.Reader, w io.Writer, notify func(string, json.RawMessage), handle func(string, json.RawMessage) (any, error)) *conn {
	c := &conn{w: w, notify: notify, handle: handle, pending: map[int64]chan *message{}, done: make(chan struct{}), inflight: make(chan struct{}, maxInflight)}
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return c
}

func (c *conn) readLoop(r *bufio.Reader) {
	var err error
	for {
		var body []byte
		if body, err = readFrame(r); err != nil {
			break
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			continue // one garbled message does not end the session
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			// Answered off the read loop (the answer's write could block
			// on a server busy writing to us), at most maxInflight at
			// once: a server flooding requests waits for the answers.
			c.inflight <- struct{}{}
			go func() { defer func() { <-c.inflight }(); c.reply(m) }()
		case m.Method != "":
			c.notify(m.Method, m.Params)
		default:
			c.deliver(&m)
		}
	}
	c.mu.Lock()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errClosed
	}
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

func (c *conn) deliver(m *message) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	ch := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

func (c *conn) reply(m message) {
	result, err := c.handle(m.Method, m.Params)
	resp := message{JSONRPC: "2.0", ID: m.ID}
	if err != nil {
		resp.Error = &RPCError{Code: -32601, Message: err.Error()}
	} else {
		b, _ := json.Marshal(result)
		resp.Result = b
	}
	_ = c.send(resp)
}

func (c *conn) send(m message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return writeFrame(c.w, body)
}

// Notify sends a notification.
func (c *conn) Notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.send(message{JSONRPC: "2.0", Method: method, Params: p})
}

// Call sends a request and decodes its result into result (nil: drop it).
// When ctx ends first, the request is cancelled with $/cancelRequest.
func (c *conn) Call(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(message{JSONRPC: "2.0", ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: p}); err != nil {
		c.forget(id)
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, c.closedErr())
		}
		if m.Error != nil {
			return m.Error
		}
		if result == nil || len(m.Result) == 0 {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	case <-ctx.Done():
		c.forget(id)
		_ = c.Notify("$/cancelRequest", map[string]int64{"id": id})
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return errClosed
	}
	return c.err
}
