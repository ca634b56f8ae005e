package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
)

// frameEdge is how much of an oversized frame's start and end is kept to
// recover its JSON-RPC id.
const frameEdge = 1 << 10

// oversize describes a frame that was longer than the limit and was
// discarded as it streamed by.
type oversize struct {
	size int64  // bytes, newline excluded
	head []byte // the first frameEdge bytes
	tail []byte // the last frameEdge bytes
}

// frameReader splits a stdio server's stdout into newline-delimited
// frames, never buffering more than max bytes of one frame.
type frameReader struct {
	br  *bufio.Reader
	max int
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next frame without its line ending, or, for a frame
// longer than max, its oversize description. A final frame without a
// newline is returned before io.EOF.
func (r *frameReader) next() ([]byte, *oversize, error) {
	var buf []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(buf)+len(chunk) > r.max {
			return nil, r.discard(append(buf, chunk...), err), nil
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
			continue
		case err != nil && len(buf)+len(chunk) == 0:
			return nil, nil, err
		}
		// Copy: chunk aliases the bufio buffer.
		line := append(buf, chunk...)
		if buf == nil {
			line = bytes.Clone(chunk)
		}
		return bytes.TrimRight(line, "\r\n"), nil, nil
	}
}

// discard consumes the rest of an oversized frame, whose first bytes are
// start, keeping its edges.
func (r *frameReader) discard(start []byte, err error) *oversize {
	o := &oversize{head: bytes.Clone(start[:min(len(start), frameEdge)])}
	size := int64(len(start))
	tail := bytes.Clone(start[max(0, len(start)-2*frameEdge):])
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = r.br.ReadSlice('\n')
		size += int64(len(chunk))
		tail = append(tail, chunk...)
		if len(tail) > 4*frameEdge {
			tail = append(tail[:0], tail[len(tail)-2*frameEdge:]...)
		}
	}
	trimmed := bytes.TrimRight(tail, "\r\n")
	o.size = size - int64(len(tail)-len(trimmed))
	o.tail = bytes.Clone(trimmed[max(0, len(trimmed)-frameEdge):])
	return o
}

// responseID returns the JSON-RPC id of an oversized frame when the frame
// is a response (it has a result or error member), from its head or,
// for encoders that put "id" last, its tail.
func (o *oversize) responseID() (json.RawMessage, bool) {
	keys, id := topLevelKeys(o.head)
	response := false
	for _, k := range keys {
		switch k {
		case "result", "error":
			response = true
		case "method":
			return nil, false
		}
	}
	if !response {
		return nil, false
	}
	if id != nil {
		return id, true
	}
	if m := trailingIDRE.FindSubmatch(o.tail); m != nil && json.Valid(m[1]) {
		return json.RawMessage(bytes.Clone(m[1])), true
	}
	return nil, false
}

// trailingIDRE matches an "id" member that closes the outermost object:
// exactly one '}' may follow its value.
var trailingIDRE = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*\}\s*$`)

// topLevelKeys scans as much of a JSON object as data holds and returns
// the member names of the outermost object, in order, and the raw value of
// its "id" member when that is a number or a string. It stops quietly at
// the end of data or at anything that is not JSON.
func topLevelKeys(data []byte) (keys []string, id json.RawMessage) {
	s := scanner{b: data}
	s.space()
	if !s.eat('{') {
		return nil, nil
	}
	for {
		s.space()
		if s.eat('}') {
			return keys, id
		}
		start := s.i
		if !s.skipString() {
			return keys, id
		}
		var k string
		if json.Unmarshal(data[start:s.i], &k) != nil {
			return keys, id
		}
		keys = append(keys, k)
		s.space()
		if !s.eat(':') {
			return keys, id
		}
		s.space()
		vstart := s.i
		if !s.skipValue(0) {
			return keys, id
		}
		if k == "id" {
			v := data[vstart:s.i]
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) && json.Valid(v) {
				id = json.RawMessage(bytes.Clone(v))
			}
		}
		s.space()
		if !s.eat(',') {
			return keys, id
		}
	}
}

// scanner is a minimal JSON skipper over a possibly truncated buffer.
type scanner struct {
	b []byte
	i int
}

// maxScanDepth bounds nesting so hostile input cannot exhaust the stack.
const maxScanDepth = 64

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) skipString() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return true
		default:
			s.i++
		}
	}
	return false
}

// skipValue skips one JSON value; it reports false when data ends first
// or the value is malformed.
func (s *scanner) skipValue(depth int) bool {
	if s.i >= len(s.b) || depth > maxScanDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		for {
			s.space()
			if s.eat(closer) {
				return true
			}
			if c == '{' {
				if !s.skipString() {
					return false
				}
				s.space()
				if !s.eat(':') {
					return false
				}
				s.space()
			}
			if !s.skipValue(depth + 1) {
				return false
			}
			s.space()
			if s.eat(closer) {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	default:
		start := s.i
		for s.i < len(s.b) && bytes.IndexByte([]byte("+-.0123456789eEtruefalsn"), s.b[s.i]) >= 0 {
			s.i++
		}
		// A scalar running to the end of a truncated buffer is incomplete.
		return s.i > start && s.i < len(s.b)
	}
}
