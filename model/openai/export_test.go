package openai

import (
	"encoding/json"
	"io"
	"iter"
	"time"

	"github.com/reinharness/rein/model"
)

// ParseStream exposes the event-stream parser to the external tests, so
// they can feed it through reader wrappers without an HTTP round trip.
func ParseStream(r io.Reader) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		parseStream(r, streamMeta{status: 200}, yield)
	}
}

// FinishArgs exposes argument completion and repair to the external tests.
func FinishArgs(raw []byte) (json.RawMessage, error) { return finishArgs(raw) }

// OracleParseStream is the stream parser as it was before the fast chunk
// path (oracle_test.go), for the differential tests.
func OracleParseStream(r io.Reader) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		oracleParseStream(r, streamMeta{status: 200}, yield)
	}
}

// SetDiscoveryTimeout shortens context-window discovery's bound for a test.
func SetDiscoveryTimeout(t interface{ Cleanup(func()) }, d time.Duration) {
	old := discoveryTimeout
	discoveryTimeout = d
	t.Cleanup(func() { discoveryTimeout = old })
}
