package openai

import (
	"github.com/reinharness/rein/internal/jsonscan"
)

// chunkScanner is the fast path of chunk decoding: it fills a chunk from
// the bytes of the common chunk shapes (text, reasoning and tool-call
// deltas, finish reasons) without reflection or per-field lookups, reusing
// the chunk's slices and buffers from one chunk to the next.
//
// It declines (returns false) whatever it is not certain to decode exactly
// as unmarshalChunk would: usage, timings and error objects (one chunk per
// stream at most), values of unexpected types, escaped names, duplicate
// fields, invalid UTF-8. The caller then decodes the chunk with
// unmarshalChunk, so the fast path changes speed, never results or error
// messages; TestChunkScannerMatchesOracle and FuzzChunkScanner hold it to
// that.
type chunkScanner struct {
	s       jsonscan.Scanner
	strings jsonscan.Strings
}

// decode fills c from data. When skipID is set the chunk's id is not
// needed (the parser already has it) and is left empty.
func (cs *chunkScanner) decode(data []byte, c *chunk, skipID bool) bool {
	s := &cs.s
	s.Reset(data)
	c.ID, c.Usage, c.Timings, c.Error = "", nil, nil, nil
	c.Choices = c.Choices[:0]
	var seen uint8
	obj := s.Object()
	for name, ok := obj.Next(); ok; name, ok = obj.Next() {
		var bit uint8
		switch string(name) {
		case "id":
			bit = 1
			if s.Null() {
				break
			}
			if skipID {
				s.SkipString()
			} else {
				c.ID = cs.strings.Make(s.String())
			}
		case "choices":
			bit = 2
			cs.choices(c)
		case "usage", "timings", "error":
			// Present in the last chunk (or an error chunk) only: left to
			// the general decoder.
			if !s.Null() {
				return false
			}
		default:
			s.Skip()
		}
		if seen&bit != 0 {
			return false // a duplicate: the general decoder's merge rules apply
		}
		seen |= bit
	}
	return s.Done()
}

// choices reads the choices array, reusing c.Choices' elements and their
// tool-call slices.
func (cs *chunkScanner) choices(c *chunk) {
	s := &cs.s
	if s.Null() {
		c.Choices = nil
		return
	}
	arr := s.Array()
	for arr.Next() {
		n := len(c.Choices)
		if n < cap(c.Choices) {
			c.Choices = c.Choices[:n+1]
		} else {
			c.Choices = append(c.Choices, chunkChoice{})
		}
		ch := &c.Choices[n]
		calls := ch.Delta.ToolCalls[:0]
		*ch = chunkChoice{}
		ch.Delta.ToolCalls = calls
		cs.choice(ch)
		if s.Failed() {
			return
		}
	}
}

func (cs *chunkScanner) choice(ch *chunkChoice) {
	s := &cs.s
	var seen uint8
	obj := s.Object()
	for name, ok := obj.Next(); ok; name, ok = obj.Next() {
		var bit uint8
		switch string(name) {
		case "index":
			bit = 1
			if !s.Null() {
				ch.Index = s.Int()
			}
		case "delta":
			bit = 2
			if !s.Null() {
				cs.delta(&ch.Delta)
			}
		case "finish_reason":
			bit = 4
			if !s.Null() {
				ch.FinishReason = cs.strings.Make(s.String())
			}
		default:
			s.Skip()
		}
		if seen&bit != 0 {
			s.Fail()
		}
		seen |= bit
	}
}

func (cs *chunkScanner) delta(d *delta) {
	s := &cs.s
	var seen uint8
	obj := s.Object()
	for name, ok := obj.Next(); ok; name, ok = obj.Next() {
		var bit uint8
		var dst *string
		switch string(name) {
		case "content":
			bit, dst = 1, &d.Content
		case "refusal":
			bit, dst = 2, &d.Refusal
		case "reasoning_content":
			bit, dst = 4, &d.ReasoningContent
		case "reasoning":
			bit, dst = 8, &d.Reasoning
		case "tool_calls":
			bit = 16
			cs.toolCalls(d)
		default:
			s.Skip()
		}
		if dst != nil && !s.Null() {
			*dst = cs.strings.Make(s.String())
		}
		if seen&bit != 0 {
			s.Fail()
		}
		seen |= bit
	}
}

func (cs *chunkScanner) toolCalls(d *delta) {
	s := &cs.s
	if s.Null() {
		d.ToolCalls = nil
		return
	}
	arr := s.Array()
	for arr.Next() {
		n := len(d.ToolCalls)
		if n < cap(d.ToolCalls) {
			d.ToolCalls = d.ToolCalls[:n+1]
		} else {
			d.ToolCalls = append(d.ToolCalls, toolCallDelta{})
		}
		td := &d.ToolCalls[n]
		args := td.Function.Arguments.text[:0]
		*td = toolCallDelta{}
		td.Function.Arguments.text = args
		cs.toolCall(td)
		if s.Failed() {
			return
		}
	}
	// Index points into the element itself, so that a fragment's index
	// costs no allocation; set only now that the slice has stopped growing.
	for i := range d.ToolCalls {
		if td := &d.ToolCalls[i]; td.hasIndex {
			td.Index = &td.index
		}
	}
}

func (cs *chunkScanner) toolCall(td *toolCallDelta) {
	s := &cs.s
	var seen uint8
	obj := s.Object()
	for name, ok := obj.Next(); ok; name, ok = obj.Next() {
		var bit uint8
		switch string(name) {
		case "index":
			bit = 1
			if !s.Null() {
				td.index, td.hasIndex = s.Int(), true
			}
		case "id":
			bit = 2
			if !s.Null() {
				td.ID = cs.strings.Make(s.String())
			}
		case "function":
			bit = 4
			if !s.Null() {
				cs.function(td)
			}
		default:
			s.Skip()
		}
		if seen&bit != 0 {
			s.Fail()
		}
		seen |= bit
	}
}

func (cs *chunkScanner) function(td *toolCallDelta) {
	s := &cs.s
	f := &td.Function
	var seen uint8
	obj := s.Object()
	for name, ok := obj.Next(); ok; name, ok = obj.Next() {
		var bit uint8
		switch string(name) {
		case "name":
			bit = 1
			if !s.Null() {
				f.Name = cs.strings.Make(s.String())
			}
		case "arguments":
			bit = 2
			cs.arguments(&f.Arguments)
		default:
			s.Skip()
		}
		if seen&bit != 0 {
			s.Fail()
		}
		seen |= bit
	}
}

// arguments decodes an arguments value as argFragment.UnmarshalJSON does:
// a string's content, unescaped once straight into the fragment buffer, or
// any other value's bytes as they came.
func (cs *chunkScanner) arguments(a *argFragment) {
	s := &cs.s
	a.text, a.object = a.text[:0], false
	if s.Null() {
		return
	}
	if s.Kind() == '"' {
		a.text = s.String().AppendTo(a.text)
		return
	}
	a.text, a.object = append(a.text, s.RawValue()...), true
}
