package session

import (
	"encoding/binary"
	"errors"

	"github.com/reinharness/rein/model"
)

// The binary form of a checkpoint's messages. It keeps every field of
// model.Message, Part, ToolCall and ToolResult exactly, nil apart from
// empty, so that a conversation resumed from a checkpoint is the one the
// events give (TestCheckpointCodecKnowsEveryField fails when a field is
// added to one of those types and not here):
//
//	messages = uvarint(n) message*n
//	message  = str(role) nslice(parts) part*
//	part     = str(kind) str(text) str(signature) str(redacted) call? result?
//	call     = flag 1 str(id) str(name) nbytes(args)   (flag 0: nil)
//	result   = flag 1 str(call_id) str(name) str(content) bool(is_error)
//
// where str is uvarint(len) and the bytes, and nslice and nbytes are
// uvarint(len+1) with 0 for nil.

// encodeMessages appends the binary form of msgs to dst.
func encodeMessages(dst []byte, msgs []model.Message) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(msgs)))
	for i := range msgs {
		m := &msgs[i]
		dst = appendStr(dst, string(m.Role))
		dst = appendLen(dst, m.Parts == nil, len(m.Parts))
		for j := range m.Parts {
			dst = appendPart(dst, &m.Parts[j])
		}
	}
	return dst
}

func appendPart(dst []byte, p *model.Part) []byte {
	dst = appendStr(dst, string(p.Kind))
	dst = appendStr(dst, p.Text)
	dst = appendStr(dst, p.Signature)
	dst = appendStr(dst, p.Redacted)
	if c := p.ToolCall; c == nil {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		dst = appendStr(dst, c.ID)
		dst = appendStr(dst, c.Name)
		dst = appendLen(dst, c.Args == nil, len(c.Args))
		dst = append(dst, c.Args...)
	}
	if r := p.ToolResult; r == nil {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		dst = appendStr(dst, r.CallID)
		dst = appendStr(dst, r.Name)
		dst = appendStr(dst, r.Content)
		dst = append(dst, boolByte(r.IsError))
	}
	return dst
}

func appendStr(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendLen appends a length that tells nil from empty.
func appendLen(dst []byte, isNil bool, n int) []byte {
	if isNil {
		return append(dst, 0)
	}
	return binary.AppendUvarint(dst, uint64(n)+1)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// errMessages is a binary form that does not decode.
var errMessages = errors.New("malformed checkpoint messages")

// decodeMessages decodes what encodeMessages wrote, all of data. The
// strings share one copy of data, and parts, calls, results and
// arguments come from slabs: a resumed conversation keeps them all
// anyway, and a few hundred allocations replace a hundred thousand.
func decodeMessages(data []byte) ([]model.Message, error) {
	r := reader{b: data, s: string(data)}
	n := r.count(2) // a message takes at least two bytes
	msgs := make([]model.Message, 0, n)
	var sl slabs
	for i := 0; i < n && r.err == nil; i++ {
		m := model.Message{Role: model.Role(r.str())}
		if np, isNil := r.nslice(6); !isNil { // a part takes at least 6 bytes
			m.Parts = sl.parts(np)
			for j := range m.Parts {
				r.part(&m.Parts[j], &sl)
			}
		}
		msgs = append(msgs, m)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errMessages
	}
	if r.err != nil {
		return nil, r.err
	}
	return msgs, nil
}

// slabSize is how many values a slab holds.
const slabSize = 512

// slabs hand out the values of decoded messages from shared backing
// arrays.
type slabs struct {
	p    []model.Part
	c    []model.ToolCall
	r    []model.ToolResult
	args []byte
}

func (s *slabs) parts(n int) []model.Part {
	if n == 0 {
		return []model.Part{} // empty, not nil
	}
	if cap(s.p)-len(s.p) < n {
		s.p = make([]model.Part, 0, max(n, slabSize))
	}
	s.p = s.p[:len(s.p)+n]
	return s.p[len(s.p)-n : len(s.p) : len(s.p)]
}

func (s *slabs) call() *model.ToolCall {
	if len(s.c) == cap(s.c) {
		s.c = make([]model.ToolCall, 0, slabSize)
	}
	s.c = s.c[:len(s.c)+1]
	return &s.c[len(s.c)-1]
}

func (s *slabs) result() *model.ToolResult {
	if len(s.r) == cap(s.r) {
		s.r = make([]model.ToolResult, 0, slabSize)
	}
	s.r = s.r[:len(s.r)+1]
	return &s.r[len(s.r)-1]
}

// bytes copies b into the arguments slab; the copy's capacity is its
// length, so an append to it never writes into its neighbour.
func (s *slabs) bytes(b []byte) []byte {
	if cap(s.args)-len(s.args) < len(b) {
		s.args = make([]byte, 0, max(len(b), slabSize*64))
	}
	start := len(s.args)
	s.args = append(s.args, b...)
	return s.args[start:len(s.args):len(s.args)]
}

// reader consumes a binary form; the first fault sticks in err and
// makes every later read return zero values. s, when set, is data as a
// string, for strings without a copy each.
type reader struct {
	b   []byte
	s   string
	off int // of b within s
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errMessages
	}
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.advance(n)
	return v
}

func (r *reader) advance(n int) {
	r.b = r.b[n:]
	r.off += n
}

// bytes returns the next n bytes (not a copy).
func (r *reader) bytes(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	b := r.b[:n:n]
	r.advance(int(n))
	return b
}

func (r *reader) str() string {
	n := r.uvarint()
	start := r.off
	b := r.bytes(n)
	if r.err != nil {
		return ""
	}
	if r.s != "" {
		return r.s[start : start+len(b)]
	}
	return string(b)
}

// count reads a count of items of at least min bytes each, refusing one
// the remaining bytes cannot hold (so a damaged count allocates nothing).
func (r *reader) count(min int) int {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)/min) {
		r.fail()
		return 0
	}
	return int(n)
}

// nslice reads a length written by appendLen.
func (r *reader) nslice(min int) (n int, isNil bool) {
	v := r.uvarint()
	if r.err != nil || v == 0 {
		return 0, true
	}
	if v-1 > uint64(len(r.b)/min) {
		r.fail()
		return 0, true
	}
	return int(v - 1), false
}

func (r *reader) flag() bool {
	b := r.bytes(1)
	if r.err != nil {
		return false
	}
	if b[0] > 1 {
		r.fail()
		return false
	}
	return b[0] == 1
}

func (r *reader) part(p *model.Part, sl *slabs) {
	p.Kind = model.PartKind(r.str())
	p.Text, p.Signature, p.Redacted = r.str(), r.str(), r.str()
	if r.flag() {
		c := sl.call()
		c.ID, c.Name = r.str(), r.str()
		if v := r.uvarint(); v > 0 {
			c.Args = sl.bytes(r.bytes(v - 1))
			if c.Args == nil { // a fault; empty is not nil
				c.Args = []byte{}
			}
		}
		p.ToolCall = c
	}
	if r.flag() {
		res := sl.result()
		res.CallID, res.Name, res.Content, res.IsError = r.str(), r.str(), r.str(), r.flag()
		p.ToolResult = res
	}
}
