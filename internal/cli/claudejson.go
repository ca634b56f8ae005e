package cli

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/telemetry/redact"
)

// The result object of `--output-format json`, and the last line of
// stream-json in Claude Code's shape: Claude Code's result message
// (type "result", subtype, result, session_id, is_error, num_turns,
// duration_ms, duration_api_ms, total_cost_usd, usage,
// permission_denials, uuid) beside rein's own fields (outcome, text,
// steps, tool_calls, error), so a script written for either reads it
// unchanged. docs/headless.md documents both.

// Claude Code's result subtypes.
const (
	subtypeSuccess         = "success"
	subtypeMaxTurns        = "error_max_turns"
	subtypeMaxBudget       = "error_max_budget_usd"
	subtypeDuringExecution = "error_during_execution"
)

// claudeSubtype maps a rein outcome to the closest Claude Code result
// subtype. Claude Code has no deadline, repeated-action, policy-block or
// verification outcome: those are errors during execution, as are a
// cancelled run and a failed one (Claude Code reports an interrupted
// turn so). A nil outcome is a run that never completed.
func claudeSubtype(out *agent.Outcome) string {
	if out == nil {
		return subtypeDuringExecution
	}
	switch out.Kind {
	case agent.Complete:
		return subtypeSuccess
	case agent.StepLimit:
		return subtypeMaxTurns
	case agent.TokenBudget:
		return subtypeMaxBudget
	}
	return subtypeDuringExecution
}

// jsonResult is the `--output-format json` object (public contract).
type jsonResult struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	// IsError is set for any outcome but complete.
	IsError bool `json:"is_error"`
	// DurationMS is the run's (the turn's) wall time, DurationAPIMS the
	// part of it spent waiting for the model.
	DurationMS    int64 `json:"duration_ms"`
	DurationAPIMS int64 `json:"duration_api_ms"`
	// NumTurns is the model calls made, as Claude Code counts turns.
	NumTurns int `json:"num_turns"`
	// Result is the final answer, the same text as Text.
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
	// TotalCostUSD is computed from [model] input_price and
	// output_price; 0 when they are not configured.
	TotalCostUSD float64   `json:"total_cost_usd"`
	Usage        jsonUsage `json:"usage"`
	// PermissionDenials are the calls the policy, the user or a hook
	// refused.
	PermissionDenials []permissionDenial `json:"permission_denials"`
	UUID              string             `json:"uuid"`

	// rein's own fields.
	Outcome   string `json:"outcome"`
	Text      string `json:"text"`
	Steps     int    `json:"steps"`
	ToolCalls int    `json:"tool_calls"`
	Error     string `json:"error,omitempty"`
	// Errors is Error as Claude Code's error results carry it.
	Errors []string `json:"errors,omitempty"`
	// NeedsApproval lists the calls that needed an approval no one could
	// give (--approve never, no terminal), with how to allow each.
	NeedsApproval []agent.ApprovalNeeded `json:"needs_approval,omitempty"`
}

// jsonUsage is token usage in Claude Code's (Anthropic's) names.
// InputTokens is the whole prompt, cached tokens included, with every
// provider (rein's usage always was; model/anthropic adds the cached
// tokens back), where Anthropic's input_tokens leaves them out.
type jsonUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// permissionDenial is one refused call, as Claude Code reports it.
type permissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// resultTracker gathers from a run's events what its result object
// needs beyond the outcome: the session, the time spent in model calls
// and the denied calls. It sees the events before any other redaction,
// so it redacts the denied calls' arguments itself.
type resultTracker struct {
	sessionID string
	start     time.Time
	// prices are the model's (per million tokens), 0 when unknown.
	inputPrice, outputPrice float64

	api time.Duration
	// step is the root run's current model call; callStart when it
	// began (the time of the event before its first), callDone whether
	// its end was counted; last is the latest root event's time.
	step      int
	callStart time.Time
	callDone  bool
	last      time.Time

	args    map[string]json.RawMessage
	denials []permissionDenial
}

func newResultTracker() *resultTracker {
	return &resultTracker{start: time.Now(), args: map[string]json.RawMessage{}}
}

// observe notes what ev says about the run.
func (t *resultTracker) observe(ev agent.Event) {
	if t.start.IsZero() {
		t.start = time.Now() // a later turn starts with its first event
	}
	if t.sessionID == "" {
		t.sessionID = ev.RunID
	}
	if ev.AgentPath != "" {
		return // a sub-agent's calls are its task tool's time
	}
	t.observeCall(ev)
	switch ev.Type {
	case agent.EventToolCall:
		if ev.ToolCall != nil {
			t.args[ev.ToolCall.ID] = ev.ToolCall.Args
		}
	case agent.EventToolDecision:
		d := ev.Decision
		if d == nil || d.Action != "deny" || d.By == "harness" {
			return // the harness's refusals are malformed calls, not permissions
		}
		input := redact.JSON(t.args[d.CallID])
		if !json.Valid(input) {
			input = json.RawMessage("{}")
		}
		t.denials = append(t.denials, permissionDenial{ToolName: d.Tool, ToolUseID: d.CallID, ToolInput: input})
	}
}

// observeCall measures the model calls: a call begins after the last
// event of the step before it and ends at its usage report or its
// answer, whichever comes first.
func (t *resultTracker) observeCall(ev agent.Event) {
	if ev.Time.IsZero() {
		return
	}
	if ev.Step > t.step {
		t.step, t.callStart, t.callDone = ev.Step, t.last, false
		if t.callStart.IsZero() {
			t.callStart = ev.Time
		}
	}
	t.last = ev.Time
	answer := ev.Type == agent.EventMessage && ev.Message != nil && ev.Message.Role == "assistant"
	if !t.callDone && (ev.Type == agent.EventUsage || answer) {
		t.api += ev.Time.Sub(t.callStart)
		t.callDone = true
	}
}

// result builds the result object of the run (or turn) that ended with
// out (nil if it never completed) and problem, the one-line explanation
// of anything short of success.
func (t *resultTracker) result(ex *explainer, out *agent.Outcome, problem string) jsonResult {
	res := jsonResult{
		Type: "result", Subtype: claudeSubtype(out), IsError: true, SessionID: t.sessionID,
		Outcome: string(agent.Failed), Error: problem, PermissionDenials: t.denials, UUID: newUUID(),
		DurationAPIMS: t.api.Milliseconds(),
	}
	if res.PermissionDenials == nil {
		res.PermissionDenials = []permissionDenial{}
	}
	if !t.start.IsZero() {
		res.DurationMS = time.Since(t.start).Milliseconds()
	}
	if out != nil {
		res.NumTurns, res.IsError = out.Steps, out.Kind != agent.Complete
		res.TotalCostUSD = (float64(out.Usage.InputTokens)*t.inputPrice + float64(out.Usage.OutputTokens)*t.outputPrice) / 1e6
		res.Outcome = string(out.Kind)
		res.Text = ex.scrub(out.Text)
		res.Result = res.Text
		res.Steps = out.Steps
		res.ToolCalls = out.ToolCalls
		res.Usage = jsonUsage{
			InputTokens: out.Usage.InputTokens, OutputTokens: out.Usage.OutputTokens,
			CacheCreationInputTokens: out.Usage.CacheWriteTokens, CacheReadInputTokens: out.Usage.CacheReadTokens,
		}
		for _, n := range out.NeedsApproval {
			n.Reason = ex.scrub(n.Reason)
			res.NeedsApproval = append(res.NeedsApproval, n)
		}
		if (out.Kind == agent.VerificationFailed || out.Kind == agent.VerificationUnavailable) && out.Err != "" {
			// The one-line explanation, then the last check's output
			// (capped by the loop): what a script needs to see why.
			res.Error = problem + "\n" + ex.scrub(out.Err)
		}
	}
	if res.Error != "" {
		res.Errors = []string{res.Error}
	}
	return res
}

// reset starts the measures of a new turn on the same session: its clock
// starts at its first event, not while the next message is awaited, and
// its model calls are counted from its own first step.
func (t *resultTracker) reset() {
	t.start, t.api, t.denials = time.Time{}, 0, nil
	t.step, t.last, t.callStart, t.callDone = 0, time.Time{}, time.Time{}, false
	t.args = map[string]json.RawMessage{}
}

// presetSession names the session in the result of a run that fails
// before its first event.
func presetSession(r renderer, id string) {
	switch r := r.(type) {
	case *jsonRenderer:
		r.t.sessionID = id
	case *claudeStreamRenderer:
		r.t.sessionID = id
	}
}

// jsonRenderer prints one object when the run ends.
type jsonRenderer struct {
	w  io.Writer
	ex *explainer
	t  *resultTracker
}

func (r *jsonRenderer) event(ev agent.Event) { r.t.observe(ev) }

func (r *jsonRenderer) finish(out *agent.Outcome, problem string) {
	writeJSONLine(r.w, r.ex, r.t.result(r.ex, out, problem))
}

// newUUID returns a random (version 4) UUID: Claude Code's messages carry
// one, and some parsers key on it.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
