package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/reinharness/rein/agent"
)

// ErrAlreadyStarted reports a session id that is taken.
var ErrAlreadyStarted = errors.New("a session with this id already exists")

// Start starts session id with in on its shared queue. A taken id is
// ErrAlreadyStarted (use Attach to collect that session).
func Start(ctx context.Context, c client.Client, id string, in SessionInput) error {
	queue := in.Queue
	if queue == "" {
		queue = DefaultQueue
	}
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: queue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}, WorkflowName, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("session %s: %w", id, ErrAlreadyStarted)
	}
	if err != nil {
		return fmt.Errorf("starting session %s: %w", id, err)
	}
	return nil
}

// Wait waits for session id to end and returns its result. A cancelled,
// terminated or timed-out session has a result too (from its last
// status, or made up from its close status), so a batch always has a line
// to write.
func Wait(ctx context.Context, c client.Client, id string) (*SessionResult, error) {
	var res SessionResult
	err := c.GetWorkflow(ctx, id, "").Get(ctx, &res)
	if err == nil {
		return &res, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if st, qerr := Query(ctx, c, id); qerr == nil && st.Outcome != nil {
		return st.Outcome, nil
	}
	closed, _ := Closed(ctx, c, id)
	outcome := agent.Failed
	switch closed {
	case "cancelled":
		outcome = agent.Cancelled
	case "":
		closed = "failed"
	}
	return &SessionResult{ID: id, Outcome: outcome, Error: fmt.Sprintf("the session %s: %v", closed, err)}, nil
}

// Query returns session id's status.
func Query(ctx context.Context, c client.Client, id string) (*Status, error) {
	v, err := c.QueryWorkflow(ctx, id, "", StatusQuery)
	if err != nil {
		return nil, fmt.Errorf("querying session %s: %w", id, err)
	}
	var st Status
	if err := v.Get(&st); err != nil {
		return nil, fmt.Errorf("reading session %s's status: %w", id, err)
	}
	st.ID = id
	return &st, nil
}

// Closed returns how session id closed ("" while it runs): completed,
// failed, cancelled, terminated, timed out.
func Closed(ctx context.Context, c client.Client, id string) (string, error) {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return "", fmt.Errorf("no session %s on this Temporal namespace", id)
		}
		return "", fmt.Errorf("describing session %s: %w", id, err)
	}
	switch d.GetWorkflowExecutionInfo().GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "", nil
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return "completed", nil
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return "cancelled", nil
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return "terminated", nil
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return "timed out", nil
	}
	return "failed", nil
}

// Follow calls fn with every event of session id from index from on, in
// order, until the session ends, then returns its result. It polls the
// EventsQuery, backing off from 100 ms to 1 s while nothing happens.
func Follow(ctx context.Context, c client.Client, id string, from int, fn func(json.RawMessage) error) (*SessionResult, error) {
	idle := 100 * time.Millisecond
	for {
		v, err := c.QueryWorkflow(ctx, id, "", EventsQuery, from)
		if err != nil {
			if closed, cerr := Closed(ctx, c, id); cerr == nil && closed != "" && closed != "completed" {
				return Wait(ctx, c, id) // cancelled or terminated before it could answer
			}
			return nil, fmt.Errorf("following session %s: %w", id, err)
		}
		var p EventsPage
		if err := v.Get(&p); err != nil {
			return nil, fmt.Errorf("reading session %s's events: %w", id, err)
		}
		for _, ev := range p.Events {
			if err := fn(ev); err != nil {
				return nil, err
			}
		}
		from = p.Next
		if p.Done {
			return Wait(ctx, c, id)
		}
		if len(p.Events) > 0 {
			idle = 100 * time.Millisecond
			continue
		}
		if closed, err := Closed(ctx, c, id); err == nil && closed != "" {
			// Closed between two pages: one last page, then the result.
			if v, err := c.QueryWorkflow(ctx, id, "", EventsQuery, from); err == nil {
				var last EventsPage
				if v.Get(&last) == nil {
					for _, ev := range last.Events {
						if err := fn(ev); err != nil {
							return nil, err
						}
					}
				}
			}
			return Wait(ctx, c, id)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(idle):
		}
		idle = min(idle*2, time.Second)
	}
}

// Cancel requests the cancellation of session id (and so of its
// sub-agents).
func Cancel(ctx context.Context, c client.Client, id string) error {
	if err := c.CancelWorkflow(ctx, id, ""); err != nil {
		return fmt.Errorf("cancelling session %s: %w", id, err)
	}
	return nil
}

// Approve answers a pending approval of session id and waits until the
// session took it.
func Approve(ctx context.Context, c client.Client, id string, in ApproveInput) (string, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: ApproveUpdate, Args: []any{in},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return "", fmt.Errorf("approving call %s of session %s: %w", in.CallID, id, err)
	}
	var msg string
	if err := h.Get(ctx, &msg); err != nil {
		return "", fmt.Errorf("approving call %s of session %s: %w", in.CallID, id, err)
	}
	return msg, nil
}
