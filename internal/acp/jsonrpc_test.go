package acp

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

func TestParseLine(t *testing.T) {
	cases := []struct {
		line string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, 0, ""},
		{`not json`, CodeParseError, "null"},
		{`{"jsonrpc":"2.0","id":1,`, CodeParseError, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"1.0","id":7,"method":"x"}`, CodeInvalidRequest, "7"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":3,"method":5}`, CodeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":3,"method":""}`, CodeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":3,"method":"x","params":"str"}`, CodeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":3}`, CodeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0"}`, CodeInvalidRequest, "null"},
		{`42`, CodeParseError, "null"},
	}
	for _, c := range cases {
		m, id, err := ParseLine([]byte(c.line))
		if c.code == 0 {
			if err != nil || m == nil {
				t.Errorf("%s: got error %v", c.line, err)
			}
			continue
		}
		if err == nil || err.Code != c.code || string(id) != c.id {
			t.Errorf("%s: got (%v, id %s), want code %d id %s", c.line, err, id, c.code, c.id)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `[]`, `{"jsonrpc":"2.0","id":null,"result":1}`, `{`, ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, id, err := ParseLine(line)
		if err != nil {
			if m != nil || !validID(id) {
				t.Fatalf("error %v with message %v id %q", err, m, id)
			}
			if _, merr := json.Marshal(&Message{JSONRPC: "2.0", ID: id, Error: err}); merr != nil {
				t.Fatalf("the error answer does not marshal: %v", merr)
			}
			return
		}
		if m != nil && !m.IsRequest() && !m.IsNotification() && !m.IsResponse() {
			t.Fatalf("accepted a message of no kind: %+v", m)
		}
	})
}

// echo answers "echo" with its params, "boom" with a panic, "fail" with an
// error, and "ask" by calling the peer back.
type echo struct {
	c     *Conn
	notes chan string
}

func (e *echo) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "echo":
		return params, nil
	case "boom":
		panic("secret detail")
	case "deferred":
		return Deferred{Result: "first", Then: func() { e.c.Notify("after", map[string]int{"n": 2}) }}, nil
	case "ask":
		var out json.RawMessage
		err := e.c.Call(ctx, "question", map[string]int{"n": 1}, &out)
		if errors.Is(err, ErrClosed) {
			e.notes <- "closed"
		}
		return out, err
	}
	return nil, Errorf(CodeMethodNotFound, "no method %s", method)
}

func (e *echo) HandleNotification(_ context.Context, method string, _ json.RawMessage) {
	e.notes <- method
}

// pipeConn serves a Conn on pipes and returns the peer's ends.
func pipeConn(t *testing.T) (*echo, io.WriteCloser, *bufio.Scanner, chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &echo{notes: make(chan string, 8)}
	e.c = NewConn(inR, outW, e)
	done := make(chan error, 1)
	go func() { done <- e.c.Serve(context.Background()); outW.Close() }()
	t.Cleanup(func() { inW.Close() })
	return e, inW, bufio.NewScanner(outR), done
}

func readMsg(t *testing.T, sc *bufio.Scanner) Message {
	t.Helper()
	if !sc.Scan() {
		t.Fatalf("no line: %v", sc.Err())
	}
	var m Message
	if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
		t.Fatalf("bad line %q: %v", sc.Text(), err)
	}
	return m
}

func TestConnServe(t *testing.T) {
	e, w, sc, done := pipeConn(t)
	io.WriteString(w, "garbage\n")
	if m := readMsg(t, sc); m.Error == nil || m.Error.Code != CodeParseError || string(m.ID) != "null" {
		t.Fatalf("garbage: %+v", m)
	}
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`+"\n")
	if m := readMsg(t, sc); string(m.ID) != "1" || string(m.Result) != `{"a":1}` {
		t.Fatalf("echo: %+v", m)
	}
	io.WriteString(w, `{"jsonrpc":"2.0","id":2,"method":"boom"}`+"\n")
	if m := readMsg(t, sc); m.Error == nil || m.Error.Code != CodeInternalError || strings.Contains(m.Error.Message, "secret") {
		t.Fatalf("panic: %+v", m.Error)
	}
	io.WriteString(w, `{"jsonrpc":"2.0","id":"x","method":"nope"}`+"\n")
	if m := readMsg(t, sc); m.Error == nil || m.Error.Code != CodeMethodNotFound || string(m.ID) != `"x"` {
		t.Fatalf("unknown: %+v", m)
	}
	io.WriteString(w, `{"jsonrpc":"2.0","method":"note"}`+"\n")
	if n := <-e.notes; n != "note" {
		t.Fatalf("notification %q", n)
	}
	// A call back to the peer, answered.
	io.WriteString(w, `{"jsonrpc":"2.0","id":3,"method":"ask"}`+"\n")
	q := readMsg(t, sc)
	if q.Method != "question" {
		t.Fatalf("call: %+v", q)
	}
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(q.ID)+`,"result":"yes"}`+"\n")
	if m := readMsg(t, sc); string(m.ID) != "3" || string(m.Result) != `"yes"` {
		t.Fatalf("ask: %+v", m)
	}
	// A call the peer never answers fails with ErrClosed when it leaves.
	io.WriteString(w, `{"jsonrpc":"2.0","id":4,"method":"ask"}`+"\n")
	readMsg(t, sc)
	w.Close()
	go func() { // the answer to 4 (an error) is still written
		for sc.Scan() {
		}
	}()
	select {
	case n := <-e.notes:
		if n != "closed" {
			t.Fatalf("got %q", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the pending call did not fail on close")
	}
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

func TestConnLongLine(t *testing.T) {
	_, w, sc, _ := pipeConn(t)
	sc.Buffer(nil, 1<<20)
	go func() {
		big := strings.Repeat("x", 1<<20)
		for i := 0; i <= MaxLine>>20; i++ {
			io.WriteString(w, big)
		}
		io.WriteString(w, "\n"+`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`+"\n")
	}()
	if m := readMsg(t, sc); m.Error == nil || m.Error.Code != CodeInvalidRequest {
		t.Fatalf("long line: %+v", m)
	}
	if m := readMsg(t, sc); string(m.Result) != "[1]" {
		t.Fatalf("after the long line: %+v", m)
	}
}

func TestDeferredNotifiesAfterTheResponse(t *testing.T) {
	_, w, sc, _ := pipeConn(t)
	io.WriteString(w, `{"jsonrpc":"2.0","id":9,"method":"deferred"}`+"\n")
	if m := readMsg(t, sc); string(m.ID) != "9" || string(m.Result) != `"first"` {
		t.Fatalf("response: %+v", m)
	}
	if m := readMsg(t, sc); m.Method != "after" || m.ID != nil || string(m.Params) != `{"n":2}` {
		t.Fatalf("notification: %+v", m)
	}
}
