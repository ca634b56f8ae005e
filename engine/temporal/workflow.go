package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/tool"
)

// session is one workflow run's state: what the queries read and the
// update writes. Workflow coroutines run one at a time, so it needs no
// lock.
type session struct {
	in    SessionInput
	setup Setup

	events     []json.RawMessage // encoded agent.Events from in.EventBase on
	pending    []Pending
	answers    map[string]ApproveInput
	children   []string
	steps      int // model calls in this run
	childUsage model.Usage
	continueAt int // events kept when continuing as new; -1 when not
	// activities counts the activities run, for a lower bound of the
	// history's length where the SDK cannot tell it.
	activities int
	timedOut   bool // the session's timeout ended the loop
	mutated    bool // a mutating tool ran: the verification gate applies
	// changes are the file changes of calls whose results are not yet
	// recorded, by call id: recorded as file.change events after them,
	// as rein run's session journals them.
	changes map[string][]agent.FileChange
	result  *SessionResult
}

// Workflow is the session workflow; register it as WorkflowName.
func Workflow(wctx workflow.Context, in SessionInput) (*SessionResult, error) {
	s := &session{in: in, answers: map[string]ApproveInput{}, continueAt: -1, changes: map[string][]agent.FileChange{}}
	if err := s.register(wctx); err != nil {
		return nil, err
	}
	id := workflow.GetInfo(wctx).WorkflowExecution.ID
	if err := s.loadSetup(wctx); err != nil {
		s.result = &SessionResult{ID: id, Outcome: agent.Failed, Error: err.Error()}
		return s.result, nil
	}
	ag, opts, err := s.newAgent(wctx)
	if err != nil {
		s.result = &SessionResult{ID: id, Outcome: agent.Failed, Error: err.Error()}
		return s.result, nil
	}
	conv := agent.NewConversation(id, in.History...)
	if len(in.Plan) > 0 {
		conv.SetPlan(in.Plan)
	}

	// runCtx is the loop's workflow context: the session's cancellation
	// and its timeout both end it, and with it every activity in flight.
	runCtx, stopRun := workflow.WithCancel(wctx)
	ctx, cancel := context.WithCancelCause(withWorkflow(context.Background(), runCtx))
	defer cancel(nil)
	workflow.Go(runCtx, func(c workflow.Context) {
		c.Done().Receive(c, nil)
		cancel(context.Canceled) // the session was cancelled: so is the loop
	})
	if left := s.timeLeft(wctx); left > 0 {
		workflow.Go(runCtx, func(c workflow.Context) {
			if workflow.Sleep(c, left) == nil {
				s.timedOut = true
				cancel(context.DeadlineExceeded) // first, so the loop reads a deadline
				stopRun()
			}
		})
	}

	var out *agent.Outcome
	for ev, err := range ag.RunWith(ctx, conv, in.Prompt, opts) {
		s.record(ev)
		if ev.Type == agent.EventSessionCompleted && ev.Outcome != nil {
			out = ev.Outcome
		}
		_ = err // the outcome carries it
	}

	if s.continueAt >= 0 && runCtx.Err() == nil {
		next := s.continuation(conv)
		return nil, workflow.NewContinueAsNewError(wctx, WorkflowName, next)
	}
	s.result = s.resultOf(id, out)
	if errors.Is(wctx.Err(), workflow.ErrCanceled) {
		return s.result, workflow.ErrCanceled
	}
	return s.result, nil
}

// register installs the queries and the approval update. It runs before
// anything blocks, so a client can follow the session from its start.
func (s *session) register(wctx workflow.Context) error {
	if err := workflow.SetQueryHandler(wctx, EventsQuery, s.page); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(wctx, StatusQuery, s.status); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(wctx, ApproveUpdate,
		func(_ workflow.Context, in ApproveInput) (string, error) {
			s.answers[in.CallID] = in
			if in.Allow {
				return "allowed " + in.CallID, nil
			}
			return "denied " + in.CallID, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, in ApproveInput) error {
			if !slices.ContainsFunc(s.pending, func(p Pending) bool { return p.CallID == in.CallID }) {
				return fmt.Errorf("call %q is not waiting for approval%s", in.CallID, s.pendingHint())
			}
			if _, answered := s.answers[in.CallID]; answered {
				return fmt.Errorf("call %q was already answered", in.CallID)
			}
			return nil
		}})
}

func (s *session) pendingHint() string {
	if len(s.pending) == 0 {
		return " (no call is)"
	}
	ids := make([]string, len(s.pending))
	for i, p := range s.pending {
		ids[i] = p.CallID
	}
	return fmt.Sprintf(" (waiting: %v)", ids)
}

func (s *session) dropPending(id string) {
	s.pending = slices.DeleteFunc(s.pending, func(p Pending) bool { return p.CallID == id })
}

// loadSetup asks the workspace's worker for the session's setup.
func (s *session) loadSetup(wctx workflow.Context) error {
	in := SetupInput{Workspace: s.in.Workspace, Preset: s.in.Preset, Agent: s.in.Agent, Depth: s.in.Depth}
	if err := s.execute(wctx, s.setupOptions(), activitySetup, in, &s.setup); err != nil {
		return activityError("setting up workspace "+s.in.Workspace, err)
	}
	return nil
}

// newAgent builds the loop over the stubs.
func (s *session) newAgent(wctx workflow.Context) (*agent.Agent, agent.RunOptions, error) {
	st := s.setup
	set, err := tool.NewSet()
	if err != nil {
		return nil, agent.RunOptions{}, err
	}
	for _, spec := range st.Tools {
		var t tool.Tool = &toolStub{s: s, spec: spec}
		switch spec.Name {
		case agent.TaskToolName:
			t = &taskStub{toolStub{s: s, spec: spec}}
		case agent.PlanToolName:
			// The plan lives in the conversation: the loop's own tool,
			// run in the workflow.
			t = inlineTool{agent.PlanTool()}
		}
		if err := set.Add(t); err != nil {
			return nil, agent.RunOptions{}, fmt.Errorf("the workspace offered an unusable tool: %w", err)
		}
	}
	maxSteps := st.MaxSteps
	if s.in.MaxSteps > 0 {
		maxSteps = s.in.MaxSteps
	}
	if maxSteps == 0 {
		maxSteps = agent.DefaultMaxSteps
	}
	if maxSteps -= s.in.StepsUsed; maxSteps < 1 {
		maxSteps = 1
	}
	name := st.Model
	if s.in.Model != "" {
		name = s.in.Model
	}
	cfg := agent.Config{
		Provider: modelStub{s}, Model: name, System: st.System, Instructions: st.Instructions,
		Params: st.Params, Tools: set, Policy: deciderStub{s}, Approver: approverStub{s},
		MaxSteps: maxSteps, TokenBudget: st.TokenBudget, MaxParallel: st.MaxParallel,
		ToolTimeout: st.ToolTimeout, MaxResultBytes: st.MaxResultBytes, ContextWindow: st.ContextWindow,
		RepeatLimit: st.RepeatLimit, MaxConsecutiveDenials: st.MaxConsecutiveDenials,
		Subagent: s.in.Depth > 0, MaxVerifyAttempts: st.MaxVerifyAttempts,
		Clock: workflowClock{wctx}, IDs: newWorkflowIDs(wctx), FanOut: workflowFanOut{},
	}
	if len(st.Verify) > 0 && s.in.Depth == 0 {
		cfg.Verifier = verifierStub{s}
	}
	if st.Hooks {
		cfg.Steering = steeringStub{s}
	}
	ag, err := agent.New(cfg)
	if err != nil {
		return nil, agent.RunOptions{}, err
	}
	return ag, agent.RunOptions{AllowedTools: st.AllowedTools, Restriction: s.restriction()}, nil
}

func (s *session) restriction() string {
	if s.in.Agent == "" {
		return ""
	}
	return "the " + s.in.Agent + " agent's tools"
}

// timeLeft is what remains of the session's timeout ([agent] timeout),
// counted from its first run's start across continuations; 0 means none.
func (s *session) timeLeft(wctx workflow.Context) time.Duration {
	if s.setup.Timeout <= 0 {
		return 0
	}
	if s.in.Started.IsZero() {
		s.in.Started = workflow.Now(wctx)
	}
	return max(s.setup.Timeout-workflow.Now(wctx).Sub(s.in.Started), time.Millisecond)
}

// record keeps an event for the queries.
func (s *session) record(ev agent.Event) {
	b, err := json.Marshal(ev)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"type": string(agent.EventError), "error": "an event could not be encoded: " + err.Error()})
	}
	s.events = append(s.events, b)
	if ev.Type != agent.EventToolResult || ev.ToolResult == nil {
		return
	}
	id := ev.ToolResult.CallID
	for _, c := range s.changes[id] {
		s.record(agent.Event{Type: agent.EventFileChange, RunID: ev.RunID, Step: ev.Step, Time: ev.Time, AgentPath: ev.AgentPath, FileChange: &c})
	}
	delete(s.changes, id)
}

// shouldContinueAsNew reports, before a model call, that the history has
// grown past the threshold (or Temporal suggests it).
func (s *session) shouldContinueAsNew(wctx workflow.Context) bool {
	if s.steps == 0 {
		return false // every run makes progress
	}
	info := workflow.GetInfo(wctx)
	limit := s.in.MaxHistory
	if limit <= 0 {
		limit = DefaultMaxHistory
	}
	// An activity adds at least 6 events: scheduled, started, completed
	// and the workflow task that follows.
	length := max(info.GetCurrentHistoryLength(), 6*s.activities)
	return info.GetContinueAsNewSuggested() || length >= limit
}

// execute runs one activity and waits for its result on wctx's coroutine.
func (s *session) execute(wctx workflow.Context, opts workflow.ActivityOptions, name string, in, out any) error {
	s.activities++
	return workflow.ExecuteActivity(workflow.WithActivityOptions(wctx, opts), name, in).Get(wctx, out)
}

// continuation is the input of the run that continues this one.
func (s *session) continuation(conv *agent.Conversation) SessionInput {
	next := s.in
	next.Prompt = ""
	next.History = fitHistory(conv.Messages(), maxCarried)
	next.Plan = conv.Plan()
	next.EventBase = s.in.EventBase + s.continueAt
	next.StepsUsed = s.in.StepsUsed + s.steps
	next.Usage.Add(s.runUsage())
	next.Segment++
	return next
}

// runUsage is this run's usage so far, read from its usage events.
func (s *session) runUsage() model.Usage {
	var u model.Usage
	for _, b := range s.events[:max(s.continueAt, 0)] {
		var ev struct {
			Type  agent.EventType `json:"type"`
			Usage *model.Usage    `json:"usage"`
		}
		if json.Unmarshal(b, &ev) == nil && ev.Type == agent.EventUsage && ev.Usage != nil {
			u.Add(*ev.Usage)
		}
	}
	return u
}

func (s *session) resultOf(id string, out *agent.Outcome) *SessionResult {
	r := &SessionResult{ID: id, Outcome: agent.Failed, Events: s.in.EventBase + len(s.events)}
	if out != nil {
		r.Outcome, r.Text, r.Reason, r.Error = out.Kind, out.Text, out.Reason, out.Err
		r.Steps, r.ToolCalls = s.in.StepsUsed+out.Steps, out.ToolCalls
		r.Usage = s.in.Usage
		r.Usage.Add(out.Usage)
	} else {
		r.Error = "the session ended without an outcome"
	}
	if s.timedOut {
		r.Outcome, r.Reason = agent.Deadline, "reached the session's timeout of "+s.setup.Timeout.String()
	}
	r.Usage.Add(s.childUsage)
	return r
}

// page answers EventsQuery.
func (s *session) page(from int) (EventsPage, error) {
	base := s.in.EventBase
	events := s.events
	if s.continueAt >= 0 {
		events = events[:s.continueAt]
	}
	p := EventsPage{Base: base, From: max(from, base)}
	i := p.From - base
	if i > len(events) {
		i = len(events)
	}
	size := 0
	for ; i < len(events) && len(p.Events) < maxPageEvents; i++ {
		if size += len(events[i]); size > maxPageBytes && len(p.Events) > 0 {
			break
		}
		p.Events = append(p.Events, events[i])
	}
	p.Next = base + i
	p.Done = s.result != nil && i == len(events)
	return p, nil
}

// status answers StatusQuery.
func (s *session) status() (Status, error) {
	st := Status{State: StateRunning, Pending: slices.Clone(s.pending),
		Outcome: s.result, Events: s.in.EventBase + len(s.events), Children: slices.Clone(s.children)}
	switch {
	case s.result != nil:
		st.State = StateCompleted
	case len(s.pending) > 0:
		st.State = StateWaiting
	}
	return st, nil
}

// queue is the shared task queue.
func (s *session) queue() string {
	if s.in.Queue == "" {
		return DefaultQueue
	}
	return s.in.Queue
}

func (s *session) heartbeat() time.Duration {
	if s.in.HeartbeatTimeout > 0 {
		return s.in.HeartbeatTimeout
	}
	return DefaultHeartbeatTimeout
}

// modelOptions: the shared queue; a call is retried only when its worker
// went silent.
func (s *session) modelOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue: s.queue(), StartToCloseTimeout: 30 * time.Minute, HeartbeatTimeout: s.heartbeat(),
		RetryPolicy: retryOnlyTimeouts(10),
	}
}

// setupOptions: the workspace queue, short calls.
func (s *session) setupOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue: WorkspaceQueue(s.in.Queue, s.in.Workspace), StartToCloseTimeout: 2 * time.Minute,
		HeartbeatTimeout: s.heartbeat(), RetryPolicy: retryOnlyTimeouts(10),
	}
}

// checkOptions: the workspace queue; a check times out on its own inside.
func (s *session) checkOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue: WorkspaceQueue(s.in.Queue, s.in.Workspace), StartToCloseTimeout: 2 * time.Hour,
		HeartbeatTimeout: s.heartbeat(), RetryPolicy: retryOnlyTimeouts(3),
	}
}

// toolOptions: the workspace queue; the tool's own timeout runs inside the
// activity, and the retry of a dead worker's call reports it interrupted.
func (s *session) toolOptions() workflow.ActivityOptions {
	timeout := s.setup.ToolTimeout
	if timeout <= 0 {
		timeout = agent.DefaultToolTimeout
	}
	return workflow.ActivityOptions{
		TaskQueue: WorkspaceQueue(s.in.Queue, s.in.Workspace), StartToCloseTimeout: timeout + time.Minute,
		HeartbeatTimeout: s.heartbeat(), RetryPolicy: retryOnlyTimeouts(5),
		WaitForCancellation: false,
	}
}
