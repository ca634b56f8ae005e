// Package sse decodes Server-Sent Events streams as specified by the WHATWG
// HTML standard ("event stream interpretation"), the framing both the OpenAI
// and the Anthropic streaming APIs use.
//
// The decoder is built for the model-streaming hot path: it scans its own
// read buffer with bytes.IndexByte, never allocates per line, reuses the data
// buffer between events and interns event type names, so decoding a stream of
// small events costs almost no garbage. It also tells a cleanly finished
// stream (io.EOF at an event boundary) from a truncated one
// (io.ErrUnexpectedEOF), which providers need to refuse half an answer.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEvent is the largest event (its joined data, or any single line)
// a Decoder from NewDecoder accepts. Model streams send events of a few
// hundred bytes; 16 MiB leaves room for large non-streamed payloads while
// bounding the memory a hostile server can make us hold.
const DefaultMaxEvent = 16 << 20

// initialBuffer is the starting read-buffer size. It is large enough that a
// typical network read fits in one go and small enough to be cheap per
// request; the buffer grows (up to the event limit) only for longer lines.
const initialBuffer = 32 << 10

// maxEmptyReads bounds how often a misbehaving reader may return (0, nil)
// in a row before the decoder gives up, as bufio does.
const maxEmptyReads = 100

// maxInternedTypes bounds the event-type intern table so a hostile stream
// with ever-new type names cannot grow it without limit.
const maxInternedTypes = 64

// ErrEventTooLarge is returned (wrapped) when one event's data, or one line,
// exceeds the decoder's limit.
var ErrEventTooLarge = errors.New("sse: event too large")

// errNegativeRead reports a reader that violated the io.Reader contract.
var errNegativeRead = errors.New("sse: reader returned an invalid byte count")

// utf8BOM is skipped once at the very start of a stream, as the standard
// requires.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Event is one dispatched server-sent event.
type Event struct {
	Type string // the "event:" field; "" means the default "message"
	Data []byte // "data:" lines joined by "\n"; valid only until the next call to Next
	ID   string // the last event ID seen in the stream (it persists across events)
}

// finder caches the position of the next occurrence of one byte in the
// decoder's buffer so that no byte is scanned twice for the same character,
// which keeps decoding linear even for streams whose lines end in a lone CR.
type finder struct {
	c       byte
	pos     int // index of the next occurrence, or -1 if none in [scanned, end)
	scanned int // everything before scanned (and at or after start) has been searched
}

// Decoder reads events from an event stream. It is not safe for concurrent
// use: one goroutine owns a Decoder and the Data of the Event it returned.
type Decoder struct {
	r   io.Reader
	max int

	buf        []byte
	start, end int // unread bytes are buf[start:end]
	lf, cr     finder
	skipLF     bool // the last line ended in '\r'; a '\n' right after it belongs to it
	started    bool // the BOM check has run
	readErr    error
	err        error // sticky result once the stream is over
	emptyReads int

	data    []byte // joined data of the event being built
	hasData bool   // at least one data line since the last dispatch
	inEvent bool   // a field line since the last blank line: EOF now is a truncation
	typ     string // event type of the event being built
	id      string // last event ID buffer
	types   map[string]string
	// lastType is the type name interned last, checked before the map.
	lastType string
}

// NewDecoder returns a Decoder reading from r that accepts events up to
// DefaultMaxEvent bytes.
func NewDecoder(r io.Reader) *Decoder {
	return NewDecoderSize(r, DefaultMaxEvent)
}

// NewDecoderSize returns a Decoder reading from r that accepts events up to
// maxEvent bytes; maxEvent <= 0 selects DefaultMaxEvent.
func NewDecoderSize(r io.Reader, maxEvent int) *Decoder {
	if maxEvent <= 0 {
		maxEvent = DefaultMaxEvent
	}
	return &Decoder{
		r:   r,
		max: maxEvent,
		lf:  finder{c: '\n', pos: -1},
		cr:  finder{c: '\r', pos: -1},
	}
}

// Next returns the next event. It returns io.EOF when the stream ends cleanly
// at an event boundary, and io.ErrUnexpectedEOF (wrapped) when the stream
// ends in the middle of an event: after a field line (data, event, id, …)
// that no blank line closed, or inside an unfinished line; trailing comments
// do not count. Providers use the difference to detect truncated responses.
// Read errors are returned as they came from the reader. Once Next has
// returned an error, it returns the same error on every later call.
func (d *Decoder) Next() (Event, error) {
	if d.err != nil {
		return Event{}, d.err
	}
	for {
		line, err := d.readLine()
		if err != nil {
			d.err = err
			return Event{}, err
		}
		if len(line) == 0 {
			d.inEvent = false
			if !d.hasData {
				// A block without data lines (for example "event:" only)
				// is not dispatched; its type does not leak into the next.
				d.typ = ""
				continue
			}
			ev := Event{Type: d.typ, Data: d.data, ID: d.id}
			d.typ, d.hasData = "", false
			return ev, nil
		}
		if err := d.field(line); err != nil {
			d.err = err
			return Event{}, err
		}
	}
}

// field interprets one non-empty line of the current event.
func (d *Decoder) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment, used by servers as a keep-alive
	}
	d.inEvent = true
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if !d.hasData {
			d.data = d.data[:0]
		}
		size := len(d.data) + len(value)
		if d.hasData {
			size++ // the joining '\n'
		}
		if size > d.max {
			return d.tooLarge()
		}
		if d.hasData {
			d.data = append(d.data, '\n')
		}
		d.data = append(d.data, value...)
		d.hasData = true
	case "event":
		d.typ = d.intern(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != d.id {
			d.id = string(value)
		}
	}
	// "retry" and unknown fields are ignored: reconnection is the
	// caller's business, and the standard says to ignore the rest.
	return nil
}

// intern returns value as a string, reusing an earlier allocation for type
// names already seen: a stream repeats a handful of names thousands of times.
func (d *Decoder) intern(value []byte) string {
	if len(value) == 0 {
		return ""
	}
	if string(value) == d.lastType {
		return d.lastType // runs of one type (a block's deltas) skip the map
	}
	if s, ok := d.types[string(value)]; ok {
		d.lastType = s
		return s
	}
	s := string(value)
	if d.types == nil {
		d.types = make(map[string]string)
	}
	if len(d.types) < maxInternedTypes {
		d.types[s] = s
		d.lastType = s
	}
	return s
}

func (d *Decoder) tooLarge() error {
	return fmt.Errorf("%w: more than %d bytes (raise the limit with NewDecoderSize)", ErrEventTooLarge, d.max)
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call. At the end of input it returns io.EOF if the stream
// stopped at an event boundary and a wrapped io.ErrUnexpectedEOF if not.
func (d *Decoder) readLine() ([]byte, error) {
	for {
		if d.started && d.start < d.end {
			if d.skipLF {
				d.skipLF = false
				if d.buf[d.start] == '\n' {
					d.start++
					continue
				}
			}
			if line, ok := d.scanLine(); ok {
				return line, nil
			}
		}
		if d.readErr != nil {
			return nil, d.finish()
		}
		if err := d.fill(); err != nil {
			return nil, err
		}
		// Wait for enough bytes to tell whether a BOM starts the stream,
		// but only while what arrived could still be one: a live stream
		// must not stall on its first short line.
		if !d.started && (d.end-d.start >= len(utf8BOM) || d.readErr != nil ||
			!bytes.HasPrefix(utf8BOM, d.buf[d.start:d.end])) {
			d.started = true
			if bytes.HasPrefix(d.buf[d.start:d.end], utf8BOM) {
				d.start += len(utf8BOM)
			}
		}
	}
}

// scanLine cuts one terminated line from the buffer, if there is one.
func (d *Decoder) scanLine() ([]byte, bool) {
	lf := d.find(&d.lf)
	cr := d.find(&d.cr)
	switch {
	case lf < 0 && cr < 0:
		return nil, false
	case cr < 0 || (lf >= 0 && lf < cr):
		line := d.buf[d.start:lf]
		d.start = lf + 1
		return line, true
	default:
		line := d.buf[d.start:cr]
		d.start = cr + 1
		if cr+1 < d.end {
			if d.buf[cr+1] == '\n' {
				d.start++
			}
		} else {
			// The '\n' of a CRLF may still be on its way; deciding now
			// keeps a live stream from blocking on a byte that may never come.
			d.skipLF = true
		}
		return line, true
	}
}

// find returns the index of the next occurrence of f.c at or after d.start,
// or -1, searching only bytes it has not searched before.
func (d *Decoder) find(f *finder) int {
	if f.pos >= d.start {
		return f.pos
	}
	from := max(d.start, f.scanned)
	if i := bytes.IndexByte(d.buf[from:d.end], f.c); i >= 0 {
		f.pos, f.scanned = from+i, from+i
		return f.pos
	}
	f.pos, f.scanned = -1, d.end
	return -1
}

// finish decides how the stream ended once no terminated line is left.
func (d *Decoder) finish() error {
	if !errors.Is(d.readErr, io.EOF) {
		return d.readErr
	}
	tail := d.buf[d.start:d.end]
	if d.inEvent || (len(tail) > 0 && tail[0] != ':') {
		pending := len(tail)
		if d.hasData {
			pending += len(d.data)
		}
		return fmt.Errorf("sse: stream ended inside an event (%d bytes pending): %w", pending, io.ErrUnexpectedEOF)
	}
	return io.EOF
}

// fill reads more input, first making room by moving unread bytes to the
// front of the buffer and growing it (up to the limit) when a line fills it.
func (d *Decoder) fill() error {
	if d.buf == nil {
		d.buf = make([]byte, min(initialBuffer, d.max+1))
	}
	if d.start > 0 {
		n := copy(d.buf, d.buf[d.start:d.end])
		d.shift(d.start)
		d.start, d.end = 0, n
	}
	if d.end == len(d.buf) {
		// A line longer than the limit plus room for its field name and
		// terminator cannot belong to an acceptable event.
		limit := d.max + 64
		if len(d.buf) >= limit {
			return d.tooLarge()
		}
		grown := make([]byte, min(2*len(d.buf), limit))
		copy(grown, d.buf[:d.end])
		d.buf = grown
	}
	for {
		n, err := d.r.Read(d.buf[d.end:])
		if n < 0 || n > len(d.buf)-d.end {
			return errNegativeRead
		}
		d.end += n
		if err != nil {
			d.readErr = err
			return nil
		}
		if n > 0 {
			d.emptyReads = 0
			return nil
		}
		d.emptyReads++
		if d.emptyReads >= maxEmptyReads {
			return io.ErrNoProgress
		}
	}
}

// shift moves the cached finder positions after the buffer was compacted.
func (d *Decoder) shift(off int) {
	for _, f := range []*finder{&d.lf, &d.cr} {
		if f.pos >= 0 {
			f.pos -= off
		}
		f.scanned = max(f.scanned-off, 0)
	}
}
