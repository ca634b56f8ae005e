// Package stream compares the whole streamed-response parse — SSE
// framing, chunk JSON, assembly of text and tool calls — of rein's
// providers with the official SDKs on the same bytes: rein's OpenAI
// provider against openai-go (ssestream and its ChatCompletionAccumulator)
// and rein's Anthropic provider against anthropic-sdk-go (its stream and
// Message.Accumulate). Every client gets the same recorded stream from an
// in-memory http.RoundTripper, so no socket is involved; the figures are
// MB/s of wire bytes and allocations per SSE chunk.
//
// The streams are the ~2 MB ones rein's own benchmarks build from the
// recordings in model/modeltest/testdata (recorded frames repeated), and
// the correctness check runs the recordings themselves too.
package stream
