package agent

import (
	"encoding/json"
	"time"

	"github.com/reinharness/rein/model"
)

// EventType names an agent event. The string values are the `type` field of
// the command line's stream-json output and are public contract.
type EventType string

// Agent event types.
const (
	EventSessionStarted EventType = "session.started"
	EventTextDelta      EventType = "text.delta"
	EventReasoningDelta EventType = "reasoning.delta"
	EventMessage        EventType = "message" // a complete message appended to history
	// EventToolCallStarted reports a tool call the model began to stream:
	// its id and name are known, its arguments not yet complete.
	EventToolCallStarted EventType = "tool.call.started"
	EventToolCall        EventType = "tool.call"
	EventToolDecision    EventType = "tool.decision"
	EventToolResult      EventType = "tool.result"
	EventUsage           EventType = "usage"
	EventCompaction      EventType = "compaction"
	// EventFileChange records a file a tool call changed. The loop does
	// not emit it: the harness that owns the workspace journals it beside
	// the call's result, for the audit trail.
	EventFileChange EventType = "file.change"
	// EventPlanUpdated carries the model's plan after todo_write changed it.
	EventPlanUpdated EventType = "plan.updated"
	// EventVerifyStarted and EventVerifyResult report one check of the
	// verification gate.
	EventVerifyStarted    EventType = "verify.started"
	EventVerifyResult     EventType = "verify.result"
	EventSessionCompleted EventType = "session.completed"
	EventError            EventType = "error"
)

// Event is one observable step of a run. Fields other than Type, RunID, Step
// and Time are set according to Type.
type Event struct {
	Type EventType `json:"type"`
	// RunID correlates every event of one run (the session id when the
	// run is persisted).
	RunID string    `json:"session_id"`
	Step  int       `json:"step"`
	Time  time.Time `json:"time"`

	Text    string         `json:"text,omitempty"`
	Message *model.Message `json:"message,omitempty"`
	// ToolCall is the call of a tool.call event. On a tool.decision event
	// it is set only when a PreToolUse hook replaced the call's
	// arguments: it is then the call as decided (and, when allowed, run),
	// while the tool.call event and the assistant message keep what the
	// model sent.
	ToolCall *model.ToolCall `json:"tool_call,omitempty"`
	// IdempotencyKey is set on tool.call events of mutating tools: the key
	// the tool received (tool.IdempotencyKey), so a replay or an outside
	// system can recognise a call that already happened.
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Decision       *Decision         `json:"decision,omitempty"`
	ToolResult     *model.ToolResult `json:"tool_result,omitempty"`
	// ToolStructured is the machine-readable result of a tool.result
	// event's call (tool.Result.Structured: run_command's exit code and
	// duration, an MCP tool's structuredContent), for front ends in this
	// process. It is never serialised: the journal, the event log and
	// stream-json carry what the model saw, and a front end that wants
	// structured fields derives its own (stream-json's exit_code).
	ToolStructured json.RawMessage `json:"-"`
	Usage          *model.Usage    `json:"usage,omitempty"`
	Compaction     *CompactionInfo `json:"compaction,omitempty"`
	FileChange     *FileChange     `json:"file_change,omitempty"`
	Plan           []PlanItem      `json:"plan,omitempty"`
	Verify         *VerifyInfo     `json:"verify,omitempty"`
	Outcome        *Outcome        `json:"outcome,omitempty"`
	Err            string          `json:"error,omitempty"`

	// AgentPath, ParentCallID, Depth and Agent place an event of a
	// sub-agent (see NewTaskTool) in its tree; all are empty for the root
	// run's own events. AgentPath names the chain of task calls that led
	// to the sub-agent, "task:<call id>/<agent>" per level joined by "/"
	// ("task:call_1/reviewer/task:call_7/general"); ParentCallID is the
	// task call that started it, Depth its depth (1 for a child of the
	// root) and Agent its definition's name. A store rebuilding the
	// root's conversation must skip events with an AgentPath.
	AgentPath    string `json:"agent_path,omitempty"`
	ParentCallID string `json:"parent_call_id,omitempty"`
	Depth        int    `json:"depth,omitempty"`
	Agent        string `json:"agent,omitempty"`
}

// Decision is the policy's verdict on one tool call, as reported in events.
type Decision struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Action string `json:"action"` // allow | ask | deny
	Reason string `json:"reason,omitempty"`
	// By says who decided: "policy", "hard-deny", "approver", "hook",
	// "rule:<name>".
	By string `json:"by,omitempty"`
}

// FileChange is one file a tool call changed: its path, how, and the
// content hashes before and after (the content itself stays in the
// workspace's own journal).
type FileChange struct {
	Path string `json:"path"`
	// Kind is "create", "modify" or "delete".
	Kind string `json:"kind"`
	// CallKey is the idempotency key of the tool call that made the
	// change (see Event.IdempotencyKey).
	CallKey    string `json:"call_key"`
	BeforeHash string `json:"before_sha256,omitempty"`
	AfterHash  string `json:"after_sha256,omitempty"`
	AfterSize  int64  `json:"after_size"`
}

// CompactionInfo describes a context bound or compaction applied before a
// model call.
type CompactionInfo struct {
	Strategy        string `json:"strategy"`
	OmittedMessages int    `json:"omitted_messages"`
	KeptMessages    int    `json:"kept_messages"`
	EstimatedTokens int    `json:"estimated_tokens"`
	// Summary is the text of a summary of earlier messages, set only on
	// the first compaction that sends it (memory.Summarize), so a journal
	// that stores this event can restore the summary after a resume
	// without asking the model again.
	Summary string `json:"summary,omitempty"`
	// Summarized is how many leading history messages the summary in use
	// stands for; 0 when no summary is in use.
	Summarized int `json:"summarized,omitempty"`
	// Fallback says in one line why the strategy fell back to a simpler
	// one on this call (a summary call that failed); empty when it did not.
	Fallback string `json:"fallback,omitempty"`
}

// OutcomeKind is how a run ended.
type OutcomeKind string

// Outcomes.
const (
	Complete           OutcomeKind = "complete"
	StepLimit          OutcomeKind = "step_limit"
	Deadline           OutcomeKind = "deadline"
	TokenBudget        OutcomeKind = "token_budget"
	RepeatedAction     OutcomeKind = "repeated_action"
	Blocked            OutcomeKind = "blocked"
	VerificationFailed OutcomeKind = "verification_failed"
	// VerificationUnavailable: a check of the gate cannot run at all
	// (CheckResult.Unavailable), so the answer cannot be verified; the
	// model is not asked again, since nothing it does can fix that.
	VerificationUnavailable OutcomeKind = "verification_unavailable"
	// NeedsApproval: the run was stuck on calls the policy asks about
	// and no one can answer (no approver, --approve never); the Reason
	// names them and how to allow them.
	NeedsApproval OutcomeKind = "needs_approval"
	// ContentFiltered: the provider's content filter stopped the answer
	// (stop reason content_filter); the filtered turn is not retried.
	ContentFiltered OutcomeKind = "content_filtered"
	Cancelled       OutcomeKind = "cancelled"
	Failed          OutcomeKind = "failed"
)

// Outcome summarises a finished run.
type Outcome struct {
	Kind      OutcomeKind `json:"kind"`
	Text      string      `json:"text"`       // final assistant text
	Steps     int         `json:"steps"`      // model calls made
	ToolCalls int         `json:"tool_calls"` // tool calls executed or refused
	Usage     model.Usage `json:"usage"`      // summed over the run
	Err       string      `json:"error,omitempty"`
	// Reason says in one line why a run stopped short of Complete (which
	// limit, which repeated tool, which denials), or which tool finished it.
	Reason string `json:"reason,omitempty"`
	// NeedsApproval lists the calls the policy asked about that no one
	// could answer (at most 20), whatever the outcome.
	NeedsApproval []ApprovalNeeded `json:"needs_approval,omitempty"`
}
