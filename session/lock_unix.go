//go:build unix

package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sessionLock is an exclusive advisory lock on one session, held by the
// process that journals it. The kernel drops it when the process dies,
// however it dies, so a crashed run never leaves a session locked.
type sessionLock struct{ f *os.File }

// lockSession takes the lock of session id, or fails at once with
// ErrConcurrentWriter when another process holds it.
func lockSession(dbPath, id string) (*sessionLock, error) {
	dir := filepath.Join(filepath.Dir(dbPath), "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session: creating the lock directory: %w", err)
	}
	path := filepath.Join(dir, id+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: opening the lock of %s: %w", id, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := readHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: session %s is in use by another rein%s; wait for it to finish, or fork the session (--fork)", ErrConcurrentWriter, id, holder)
		}
		return nil, fmt.Errorf("session: locking %s: %w", id, err)
	}
	// The pid is informational, for the message above.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	}
	return &sessionLock{f: f}, nil
}

func readHolder(f *os.File) string {
	b := make([]byte, 16)
	n, _ := f.ReadAt(b, 0)
	pid := strings.TrimSpace(string(b[:n]))
	if _, err := strconv.Atoi(pid); err != nil {
		return ""
	}
	return " (pid " + pid + ")"
}

// remove deletes the lock file of a deleted session, then releases the
// lock. Holding the lock while removing means no live run uses the file.
func (l *sessionLock) remove() {
	if l != nil && l.f != nil {
		os.Remove(l.f.Name())
	}
	l.unlock()
}

// unlock releases the lock. The file stays: removing it would race with
// another process that opened it and is about to lock it.
func (l *sessionLock) unlock() {
	if l != nil && l.f != nil {
		l.f.Close() // closing the descriptor drops the flock
		l.f = nil
	}
}
