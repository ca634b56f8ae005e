// Package e2e holds the acceptance tests of rein's Temporal engine: a
// real Temporal server (go.temporal.io/server/temporaltest), the real
// rein binary as worker and client processes, and a loopback fake model.
//
// It is a module of its own so that the Temporal server, about 1,600
// packages, never enters rein's go.mod. Run it with
//
//	cd engine/temporal/e2e && go test -count=1 -p 1 ./...
//
// after `go mod tidy` here whenever rein's own dependencies change.
package e2e
