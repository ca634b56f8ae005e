//go:build !unix

package workspace

import (
	"context"
	"errors"
	"os"
	"time"
)

type process struct {
	path      string
	args      []string
	dir       string
	env       []string
	files     []*os.File
	timeout   time.Duration
	maxOutput int
	grace     time.Duration
	onOutput  func([]byte) // ExecOptions.OnOutput
}

// runProcess needs process groups, which only Unix systems have.
func runProcess(context.Context, process) (ExecResult, error) {
	return ExecResult{}, errors.New("run command: needs a Unix system (process groups)")
}
