package temporal

import (
	"context"
	"encoding/json"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/tool"
)

// taskStub is the task tool of a Temporal session: each call runs the
// sub-agent as a child workflow (id "<parent>.<call id>") on the shared
// queue, with the same workspace. Cancelling the parent cancels it.
type taskStub struct {
	toolStub
}

// taskArgs is the task tool's input (agent.NewTaskTool's shape).
type taskArgs struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	Agent        string `json:"agent,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`
}

func (t *taskStub) Call(ctx context.Context, raw json.RawMessage) (*tool.Result, error) {
	var args taskArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return tool.ErrorResult("task: the arguments are not a JSON object with a prompt: %v", err), nil
	}
	if args.Prompt == "" {
		return tool.ErrorResult("task: prompt is required: say what the sub-agent must do"), nil
	}
	name := args.Agent
	if name == "" {
		name = args.SubagentType
	}
	if name == "" {
		name = agent.GeneralAgent
	}
	wctx := workflowOf(ctx)
	s := t.s
	maxDepth := s.setup.MaxDepth
	if maxDepth == 0 {
		maxDepth = agent.DefaultMaxSubagentDepth
	}
	if s.in.Depth+1 > maxDepth {
		return tool.ErrorResult("task: a sub-agent may not start another this deep (the limit is %d)", maxDepth), nil
	}
	id := workflow.GetInfo(wctx).WorkflowExecution.ID + "." + tool.CallID(ctx)
	s.children = append(s.children, id)
	child := SessionInput{
		Prompt: args.Prompt, Workspace: s.in.Workspace, Queue: s.in.Queue, Preset: s.in.Preset,
		ApprovalTimeout: s.in.ApprovalTimeout, HeartbeatTimeout: s.in.HeartbeatTimeout, MaxHistory: s.in.MaxHistory,
		Agent: name, Depth: s.in.Depth + 1,
	}
	cctx := workflow.WithChildOptions(wctx, workflow.ChildWorkflowOptions{
		WorkflowID: id, TaskQueue: s.queue(),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	})
	var res SessionResult
	if err := workflow.ExecuteChildWorkflow(cctx, WorkflowName, child).Get(wctx, &res); err != nil {
		if temporal.IsCanceledError(err) {
			return nil, fmt.Errorf("task: the sub-agent %s was cancelled", name)
		}
		return tool.ErrorResult("task: the sub-agent %s failed: %v", name, err), nil
	}
	s.childUsage.Add(res.Usage)
	if res.Outcome != agent.Complete {
		msg := fmt.Sprintf("task: the sub-agent %s ended %s", name, res.Outcome)
		if res.Reason != "" {
			msg += ": " + res.Reason
		}
		if res.Text != "" {
			msg += "\n" + res.Text
		}
		return &tool.Result{Content: msg, IsError: true}, nil
	}
	return &tool.Result{Content: res.Text}, nil
}
