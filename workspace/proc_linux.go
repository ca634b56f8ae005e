package workspace

import "github.com/reinharness/rein/workspace/sandbox"

// descendants returns the pids of all living descendants of pid (see
// sandbox.Descendants).
func descendants(pid int) []int { return sandbox.Descendants(pid) }
