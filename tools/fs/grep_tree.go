package fs

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// grepJob is one file on its way through the search pipeline.
type grepJob struct {
	rel  string
	dir  *dirNode // holds it open, released by the worker
	res  fileResult
	done chan struct{}
}

// grepWindow bounds the files in flight between the walk and the merge:
// enough to keep every worker busy while the merge waits for the file
// next in order, and little wasted work once the caps are reached.
const grepWindow = 64

// grepTree searches the regular files below root (filtered by glob) on
// GOMAXPROCS workers and merges their results into st in walk order, so
// the output, and where the caps cut it, is that of a file-by-file
// search. Once the caps are reached the walk and the workers stop.
func (s *grepSearch) tree(ctx context.Context, w *searchWalker, st *grepState, root, glob string) error {
	jobs := make(chan *grepJob, grepWindow)
	order := make(chan *grepJob, grepWindow)
	stop := make(chan struct{})
	var stopped atomic.Bool

	var workers sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			g := s.worker()
			defer g.release()
			for j := range jobs {
				if !stopped.Load() {
					j.res = g.searchIn(j.dir.dir, j.rel)
				}
				j.dir.release()
				close(j.done)
			}
		}()
	}

	var walkErr error
	go func() {
		defer close(order)
		defer close(jobs)
		walkErr = w.walk(ctx, root, 0, func(e walkEntry, dir *dirNode) error {
			if e.entry.IsDir() || !e.entry.Type().IsRegular() {
				return nil
			}
			if glob != "" && !globMatches(glob, e.rel, root) {
				return nil
			}
			j := &grepJob{rel: e.rel, dir: dir, done: make(chan struct{})}
			dir.acquire()
			select {
			case jobs <- j:
			case <-stop:
				dir.release()
				return errStopWalk
			}
			select {
			case order <- j:
			case <-stop:
				return errStopWalk
			}
			return nil
		})
	}()

	for j := range order {
		<-j.done
		if st.full {
			continue // draining after the stop
		}
		st.merge(j.res, s.opts, s.ctxLines)
		if st.full {
			stopped.Store(true)
			close(stop)
		}
	}
	workers.Wait()
	if st.full {
		return nil
	}
	return walkErr
}
