//go:build !unix

package session

// sessionLock is a no-op where flock is unavailable; the journal's
// optimistic check (the events count) still refuses a second writer at its
// first commit.
type sessionLock struct{}

func lockSession(dbPath, id string) (*sessionLock, error) { return &sessionLock{}, nil }

func (l *sessionLock) unlock() {}

func (l *sessionLock) remove() {}
