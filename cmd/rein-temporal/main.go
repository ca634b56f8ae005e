// Command rein-temporal is rein with the commands that run sessions on a
// Temporal service: rein worker, submit, status, cancel and approve. rein
// runs it in its own place for those commands, so that rein itself never
// links Temporal's SDK; install both side by side:
//
//	go install github.com/reinharness/rein/cmd/rein github.com/reinharness/rein/cmd/rein-temporal
package main

import (
	"context"
	"os"

	"github.com/reinharness/rein/internal/cli"
	"github.com/reinharness/rein/internal/temporalcli"
)

func main() {
	os.Exit(cli.MainWith(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, temporalcli.Commands))
}
