package mcp

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The HTTP half of taskwire.go, for both HTTP transports: a POST carries
// one JSON-RPC message, lowered here; its answer comes in the POST's
// response (Streamable HTTP: a JSON body or an event stream) or on the
// connection's GET event stream (legacy HTTP+SSE), and every such body
// is lifted.

// lowerBody rewrites a POSTed tools/call or tools/list for the wire and
// reports whether its response must be lifted.
func (t *httpTrip) lowerBody(req *http.Request) (*http.Request, bool) {
	if req.Method != http.MethodPost || req.Body == nil || req.Body == http.NoBody {
		return req, false
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(errReader{err})
		return req, false
	}
	out, tracked := data, false
	if msg, err := jsonrpc.DecodeMessage(data); err == nil {
		if r, ok := msg.(*jsonrpc.Request); ok && (r.Method == "tools/call" || r.Method == "tools/list") {
			tracked = true
			if low := t.wire.outbound(msg); low != msg {
				if enc, err := jsonrpc.EncodeMessage(low); err == nil {
					out = enc
				}
			}
		}
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(out))
	req.ContentLength = int64(len(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return req, tracked
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// liftBody lifts the answers in a response body. Every event stream is
// lifted, whichever request opened it: the legacy HTTP+SSE transport
// answers a POSTed tools/list on its one long-lived GET stream, not in the
// POST's response, and Streamable HTTP may answer on a stream too. A JSON
// body is the answer to the POST itself, lifted when that was tracked.
func (t *httpTrip) liftBody(resp *http.Response, tracked bool) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		if !tracked {
			return
		}
		resp.Body = &liftedJSON{rc: resp.Body, wire: &t.wire}
		resp.ContentLength = -1
	case "text/event-stream":
		resp.Body = &liftedSSE{rc: resp.Body, br: bufio.NewReader(resp.Body), wire: &t.wire, notes: t.notes, limit: int(t.limit)}
	}
}

// liftMessage lifts one encoded message, reporting whether it changed
// it; anything else passes as it is.
func liftMessage(w *wireMethods, data []byte) ([]byte, bool) {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return data, false
	}
	lifted := w.inbound(msg)
	if lifted == msg {
		return data, false
	}
	enc, err := jsonrpc.EncodeMessage(lifted)
	if err != nil {
		return data, false
	}
	return enc, true
}

// liftedJSON is a JSON response body, lifted once read whole (the body
// is already bounded by limitedBody).
type liftedJSON struct {
	rc   io.ReadCloser
	wire *wireMethods
	out  *bytes.Reader
}

// Read implements io.Reader.
func (b *liftedJSON) Read(p []byte) (int, error) {
	if b.out == nil {
		data, err := io.ReadAll(b.rc)
		if err != nil {
			return 0, err
		}
		lifted, _ := liftMessage(b.wire, data)
		b.out = bytes.NewReader(lifted)
	}
	return b.out.Read(p)
}

// Close implements io.Closer.
func (b *liftedJSON) Close() error { return b.rc.Close() }

// liftedSSE lifts the data of each event of a response stream. An event
// larger than limit passes through untouched (the SDK bounds it).
type liftedSSE struct {
	rc    io.ReadCloser
	br    *bufio.Reader
	wire  *wireMethods
	notes *taskWatch // nil: task status notifications are not watched
	limit int

	data      []byte // the current event's data, lines joined
	dataLines int
	fields    []byte // the current event's other lines
	raw       []byte // the current event's lines as read, for passing through
	has       bool   // an event with data has begun
	over      bool   // the current event exceeded limit
	out       bytes.Buffer
	err       error
}

// Read implements io.Reader.
func (s *liftedSSE) Read(p []byte) (int, error) {
	for s.out.Len() == 0 && s.err == nil {
		s.step()
	}
	if s.out.Len() > 0 {
		return s.out.Read(p)
	}
	return 0, s.err
}

// step reads one line of the stream.
func (s *liftedSSE) step() {
	line, err := s.br.ReadBytes('\n')
	if len(line) > 0 {
		s.line(line)
	}
	if err != nil {
		s.flush(false)
		s.err = err
	}
}

func (s *liftedSSE) line(line []byte) {
	trimmed := bytes.TrimRight(line, "\r\n")
	if len(trimmed) == 0 && line[len(line)-1] == '\n' {
		s.flush(true) // a blank line ends the event
		s.out.Write(line)
		return
	}
	if !s.has && !bytes.HasPrefix(trimmed, []byte("data:")) {
		s.out.Write(line) // a field, comment or retry outside data
		return
	}
	s.raw = append(s.raw, line...)
	s.has = true
	if s.over {
		return
	}
	if v, ok := bytes.CutPrefix(trimmed, []byte("data:")); ok {
		if s.dataLines > 0 {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, bytes.TrimPrefix(v, []byte(" "))...)
		s.dataLines++
	} else {
		s.fields = append(s.fields, line...)
	}
	if s.limit > 0 && len(s.raw) > s.limit {
		s.over = true
	}
}

// flush writes the pending event: lifted when lift is set (the event
// ended), it was within the limit and lifting changed it, else byte for
// byte as the server sent it.
func (s *liftedSSE) flush(lift bool) {
	if !s.has {
		return
	}
	var lifted []byte
	changed := false
	if lift && !s.over && s.dataLines > 0 {
		lifted, changed = liftMessage(s.wire, s.data)
		s.notes.noteEvent(s.data)
	}
	if changed {
		s.out.Write(s.fields)
		s.out.WriteString("data: ")
		s.out.Write(lifted)
		s.out.WriteString("\n")
	} else {
		s.out.Write(s.raw)
	}
	s.data, s.raw, s.fields = s.data[:0], s.raw[:0], s.fields[:0]
	s.has, s.over, s.dataLines = false, false, 0
}

// Close implements io.Closer.
func (s *liftedSSE) Close() error { return s.rc.Close() }
