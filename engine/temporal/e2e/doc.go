// Package e2e holds the acceptance tests of rein's Temporal engine: a
// real Temporal server (go.temporal.io/server/temporaltest), the real
// rein binary as worker and client processes, and a loopback fake model.
//
// It is a module of its own, next to (and excluded from) the module
// engine/temporal, so that the Temporal server, about 1,600 packages,
// never enters the engine's or rein's go.mod. It cannot join the engine's
// module: the server (v1.32.1) is written against the v0.20 API of
// go.opentelemetry.io/otel/log, which rein's OpenTelemetry (v1.47) raises
// to the incompatible v1.47 in any build list that holds both. So it
// imports no rein package and builds rein and rein-temporal as programs in
// their own modules. Run it with
//
//	cd engine/temporal/e2e && go test -count=1 -p 1 ./...
//
// Its go.mod pins go.temporal.io/sdk and go.temporal.io/api at the
// engine's versions (engine/temporal/go.mod), with a go.temporal.io/server
// that builds with them: keep them in step (then `go mod tidy` here).
package e2e
