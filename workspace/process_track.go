package workspace

import "context"

// ProcessTracker records the process of each command while it runs, so
// that a later rein can find what a crashed one left (see package
// internal/procreg). Begin is called before the process starts, with the
// context of the Exec call (it carries the tool call's identity): an
// error refuses the command. The returned handle's Started gets the
// leader's pid — its process group — right after the start, and End is
// called once the command and everything it started are gone.
type ProcessTracker interface {
	Begin(ctx context.Context) (TrackedProcess, error)
}

// TrackedProcess is one command's record.
type TrackedProcess interface {
	Started(pid int) error
	End()
}

// TrackProcesses makes Exec record every command's process with t (nil
// stops it).
func (w *Workspace) TrackProcesses(t ProcessTracker) {
	w.tracker.Store(&t)
}

// processTracker returns the tracker set by TrackProcesses, or nil.
func (w *Workspace) processTracker() ProcessTracker {
	if p := w.tracker.Load(); p != nil {
		return *p
	}
	return nil
}
