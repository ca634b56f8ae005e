// Package adk is the agent-loop comparison's Google ADK entry, in a
// module of its own: google.golang.org/adk/v2 v2.2.0 is built against
// go.opentelemetry.io/otel/log v0.20.0, whose API v1.47.0 (required by
// the OpenTelemetry version rein uses) no longer has, so the two cannot
// share a build. Its benchmarks carry the same names as package loop's
// and benchtab puts them in the same table; script_test.go is a copy of
// loop's (TestCorrectScriptShared there keeps it identical).
package adk
