//go:build !linux

package sandbox

// guarded returns l unchanged: the supervisor needs Linux (a child
// subreaper, parent-death signals, /proc).
func (l Launch) guarded(int) Launch { return l }
