package cli

import "os"

// isTerminal reports whether r is an interactive terminal. A character
// device is not enough: /dev/null is one, and `rein chat < /dev/null` or
// a CI job whose stdin is /dev/null must not get prompts, a banner or
// approval questions nobody can answer. The terminal's own ioctl decides
// (see isatty).
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	return isatty(f)
}
