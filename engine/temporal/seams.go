package temporal

import (
	"context"
	"strconv"
	"sync"
	"time"

	"go.temporal.io/sdk/workflow"
)

// The agent loop takes a context.Context; the workflow code it reaches
// through the stubs needs the workflow.Context of the coroutine it runs
// on. The context.Context carries it: the workflow's root context for the
// loop itself, and each fan-out coroutine's own for the calls it runs.

type workflowKey struct{}

// withWorkflow returns ctx carrying wctx.
func withWorkflow(ctx context.Context, wctx workflow.Context) context.Context {
	return context.WithValue(ctx, workflowKey{}, wctx)
}

// workflowOf returns the workflow context ctx carries. A stub called
// without one is a programming error: it would block a goroutine Temporal
// does not schedule.
func workflowOf(ctx context.Context) workflow.Context {
	wctx, ok := ctx.Value(workflowKey{}).(workflow.Context)
	if !ok {
		panic("engine/temporal: a workflow stub was called outside the session workflow")
	}
	return wctx
}

// workflowClock is workflow time: the same on every replay.
type workflowClock struct{ wctx workflow.Context }

func (c workflowClock) Now() time.Time { return workflow.Now(c.wctx) }

// workflowIDs mints ids from the workflow run's id and a counter, so a
// replay mints the same ones and two runs never share one.
type workflowIDs struct {
	mu   sync.Mutex
	run  string
	next map[string]int
}

func newWorkflowIDs(wctx workflow.Context) *workflowIDs {
	run := workflow.GetInfo(wctx).WorkflowExecution.RunID
	if len(run) > 12 {
		run = run[:12]
	}
	return &workflowIDs{run: run, next: map[string]int{}}
}

func (g *workflowIDs) NewID(prefix string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next[prefix]++
	id := g.run + "_" + strconv.Itoa(g.next[prefix])
	if prefix == "" {
		return id
	}
	return prefix + "_" + id
}

// workflowFanOut runs each call on a workflow coroutine of its own, at
// most limit at once, and hands it a context carrying that coroutine's
// workflow context. The coroutines are started in index order, so a
// replay schedules the same activities in the same order.
type workflowFanOut struct{}

func (workflowFanOut) Run(ctx context.Context, n, limit int, fn func(ctx context.Context, i int)) {
	if n == 1 {
		fn(ctx, 0)
		return
	}
	wctx := workflowOf(ctx)
	if limit <= 0 || limit > n {
		limit = n
	}
	sem := workflow.NewSemaphore(wctx, int64(limit))
	wg := workflow.NewWaitGroup(wctx)
	for i := range n {
		wg.Add(1)
		workflow.Go(wctx, func(c workflow.Context) {
			defer wg.Done()
			// Acquire fails only when the workflow is cancelled; the
			// call then still runs fn, which sees the cancelled run and
			// records the call interrupted.
			if err := sem.Acquire(c, 1); err == nil {
				defer sem.Release(1)
			}
			fn(withWorkflow(ctx, c), i)
		})
	}
	wg.Wait(wctx)
}
