package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TaskSupport says whether a tool may run as an MCP task (a call the
// client starts, then polls and collects later), as its
// execution.taskSupport is listed.
type TaskSupport string

const (
	// TaskForbidden (the zero value) runs every call synchronously.
	TaskForbidden TaskSupport = ""
	// TaskOptional runs a call as a task when the client asks for one
	// (2025-11-25: the task parameter of tools/call) or has negotiated
	// the tasks extension (2026-07-28, where the server decides).
	TaskOptional TaskSupport = "optional"
	// TaskRequired refuses a call the client does not make as a task.
	TaskRequired TaskSupport = "required"
)

// Task statuses, shared by both protocol eras.
const (
	statusWorking       = "working"
	statusInputRequired = "input_required"
	statusCompleted     = "completed"
	statusFailed        = "failed"
	statusCancelled     = "cancelled"
)

// Defaults for TaskLimits fields left zero.
const (
	DefaultMaxLiveTasks     = 16
	DefaultMaxKeptTasks     = 256
	DefaultTaskTTL          = time.Hour
	DefaultMaxTaskTTL       = 24 * time.Hour
	DefaultTaskPollInterval = 500 * time.Millisecond
	// maxTaskRounds bounds the input rounds one task may ask for, so a
	// handler that always wants more input cannot park forever.
	maxTaskRounds = 16
)

// TaskLimits bounds the tasks a server keeps. Tasks live in memory: a
// restarted server has none.
type TaskLimits struct {
	// MaxLive bounds the tasks running (or waiting for input) at once;
	// a call beyond it is refused with an error, never queued (default
	// DefaultMaxLiveTasks).
	MaxLive int
	// MaxKept bounds all tasks kept, finished ones included; the oldest
	// finished task is forgotten to make room (default
	// DefaultMaxKeptTasks).
	MaxKept int
	// DefaultTTL is how long a task is kept after its creation when the
	// client names no TTL; MaxTTL caps what a client may ask for. A task
	// still running when its TTL ends is cancelled and forgotten.
	DefaultTTL, MaxTTL time.Duration
	// PollInterval is the polling interval suggested to clients.
	PollInterval time.Duration
	// NoStatusNotifications stops notifications/tasks/status (sent to
	// 2025-11-25 clients over stdio), leaving clients to poll.
	NoStatusNotifications bool
}

func (l TaskLimits) withDefaults() TaskLimits {
	if l.MaxLive <= 0 {
		l.MaxLive = DefaultMaxLiveTasks
	}
	if l.MaxKept <= 0 {
		l.MaxKept = DefaultMaxKeptTasks
	}
	if l.MaxKept < l.MaxLive {
		l.MaxKept = l.MaxLive
	}
	if l.MaxTTL <= 0 {
		l.MaxTTL = DefaultMaxTaskTTL
	}
	if l.DefaultTTL <= 0 {
		l.DefaultTTL = DefaultTaskTTL
	}
	l.DefaultTTL = min(l.DefaultTTL, l.MaxTTL)
	if l.PollInterval <= 0 {
		l.PollInterval = DefaultTaskPollInterval
	}
	return l
}

// errTooManyTasks refuses a task beyond TaskLimits.MaxLive.
var errTooManyTasks = errors.New("too many tasks are running")

// roundFunc runs one round of a task's tool call, with the input
// responses (and requestState) gathered for it.
type roundFunc func(ctx context.Context, answers sdk.InputResponseMap, state string) (*sdk.CallToolResult, error)

// task is one task. Its identity fields are fixed at creation; the rest
// is guarded by the store's mutex.
type task struct {
	id      string
	owner   string // the legacy session that created it ("" for 2026-07-28)
	legacy  bool   // created by a 2025-11-25 client: isError reads "failed"
	created time.Time
	ttl     time.Duration
	cancel  context.CancelFunc
	done    chan struct{} // closed once the task is terminal
	resume  chan struct{} // signalled when every pending input is answered
	expiry  *time.Timer
	// viaResult (2025-11-25 over HTTP): the task's requests to the
	// client wait for a pending tasks/result to travel on (taskrelay.go).
	viaResult bool
	// notify, when set, tells the client of each change of state
	// (tasknotify.go); it is called without the store's lock.
	notify func()

	status  string
	message string
	updated time.Time
	result  *sdk.CallToolResult
	err     *jsonrpc.Error
	pending sdk.InputRequestMap // input asked for and not yet answered
	answers sdk.InputResponseMap
	relays  []context.Context // pending tasks/result requests, oldest first
	relayed chan struct{}     // closed (and replaced) when one arrives
	asking  int               // requests to the client awaiting an answer
}

func (t *task) terminal() bool {
	return t.status == statusCompleted || t.status == statusFailed || t.status == statusCancelled
}

// taskStore holds a server's tasks. It is safe for concurrent use.
type taskStore struct {
	lim TaskLimits
	now func() time.Time

	mu    sync.Mutex
	tasks map[string]*task

	streams getStreams // sessions' GET streams, for status notifications over HTTP
}

func newTaskStore(lim TaskLimits) *taskStore {
	return &taskStore{lim: lim.withDefaults(), now: time.Now, tasks: map[string]*task{}}
}

// ttlFor clamps a requested TTL (nil: none requested).
func (st *taskStore) ttlFor(requestedMs *int64) time.Duration {
	if requestedMs == nil || *requestedMs <= 0 {
		return st.lim.DefaultTTL
	}
	if *requestedMs >= st.lim.MaxTTL.Milliseconds() { // also keeps the product below from overflowing
		return st.lim.MaxTTL
	}
	return time.Duration(*requestedMs) * time.Millisecond
}

// start creates a task and runs it in the background under a context
// that keeps parent's values but outlives the request creating it. The
// task is in the store before start returns, so a tasks/get right after
// creation finds it.
func (st *taskStore) start(parent context.Context, owner string, legacy, viaResult bool, ttl time.Duration, run roundFunc) (*task, error) {
	now := st.now()
	t := &task{
		id: newTaskID(), owner: owner, legacy: legacy, viaResult: viaResult, created: now, ttl: ttl,
		done: make(chan struct{}), resume: make(chan struct{}, 1), relayed: make(chan struct{}),
		status: statusWorking, updated: now,
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(parent), taskKey{}, t))
	t.cancel = cancel
	t.notify = st.notifierFor(parent, t)
	st.mu.Lock()
	if err := st.makeRoomLocked(); err != nil {
		st.mu.Unlock()
		cancel()
		return nil, err
	}
	st.tasks[t.id] = t
	t.expiry = time.AfterFunc(ttl, func() { st.expire(t.id) })
	st.mu.Unlock()
	go st.run(ctx, t, run)
	if hangUp, ok := parent.Value(connDoneKey{}).(<-chan struct{}); ok {
		go func() {
			select {
			case <-hangUp:
				st.cancelTask(t)
			case <-t.done:
			}
		}()
	}
	return t, nil
}

// makeRoomLocked refuses a task beyond MaxLive and forgets the oldest
// finished task when MaxKept are kept.
func (st *taskStore) makeRoomLocked() error {
	live := 0
	var oldest *task
	for _, t := range st.tasks {
		if !t.terminal() {
			live++
		} else if oldest == nil || t.created.Before(oldest.created) {
			oldest = t
		}
	}
	if live >= st.lim.MaxLive {
		return fmt.Errorf("%w (%d, the limit); wait for one to finish or cancel one with tasks/cancel", errTooManyTasks, live)
	}
	if len(st.tasks) >= st.lim.MaxKept && oldest != nil {
		st.forgetLocked(oldest)
	}
	return nil
}

func (st *taskStore) forgetLocked(t *task) {
	t.expiry.Stop()
	delete(st.tasks, t.id)
}

// run drives a task through its rounds: a round that asks for input parks
// the task as input_required until tasks/update has answered every
// request, then the call runs again with the answers.
func (st *taskStore) run(ctx context.Context, t *task, run roundFunc) {
	defer t.cancel()
	var answers sdk.InputResponseMap
	state := ""
	for range maxTaskRounds {
		res, err := safeRound(ctx, run, answers, state)
		switch {
		case ctx.Err() != nil:
			st.finish(t, statusCancelled, "the task was cancelled", nil, nil)
			return
		case err != nil:
			st.finish(t, statusFailed, err.Error(), nil, toRPCError(err))
			return
		case res.NeedsInput() || len(res.InputRequests) > 0:
			state = res.RequestState
			if answers = st.park(ctx, t, res.InputRequests); answers == nil {
				st.finish(t, statusCancelled, "the task was cancelled while waiting for input", nil, nil)
				return
			}
			continue
		}
		status := statusCompleted
		if res.IsError && t.legacy {
			status = statusFailed // 2025-11-25: a tool error fails the task
		}
		st.finish(t, status, "", res, nil)
		return
	}
	st.finish(t, statusFailed, fmt.Sprintf("the tool asked for input more than %d times", maxTaskRounds), nil,
		&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many input rounds"})
}

// safeRound runs a round, turning a panic into an error.
func safeRound(ctx context.Context, run roundFunc, answers sdk.InputResponseMap, state string) (res *sdk.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("the tool failed (%v)", v)
		}
	}()
	res, err = run(ctx, answers, state)
	if err == nil && res == nil {
		err = errors.New("the tool returned no result")
	}
	return res, err
}

// park records the input a round asked for and waits until it is all
// answered; nil means the task ended meanwhile.
func (st *taskStore) park(ctx context.Context, t *task, asks sdk.InputRequestMap) sdk.InputResponseMap {
	st.mu.Lock()
	if t.terminal() {
		st.mu.Unlock()
		return nil
	}
	t.pending = asks
	t.answers = sdk.InputResponseMap{}
	t.status, t.message, t.updated = statusInputRequired, "waiting for the client's input", st.now()
	st.mu.Unlock()
	t.changed()
	select {
	case <-t.resume:
	case <-ctx.Done():
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	answers := t.answers
	t.answers = nil
	return answers
}

// answer files input responses for a task (tasks/update). Responses to
// requests not pending are ignored, as the protocol asks; once nothing is
// pending the task resumes.
func (st *taskStore) answer(t *task, responses sdk.InputResponseMap) {
	if st.answerLocked(t, responses) {
		t.changed()
	}
}

// answerLocked files the responses under the lock and reports whether
// the task resumed.
func (st *taskStore) answerLocked(t *task, responses sdk.InputResponseMap) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.status != statusInputRequired {
		return false
	}
	for k, v := range responses {
		if _, ok := t.pending[k]; ok {
			t.answers[k] = v
			delete(t.pending, k)
		}
	}
	t.updated = st.now()
	if len(t.pending) == 0 {
		t.pending = nil
		t.status, t.message = statusWorking, ""
		select {
		case t.resume <- struct{}{}:
		default:
		}
		return true
	}
	return false
}

// finish makes a task terminal, unless it already is (a cancellation
// wins over the result of the call it interrupted).
func (st *taskStore) finish(t *task, status, message string, res *sdk.CallToolResult, err *jsonrpc.Error) {
	st.mu.Lock()
	if t.terminal() {
		st.mu.Unlock()
		return
	}
	t.status, t.message, t.updated = status, message, st.now()
	t.result, t.err, t.pending = res, err, nil
	close(t.done)
	st.mu.Unlock()
	t.changed()
}

// cancelTask cancels a task that is not yet terminal, reporting whether
// it was; the call's context is cancelled, which for run_command kills
// the command's process group.
func (st *taskStore) cancelTask(t *task) bool {
	st.mu.Lock()
	if t.terminal() {
		st.mu.Unlock()
		return false
	}
	t.status, t.message, t.updated = statusCancelled, "cancelled by the client", st.now()
	t.pending = nil
	close(t.done)
	st.mu.Unlock()
	t.cancel()
	t.changed()
	return true
}

// expire cancels and forgets a task whose TTL has ended.
func (st *taskStore) expire(id string) {
	st.mu.Lock()
	t, ok := st.tasks[id]
	if ok {
		delete(st.tasks, id)
	}
	st.mu.Unlock()
	if ok {
		st.cancelTask(t)
	}
}

// get returns the task with this ID, if it is kept.
func (st *taskStore) get(id string) (*task, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t, ok := st.tasks[id]
	return t, ok
}

// snapshot copies a task's mutable state under the lock.
func (st *taskStore) snapshot(t *task) task {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := *t
	if t.pending != nil {
		c.pending = make(sdk.InputRequestMap, len(t.pending))
		for k, v := range t.pending {
			c.pending[k] = v
		}
	}
	return c
}

// owned lists the tasks a legacy session created, oldest first.
func (st *taskStore) owned(owner string) []*task {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []*task
	for _, t := range st.tasks {
		if t.owner == owner {
			out = append(out, t)
		}
	}
	sortTasks(out)
	return out
}

// closeAll cancels every task (the server is shutting down).
func (st *taskStore) closeAll() {
	st.mu.Lock()
	all := make([]*task, 0, len(st.tasks))
	for _, t := range st.tasks {
		all = append(all, t)
	}
	st.mu.Unlock()
	for _, t := range all {
		st.cancelTask(t)
	}
}

// newTaskID returns an unguessable ID: over HTTP in the 2026-07-28 era a
// task is bound to no session, so knowing its ID is what entitles a
// client to it.
func newTaskID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return hex.EncodeToString(b[:])
}

// toRPCError turns a round's error into the JSON-RPC error a failed task
// carries.
func toRPCError(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}
