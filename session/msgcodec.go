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
// strings share one copy of data: a resumed conversation keeps them all
// anyway, and one allocation replaces tens of thousands.
func decodeMessages(data []byte) ([]model.Message, error) {
	r := reader{b: data, s: string(data)}
	n := r.count(2) // a message takes at least two bytes
	msgs := make([]model.Message, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		m := model.Message{Role: model.Role(r.str())}
		if np, isNil := r.nslice(6); !isNil { // a part takes at least 6 bytes
			m.Parts = make([]model.Part, np)
			for j := range m.Parts {
				r.part(&m.Parts[j])
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

func (r *reader) part(p *model.Part) {
	p.Kind = model.PartKind(r.str())
	p.Text, p.Signature, p.Redacted = r.str(), r.str(), r.str()
	if r.flag() {
		c := &model.ToolCall{ID: r.str(), Name: r.str()}
		v := r.uvarint()
		if v > 0 {
			c.Args = append([]byte{}, r.bytes(v-1)...)
		}
		p.ToolCall = c
	}
	if r.flag() {
		p.ToolResult = &model.ToolResult{CallID: r.str(), Name: r.str(), Content: r.str(), IsError: r.flag()}
	}
}
