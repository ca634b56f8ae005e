//go:build !linux

package sandbox

import "fmt"

// selfExe is unused where Landlock does not exist.
const selfExe = ""

// Available reports that Landlock exists only on Linux.
func Available() (int, error) {
	return 0, fmt.Errorf("%w: Landlock is a Linux feature", ErrUnavailable)
}
