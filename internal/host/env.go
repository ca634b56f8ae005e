package host

import (
	"errors"
	"io"
)

// Env is the process environment the composition root reads: variables
// (HOME, XDG_*, REIN_*, API keys), the working directory and where
// warnings go. A front end passes its own (cli.App.Env), so tests run
// with an environment of their making and nothing here reads os.Getenv.
type Env struct {
	// Getenv reads a variable; it must not be nil.
	Getenv func(string) string
	// Getwd is the working directory; nil means none is known.
	Getwd func() (string, error)
	// Stderr receives the one-line warnings ("rein: warning: …").
	Stderr io.Writer
}

// getwd is Getwd, or an error when the front end knows no working
// directory.
func (e Env) getwd() (string, error) {
	if e.Getwd == nil {
		return "", errNoWorkDir
	}
	return e.Getwd()
}

var errNoWorkDir = errors.New("no working directory")
