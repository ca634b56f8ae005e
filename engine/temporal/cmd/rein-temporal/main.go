// Command rein-temporal is rein with the commands that run sessions on a
// Temporal service: rein worker, submit, status, cancel and approve. rein
// runs it in its own place for those commands, so that rein itself never
// links Temporal's SDK; install both side by side, from a checkout:
//
//	go install ./cmd/rein && go install -C engine/temporal ./cmd/rein-temporal
//
// It is in the module github.com/reinharness/rein/engine/temporal, so that
// the Temporal SDK never enters the module graph of rein's library.
package main

import (
	"context"
	"os"

	"github.com/reinharness/rein/engine/temporal/internal/temporalcli"
	"github.com/reinharness/rein/internal/cli"
)

func main() {
	os.Exit(cli.MainWith(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, temporalcli.Commands))
}
