package memory

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"
)

// Lazy returns a Store backed by the SQLite store at cfg.Path that opens
// the database only when it is needed: reads while no database file
// exists find nothing and create nothing, and the first Put creates it.
// A session that never remembers anything — most of them, and every first
// run on a machine — then costs no database creation (a schema and its
// fsyncs) on the way to its first model request.
//
// Errors opening the database are those of OpenSQLite, returned by the
// call that needed it. Lazy is safe for concurrent use.
func Lazy(cfg Config) Store { return &lazy{cfg: cfg} }

type lazy struct {
	cfg    Config
	mu     sync.Mutex
	s      *SQLite
	closed bool
}

var errClosed = errors.New("memory: store is closed")

// open returns the open store; with create false and no database file it
// returns nil and no error (there is nothing to read).
func (l *lazy) open(ctx context.Context, create bool) (*SQLite, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errClosed
	}
	if l.s != nil {
		return l.s, nil
	}
	if !create {
		if _, err := os.Stat(l.cfg.Path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	s, err := OpenSQLite(ctx, l.cfg)
	if err != nil {
		return nil, err
	}
	l.s = s
	return s, nil
}

func (l *lazy) Put(ctx context.Context, e Entry) (Entry, error) {
	s, err := l.open(ctx, true)
	if err != nil {
		return Entry{}, err
	}
	return s.Put(ctx, e)
}

func (l *lazy) Get(ctx context.Context, id string) (Entry, error) {
	s, err := l.open(ctx, false)
	if err != nil || s == nil {
		return Entry{}, errors.Join(err, notFoundUnless(err))
	}
	return s.Get(ctx, id)
}

func (l *lazy) Delete(ctx context.Context, id string) error {
	s, err := l.open(ctx, false)
	if err != nil || s == nil {
		return errors.Join(err, notFoundUnless(err))
	}
	return s.Delete(ctx, id)
}

func (l *lazy) List(ctx context.Context, f Filter) ([]Entry, error) {
	s, err := l.open(ctx, false)
	if err != nil || s == nil {
		return nil, err
	}
	return s.List(ctx, f)
}

func (l *lazy) Search(ctx context.Context, query string, f Filter) ([]Hit, error) {
	s, err := l.open(ctx, false)
	if err != nil || s == nil {
		return nil, err
	}
	return s.Search(ctx, query, f)
}

func (l *lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.s == nil {
		return nil
	}
	return l.s.Close()
}

// notFoundUnless is ErrNotFound when there is no other error: an entry
// looked up in a store with no database does not exist.
func notFoundUnless(err error) error {
	if err != nil {
		return nil
	}
	return ErrNotFound
}
