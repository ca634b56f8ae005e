package anthropic

import (
	"github.com/reinharness/rein/internal/jsonscan"
)

// eventScanner is the fast path of event decoding: it fills a wireEvent
// from the bytes of the events that make up nearly all of a stream
// (content_block_delta, content_block_stop, ping) without reflection or
// per-field lookups, and keeps input_json_delta fragments as bytes, which
// the block appends without ever making them a string.
//
// It declines (returns false) whatever it is not certain to decode exactly
// as the general decoder would: events carrying a message, content block,
// usage or error object (a few per stream), a stop reason, values of
// unexpected types, escaped names, duplicate fields, invalid UTF-8. The
// caller then decodes the event with the general decoder, so the fast path
// changes speed, never results or error messages; TestStreamMatchesOracle
// and FuzzStreamMatchesOracle hold it to that.
type eventScanner struct {
	s       jsonscan.Scanner
	strings jsonscan.Strings
}

// decode fills ev from data, reusing its fragment buffer.
func (es *eventScanner) decode(data []byte, ev *wireEvent) bool {
	s := &es.s
	s.Reset(data)
	partial := ev.Delta.partial[:0]
	*ev = wireEvent{Index: -1}
	ev.Delta.partial = partial
	var seen uint8
	obj := s.Object()
	for name, ok := obj.Next(); ok; name, ok = obj.Next() {
		var bit uint8
		switch string(name) {
		case "type":
			bit = 1
			if !s.Null() {
				ev.Type = es.keyword(s.String())
			}
		case "index":
			bit = 2
			if s.Null() {
				return false // the general decoder's null rules apply
			}
			ev.Index = s.Int()
		case "delta":
			bit = 4
			if !s.Null() {
				es.delta(&ev.Delta)
			}
		case "message", "content_block", "usage", "error":
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

func (es *eventScanner) delta(d *wireDelta) {
	s := &es.s
	var seen uint8
	obj := s.Object()
	for name, ok := obj.Next(); ok; name, ok = obj.Next() {
		var bit uint8
		var dst *string
		switch string(name) {
		case "type":
			bit = 1
			if !s.Null() {
				d.Type = es.keyword(s.String())
			}
		case "text":
			bit, dst = 2, &d.Text
		case "thinking":
			bit, dst = 4, &d.Thinking
		case "signature":
			bit, dst = 8, &d.Signature
		case "partial_json":
			bit = 16
			if !s.Null() {
				d.partial = s.String().AppendTo(d.partial)
			}
		case "stop_reason":
			if !s.Null() {
				s.Fail() // message_delta, which also carries usage
			}
		default:
			s.Skip()
		}
		if dst != nil && !s.Null() {
			*dst = es.strings.Make(s.String())
		}
		if seen&bit != 0 {
			s.Fail()
		}
		seen |= bit
	}
}

// keyword returns the string of an event or delta type. The types are a
// handful of constants, returned without allocating and kept out of the
// string cache, which is left to the text.
func (es *eventScanner) keyword(v jsonscan.Str) string {
	if !v.Escaped {
		switch string(v.Raw) {
		case "content_block_delta":
			return "content_block_delta"
		case "content_block_start":
			return "content_block_start"
		case "content_block_stop":
			return "content_block_stop"
		case "ping":
			return "ping"
		case "text_delta":
			return "text_delta"
		case "thinking_delta":
			return "thinking_delta"
		case "input_json_delta":
			return "input_json_delta"
		case "signature_delta":
			return "signature_delta"
		}
	}
	return es.strings.Make(v)
}
