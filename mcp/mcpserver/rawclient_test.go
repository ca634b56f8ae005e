package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// rawClient speaks newline-delimited JSON-RPC to a server over stdio, by
// hand: the go-sdk client has no task support, and these tests need the
// exact wire (the task parameter, CreateTaskResult, tasks/*).
type rawClient struct {
	t   testing.TB
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan rawResponse
	// onRequest answers a server→client request (elicitation, …); nil
	// answers method-not-found.
	onRequest func(method string, params json.RawMessage) (any, *rawError)
	// onNotify, if set, sees each server→client notification, on the
	// read loop (in order).
	onNotify func(method string, params json.RawMessage)
}

type rawError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rawError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

type rawResponse struct {
	Result json.RawMessage
	Err    *rawError
}

// newRawStdio serves s over pipes and returns a raw client on them; with
// a version it performs the initialize handshake first.
func newRawStdio(t testing.TB, s *Server, version string) *rawClient {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(ctx, serverIn, serverOut)
		serverOut.Close()
	}()
	c := &rawClient{t: t, w: clientOut, waiting: map[int]chan rawResponse{}}
	go c.readLoop(clientIn)
	t.Cleanup(func() {
		clientOut.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after the client closed")
		}
	})
	if version != "" {
		if _, err := c.call("initialize", map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"elicitation": map[string]any{}},
			"clientInfo":      map[string]any{"name": "raw-test", "version": "1"},
		}); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		c.notify("notifications/initialized", map[string]any{})
	}
	return c
}

func (c *rawClient) send(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Errorf("marshal: %v", err)
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.Write(append(b, '\n'))
}

func (c *rawClient) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and waits (bounded) for its response.
func (c *rawClient) call(method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan rawResponse, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Result, nil
	case <-time.After(20 * time.Second):
		return nil, fmt.Errorf("%s: no response within 20s", method)
	}
}

// callInto calls and decodes the result, failing the test on an error.
func (c *rawClient) callInto(method string, params, out any) {
	c.t.Helper()
	res, err := c.call(method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	if err := json.Unmarshal(res, out); err != nil {
		c.t.Fatalf("%s: decoding %s: %v", method, res, err)
	}
}

func (c *rawClient) readLoop(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		var msg struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Params json.RawMessage  `json:"params"`
			Result json.RawMessage  `json:"result"`
			Error  *rawError        `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		switch {
		case msg.Method != "" && msg.ID == nil:
			if c.onNotify != nil {
				c.onNotify(msg.Method, msg.Params)
			}
		case msg.Method != "" && msg.ID != nil:
			go c.answer(*msg.ID, msg.Method, msg.Params)
		case msg.Method == "" && msg.ID != nil:
			var id int
			if json.Unmarshal(*msg.ID, &id) != nil {
				continue
			}
			c.mu.Lock()
			ch := c.waiting[id]
			delete(c.waiting, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- rawResponse{Result: msg.Result, Err: msg.Error}
			}
		}
	}
}

func (c *rawClient) answer(id json.RawMessage, method string, params json.RawMessage) {
	var res any
	rerr := &rawError{Code: -32601, Message: "not supported by the test client"}
	if c.onRequest != nil {
		res, rerr = c.onRequest(method, params)
	}
	if rerr != nil {
		c.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": rerr})
		return
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
}
