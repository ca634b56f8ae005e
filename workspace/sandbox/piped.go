package sandbox

import (
	"os"
	"os/exec"
)

// Pipes are rein's ends of a started command's standard streams.
type Pipes struct {
	Stdin          *os.File // written by rein
	Stdout, Stderr *os.File // read by rein
}

// StartPiped applies l to cmd, connects its stdin, stdout and stderr to
// new pipes and starts it: the start of a long-running server that
// speaks over its standard streams (an MCP server, a language server).
// The child's ends are closed here once it holds its copies. On failure
// every pipe is closed and the launch released; the error is cmd.Start's
// (or the pipe's), for the caller to explain.
func (l Launch) StartPiped(cmd *exec.Cmd) (Pipes, error) {
	l.Apply(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		l.Release(nil)
		return Pipes{}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW)
		l.Release(nil)
		return Pipes{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW, outR, outW)
		l.Release(nil)
		return Pipes{}, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeFiles(inR, inW, outR, outW, errR, errW)
		l.Release(nil)
		return Pipes{}, err
	}
	closeFiles(inR, outW, errW)
	return Pipes{Stdin: inW, Stdout: outR, Stderr: errR}, nil
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
