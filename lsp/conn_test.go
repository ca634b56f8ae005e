package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// pipeConn connects a conn to a scripted peer: serve reads the client's
// messages and writes the peer's.
func pipeConn(t *testing.T, handle func(string, json.RawMessage) (any, error), serve func(r *bufio.Reader, w io.Writer)) *conn {
	t.Helper()
	cr, pw := io.Pipe()
	pr, cw := io.Pipe()
	go func() { serve(bufio.NewReader(pr), pw); pw.Close() }()
	t.Cleanup(func() { cw.Close(); pr.Close() })
	return newConn(cr, cw, func(string, json.RawMessage) {}, handle)
}

func send(w io.Writer, m message) {
	m.JSONRPC = "2.0"
	b, _ := json.Marshal(m)
	_ = writeFrame(w, b)
}

func TestConnCall(t *testing.T) {
	answered := make(chan string, 1)
	c := pipeConn(t, func(method string, _ json.RawMessage) (any, error) {
		if method == "workspace/configuration" {
			return []any{nil}, nil
		}
		return nil, errors.New("nope")
	}, func(r *bufio.Reader, w io.Writer) {
		body, _ := readFrame(r)
		var req message
		_ = json.Unmarshal(body, &req)
		// Garbage, then a request of the server's, before the answer.
		_ = writeFrame(w, []byte("{not json"))
		send(w, message{ID: json.RawMessage(`"s1"`), Method: "workspace/configuration", Params: json.RawMessage(`{"items":[{}]}`)})
		reply, _ := readFrame(r)
		answered <- string(reply)
		send(w, message{ID: req.ID, Result: json.RawMessage(`{"ok":true}`)})
		body, _ = readFrame(r)
		_ = json.Unmarshal(body, &req)
		send(w, message{ID: req.ID, Error: &RPCError{Code: -32600, Message: "bad"}})
		// Then the peer hangs up.
	})
	var res struct{ OK bool }
	if err := c.Call(context.Background(), "a", nil, &res); err != nil || !res.OK {
		t.Fatalf("Call = %+v, %v", res, err)
	}
	if got := <-answered; !strings.Contains(got, `"id":"s1"`) || !strings.Contains(got, `"result":[null]`) {
		t.Fatalf("answer to the server's request: %s", got)
	}
	var rpcErr *RPCError
	if err := c.Call(context.Background(), "b", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Code != -32600 {
		t.Fatalf("error response: %v", err)
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("read loop did not end at EOF")
	}
	if err := c.Call(context.Background(), "c", nil, nil); !errors.Is(err, errClosed) {
		t.Fatalf("after close: %v", err)
	}
}

func TestConnCallCancelled(t *testing.T) {
	cancelled := make(chan string, 1)
	c := pipeConn(t, nil, func(r *bufio.Reader, w io.Writer) {
		_, _ = readFrame(r) // never answered
		body, _ := readFrame(r)
		cancelled <- string(body)
		_, _ = readFrame(r)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call = %v", err)
	}
	if got := <-cancelled; !strings.Contains(got, `"$/cancelRequest"`) || !strings.Contains(got, `"id":1`) {
		t.Fatalf("cancel notification: %s", got)
	}
}
