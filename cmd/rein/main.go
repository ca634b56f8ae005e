// Command rein runs language models safely: see `rein --help`.
//
// Release builds stamp the version at link time:
//
//	go build -ldflags "-X github.com/reinharness/rein/internal/cli.version=v1.2.3" ./cmd/rein
//
// Other builds report the module version and VCS revision the Go toolchain
// recorded.
package main

import (
	"context"
	"os"

	"github.com/reinharness/rein/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
