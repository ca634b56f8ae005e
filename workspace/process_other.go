//go:build !unix

package workspace

import (
	"context"
	"errors"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

type process struct {
	launch    sandbox.Launch
	dir       string
	env       []string
	timeout   time.Duration
	maxOutput int
	grace     time.Duration
	onOutput  func([]byte) // ExecOptions.OnOutput
	track     ProcessTracker
}

// runProcess needs process groups, which only Unix systems have.
func runProcess(context.Context, process) (ExecResult, error) {
	return ExecResult{}, errors.New("run command: needs a Unix system (process groups)")
}
