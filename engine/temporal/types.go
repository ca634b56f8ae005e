package temporal

import (
	"encoding/json"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/engine"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
)

// Names shared by workers and clients.
const (
	// DefaultQueue is the shared task queue: workflows and model calls.
	DefaultQueue = "rein"
	// WorkflowName is the session workflow's registered name.
	WorkflowName = "rein.Session"
	// EventsQuery returns a page of a session's events (EventsPage).
	EventsQuery = "events"
	// StatusQuery returns a session's Status.
	StatusQuery = "status"
	// ApproveUpdate answers a pending approval (ApproveInput).
	ApproveUpdate = "approve"

	activitySetup  = "rein.Setup"
	activityModel  = "rein.Model"
	activityDecide = "rein.Decide"
	activityTool   = "rein.Tool"
	activityCheck  = "rein.Check"
	activitySteer  = "rein.Steer"
)

// Defaults of SessionInput's durations and limits.
const (
	DefaultApprovalTimeout  = 10 * time.Minute
	DefaultHeartbeatTimeout = 10 * time.Second
	// DefaultMaxHistory is the history length (events) past which a
	// session continues as new; Temporal's hard limit is 51,200.
	DefaultMaxHistory = 10000
	// maxPageEvents and maxPageBytes bound one EventsQuery answer, well
	// under gRPC's 4 MB message limit.
	maxPageEvents = 500
	maxPageBytes  = 1 << 20
)

// WorkspaceQueue is the task queue of the workers that hold workspace name.
func WorkspaceQueue(queue, name string) string {
	if queue == "" {
		queue = DefaultQueue
	}
	return queue + ".ws." + name
}

// SessionInput starts (or continues) a session workflow.
type SessionInput struct {
	// Prompt is the user's task; "" when continuing as new.
	Prompt string `json:"prompt,omitempty"`
	// Workspace names the workspace whose workers run the tools.
	Workspace string `json:"workspace"`
	// Queue is the shared task queue ("" means DefaultQueue).
	Queue string `json:"queue,omitempty"`
	// Preset is the policy preset ("" means the workspace's configured
	// one, as for rein run).
	Preset string `json:"preset,omitempty"`
	// Model overrides the configured model name.
	Model string `json:"model,omitempty"`
	// MaxSteps overrides the configured step limit when positive.
	MaxSteps int `json:"max_steps,omitempty"`
	// ApprovalTimeout bounds the wait for an answer to an Ask; past it
	// the call is denied ("" → DefaultApprovalTimeout).
	ApprovalTimeout time.Duration `json:"approval_timeout,omitempty"`
	// HeartbeatTimeout is how long a silent activity is taken for a dead
	// worker (0 → DefaultHeartbeatTimeout).
	HeartbeatTimeout time.Duration `json:"heartbeat_timeout,omitempty"`
	// MaxHistory is the continue-as-new threshold (0 → DefaultMaxHistory).
	MaxHistory int `json:"max_history,omitempty"`
	// Agent names the sub-agent definition a child session runs ("" for
	// a top-level session); Depth is its depth (1 for a child).
	Agent string `json:"agent,omitempty"`
	Depth int    `json:"depth,omitempty"`

	// Carried over when the session continues as new.
	History   []model.Message  `json:"history,omitempty"`
	Plan      []agent.PlanItem `json:"plan,omitempty"`
	EventBase int              `json:"event_base,omitempty"`
	StepsUsed int              `json:"steps_used,omitempty"`
	Usage     model.Usage      `json:"usage"`
	Segment   int              `json:"segment,omitempty"`
	// Started is when the session's first run started: its timeout
	// counts from there.
	Started time.Time `json:"started,omitzero"`
}

// SessionResult is a finished session's outcome.
type SessionResult struct {
	ID        string            `json:"id"`
	Outcome   agent.OutcomeKind `json:"outcome"`
	Text      string            `json:"text,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Error     string            `json:"error,omitempty"`
	Steps     int               `json:"steps"`
	ToolCalls int               `json:"tool_calls"`
	Usage     model.Usage       `json:"usage"`
	Events    int               `json:"events"`
}

// Setup is what a session learns from its workspace's worker when it
// starts (see engine.Setup): recorded in the history, so a replay sees the
// same.
type Setup = engine.Setup

// SetupInput asks a workspace worker for a session's Setup.
type SetupInput struct {
	Workspace string `json:"workspace"`
	Preset    string `json:"preset,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Depth     int    `json:"depth,omitempty"`
}

// ModelInput is one model call.
type ModelInput struct {
	Request model.Request `json:"request"`
}

// ModelOutput is the stream one model call produced, replayed to the
// agent as it arrived; Error is the provider's failure, if any, after
// rein's own retries (an answer, not an activity failure: Temporal must
// not retry it).
type ModelOutput struct {
	Events []model.Event `json:"events"`
	Error  string        `json:"error,omitempty"`
}

// DecideInput asks the workspace's policy about one call.
type DecideInput struct {
	Workspace string          `json:"workspace"`
	Preset    string          `json:"preset,omitempty"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
}

// ToolInput is one tool call.
type ToolInput struct {
	Workspace      string          `json:"workspace"`
	Preset         string          `json:"preset,omitempty"`
	CallID         string          `json:"call_id"`
	Tool           string          `json:"tool"`
	Args           json.RawMessage `json:"args"`
	IdempotencyKey string          `json:"idempotency_key,omitempty"`
	// Rerunnable marks a call that is safe to run again when its worker
	// died (it reads, it changes nothing).
	Rerunnable bool `json:"rerunnable,omitempty"`
}

// SteerInput runs the workspace's hooks at one steering point.
type SteerInput struct {
	Workspace string           `json:"workspace"`
	Preset    string           `json:"preset,omitempty"`
	Point     agent.SteerPoint `json:"point"`
}

// CheckInput runs one verification check.
type CheckInput struct {
	Workspace string `json:"workspace"`
	Preset    string `json:"preset,omitempty"`
	Index     int    `json:"index"`
	Name      string `json:"name"`
}

// ToolOutput is a tool call's result.
type ToolOutput struct {
	Content    string          `json:"content"`
	IsError    bool            `json:"is_error,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Finish     bool            `json:"finish,omitempty"`
	// Interrupted reports a call whose worker died while it ran.
	Interrupted bool `json:"interrupted,omitempty"`
	// Changes are the files the call changed, from the workspace journal.
	Changes []agent.FileChange `json:"changes,omitempty"`
}

// ApproveInput answers the pending approval of CallID.
type ApproveInput struct {
	CallID string `json:"call_id"`
	Allow  bool   `json:"allow"`
	Reason string `json:"reason,omitempty"`
	// By names who answered (a user name, "cli"); it is reported as the
	// decision's rule.
	By string `json:"by,omitempty"`
}

// Pending is an approval the session waits for.
type Pending struct {
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Reason string          `json:"reason,omitempty"`
	Since  time.Time       `json:"since"`
}

// Session states reported by StatusQuery.
const (
	StateRunning   = "running"
	StateWaiting   = "waiting for approval"
	StateCompleted = "completed"
)

// Status is a session's state.
type Status struct {
	ID      string         `json:"id"`
	State   string         `json:"state"`
	Pending []Pending      `json:"pending,omitempty"`
	Outcome *SessionResult `json:"outcome,omitempty"`
	// Events is the index after the last event; Children the sub-agent
	// sessions started so far.
	Events   int      `json:"events"`
	Children []string `json:"children,omitempty"`
}

// EventsPage is one page of events from From on; Next is the index to ask
// for next. Events before Base were dropped when the session continued as
// new. Done reports that the session has ended and the page is its last.
type EventsPage struct {
	Base   int               `json:"base"`
	From   int               `json:"from"`
	Next   int               `json:"next"`
	Events []json.RawMessage `json:"events"`
	Done   bool              `json:"done"`
}

// decision converts between the policy's and the wire's decisions.
type decision struct {
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Hard   bool   `json:"hard,omitempty"`
}

func toWire(d policy.Decision) decision {
	return decision{Action: d.Action.String(), Reason: d.Reason, Rule: d.Rule, Hard: d.Hard}
}

func (d decision) policy() policy.Decision {
	a := policy.Deny
	switch d.Action {
	case policy.Allow.String():
		a = policy.Allow
	case policy.Ask.String():
		a = policy.Ask
	}
	return policy.Decision{Action: a, Reason: d.Reason, Rule: d.Rule, Hard: d.Hard}
}
