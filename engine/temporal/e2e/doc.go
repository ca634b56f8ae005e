// Package e2e holds the acceptance tests of rein's Temporal engine: a
// real Temporal server (go.temporal.io/server/temporaltest), the real
// rein binary as worker and client processes, and a loopback fake model.
//
// It is a module of its own so that the Temporal server, about 1,600
// packages, never enters rein's go.mod. Run it with
//
//	cd engine/temporal/e2e && go test -count=1 -p 1 ./...
//
// Its go.mod pins go.temporal.io/sdk and go.temporal.io/api at rein's
// versions, with a go.temporal.io/server that builds with them: keep them
// in step with rein's go.mod (then `go mod tidy` here).
package e2e
