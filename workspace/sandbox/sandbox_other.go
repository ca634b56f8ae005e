//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
)

// selfExe is unused where Landlock does not exist.
const selfExe = ""

// Available reports that Landlock exists only on Linux.
func Available() (int, error) {
	return 0, fmt.Errorf("%w: Landlock is a Linux feature", ErrUnavailable)
}

// Namespaces reports that the namespace layer exists only on Linux.
func Namespaces() (string, error) {
	return "", errors.New("namespaces are a Linux feature")
}

func makeNonDumpable() error { return nil }

func prepareNamespaces(Policy, childConfig, string, string, []string, int) (Launch, error) {
	return Launch{}, errors.New("sandbox: namespaces are a Linux feature")
}

// exeFD is the descriptor of the binary bubblewrap starts (Linux only).
const exeFD = 3

// newRuleset: Landlock is a Linux feature.
func newRuleset(childConfig) (*os.File, uint32, error) { return nil, 0, nil }
