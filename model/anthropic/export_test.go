package anthropic

import (
	"io"
	"iter"

	"github.com/reinharness/rein/model"
)

// The pure halves of the provider, exported to the external tests so that
// the stream state machine can be property-tested and fuzzed on bytes and
// the request encoder checked without a server.

// StreamEvents decodes a Messages API event stream opened with status 200.
func StreamEvents(r io.Reader) iter.Seq2[model.Event, error] {
	return streamEvents(r, 200, "req_test", 0)
}

// EncodeRequest encodes req as the provider would.
func EncodeRequest(req *model.Request, modelName string, maxTokens int, stream bool) ([]byte, error) {
	return encodeRequest(req, encodeOptions{Model: modelName, MaxTokens: maxTokens, Stream: stream})
}

// MessageEvents converts a whole message body.
func MessageEvents(body []byte) ([]model.Event, error) {
	return messageEvents(body, 200, "req_test")
}

// OracleStreamEvents is the stream decoder as it was before the fast event
// path (oracle_test.go), for the differential tests.
func OracleStreamEvents(r io.Reader) iter.Seq2[model.Event, error] {
	return oracleStreamEvents(r, 200, "req_test")
}
