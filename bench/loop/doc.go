// Package loop compares the agent loop's own overhead per model call:
// rein, eino (react agent and ChatModelAgent), Google's ADK (llmagent,
// runner, in-memory sessions), langchaingo and a hand-written minimal loop
// as the floor. Every implementation is driven by the same scripted
// model — no network, no JSON on the wire — that asks for K calls of a
// no-op tool, one per model call, and then answers "done", on a history
// of 0 or 1,000 earlier messages. Everything measured is the framework's
// own work: building the request, dispatching the tool, recording the
// result, deciding to go on.
//
// The benchmarks and their correctness check are in the test files; this
// package has no non-test code.
package loop
