// Package replay re-runs a stored session with its recorded model answers
// and real tools, and reports the first tool result that differs from the
// recording: a production incident becomes a regression test.
//
// The model is taken out of the experiment — every model call is answered
// with the next recorded assistant message — and every call gets the
// policy decision it got when it was recorded, so only the tools can make
// a difference. Calls run one at a time, in recorded order. Tools should
// work on a scratch copy of the workspace (see Scratch): replay runs them
// for real.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry/redact"
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// Config configures Run. Store, Session and Tools are required.
type Config struct {
	Store session.Store
	// Session is the id (or a unique prefix) of the session to replay.
	Session string
	// Tools are the tools the replay runs, typically built on a scratch
	// copy of the session's workspace.
	Tools *tool.Set
	// Policy, when set, can refuse a call the recording allowed, but only
	// with a hard denial (a call that must never run, replay or not);
	// otherwise the recorded decisions stand.
	Policy policy.Decider
	// ToolTimeout and MaxResultBytes are the agent's (defaults: the
	// agent's defaults). Use the values of the recorded run.
	ToolTimeout    time.Duration
	MaxResultBytes int
	// Normalize rewrites both results before they are compared, e.g. to
	// mask durations or temporary paths; nil compares them as they are.
	Normalize func(string) string
}

// Report is the result of a replay.
type Report struct {
	Session session.Info
	// Compared counts the calls whose results were compared.
	Compared int
	// Skipped counts calls that could not be compared: interrupted in the
	// recording, or recorded without a result.
	Skipped int
	// Divergence is the first difference; nil when every compared result
	// matched.
	Divergence *Divergence
}

// Divergence is a tool result that differs from the recording.
type Divergence struct {
	// Index is the call's position among the session's tool calls, from 1.
	Index  int
	CallID string
	Tool   string
	Args   json.RawMessage
	// Recorded and Replayed are the two results, as compared (redacted
	// and normalized).
	Recorded, Replayed model.ToolResult
	// Diff is a unified diff of the contents ("---" recorded, "+++"
	// replayed), as git diff shows one.
	Diff string
}

// String describes the divergence in a few lines.
func (d *Divergence) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "call %d (%s, id %s) diverged", d.Index, d.Tool, d.CallID)
	if len(d.Args) > 0 {
		fmt.Fprintf(&b, "; arguments %s", textclip.Clip(string(d.Args), 200))
	}
	b.WriteString("\n")
	if d.Recorded.IsError != d.Replayed.IsError {
		fmt.Fprintf(&b, "is_error: recorded %v, replayed %v\n", d.Recorded.IsError, d.Replayed.IsError)
	}
	if d.Diff != "" {
		b.WriteString(d.Diff)
	}
	return b.String()
}

// recording is what Run needs from a stored session.
type recording struct {
	segments [][]model.Message // recorded assistant answers, per run
	inputs   []string          // each run's input ("" for a resumed run)
	// The calls, by callKey: a call is known by the answer that made it
	// and its id, because servers reuse ids across turns (call_0 every
	// turn).
	results   map[callKey]model.ToolResult
	decisions map[callKey]agent.Decision
	index     map[callKey]int // position among the calls, from 1
	calls     map[callKey]model.ToolCall
}

// callKey identifies a recorded call: the recorded answer that made it
// (counted across the session's runs, from 1) and its id in that answer.
type callKey struct {
	answer int
	id     string
}

// Run replays cfg.Session and reports the first divergence. An error
// means the replay itself could not be done (no such session, a tool set
// missing, the run failing for another reason than the end of the
// recording).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Store == nil || cfg.Tools == nil {
		return nil, errors.New("replay: Config.Store and Config.Tools are required")
	}
	info, err := cfg.Store.Get(ctx, cfg.Session)
	if err != nil {
		return nil, err
	}
	rec, err := load(ctx, cfg.Store, info.ID)
	if err != nil {
		return nil, err
	}
	rp := &replayer{cfg: cfg, rec: rec, report: &Report{Session: info}}
	conv := agent.NewConversation(info.ID)
	for i, answers := range rec.segments {
		if err := rp.runSegment(ctx, conv, rec.inputs[i], answers); err != nil {
			return nil, err
		}
		if rp.report.Divergence != nil {
			break
		}
	}
	return rp.report, nil
}

// load reads the session's events into a recording. A run begins at each
// session.started event; its input is the user message it recorded before
// its first answer.
func load(ctx context.Context, store session.Store, id string) (*recording, error) {
	rec := &recording{
		results:   map[callKey]model.ToolResult{},
		decisions: map[callKey]agent.Decision{},
		index:     map[callKey]int{},
		calls:     map[callKey]model.ToolCall{},
	}
	inRun, answered := false, false
	answer := 0 // the recorded answers so far
	for r, err := range store.Events(ctx, id) {
		if err != nil {
			return nil, err
		}
		ev := r.Event
		if ev.AgentPath != "" {
			continue // a sub-agent's: the replayed run makes its own
		}
		switch ev.Type {
		case agent.EventSessionStarted:
			rec.segments = append(rec.segments, nil)
			rec.inputs = append(rec.inputs, "")
			inRun, answered = true, false
		case agent.EventSessionCompleted:
			inRun = false
		case agent.EventMessage:
			if !inRun || ev.Message == nil {
				continue // e.g. the results a resume added
			}
			last := len(rec.segments) - 1
			switch ev.Message.Role {
			case model.RoleUser:
				if !answered && rec.inputs[last] == "" {
					rec.inputs[last] = ev.Message.Text()
				}
			case model.RoleAssistant:
				rec.segments[last] = append(rec.segments[last], *ev.Message)
				answered = true
				answer++
			}
		case agent.EventToolCall:
			if c := ev.ToolCall; c != nil {
				k := callKey{answer, c.ID}
				if _, seen := rec.index[k]; !seen {
					rec.index[k] = len(rec.index) + 1
					rec.calls[k] = *c
				}
			}
		case agent.EventToolDecision:
			if d := ev.Decision; d != nil {
				rec.decisions[callKey{answer, d.CallID}] = *d
			}
		case agent.EventToolResult:
			if res := ev.ToolResult; res != nil {
				if k := (callKey{answer, res.CallID}); !hasKey(rec.results, k) {
					rec.results[k] = *res
				}
			}
		}
	}
	if len(rec.segments) == 0 {
		return nil, fmt.Errorf("replay: session %s recorded no run; there is nothing to replay", id)
	}
	return rec, nil
}

// replayer is the state of one Run.
type replayer struct {
	cfg    Config
	rec    *recording
	report *Report
	// served counts the recorded answers played so far, across runs:
	// the answer a replayed call belongs to (see callKey).
	served atomic.Int64
}

func hasKey[V any](m map[callKey]V, k callKey) bool {
	_, ok := m[k]
	return ok
}

// runSegment replays one recorded run: the agent loop with the recorded
// answers, stopping at the first divergence.
func (rp *replayer) runSegment(ctx context.Context, conv *agent.Conversation, input string, answers []model.Message) error {
	if len(answers) == 0 {
		return nil // the run ended before the model answered
	}
	prov := &recordedProvider{msgs: answers, served: &rp.served}
	a, err := agent.New(agent.Config{
		Provider:              prov,
		Tools:                 rp.cfg.Tools,
		Policy:                recordedPolicy{rec: rp.rec, inner: rp.cfg.Policy, served: &rp.served},
		MaxSteps:              len(answers) + 1,
		MaxConsecutiveDenials: 1 << 20,
		RepeatLimit:           1 << 20,
		MaxParallel:           1,
		FanOut:                agent.Sequential{},
		ToolTimeout:           rp.cfg.ToolTimeout,
		MaxResultBytes:        rp.cfg.MaxResultBytes,
		ContextWindow:         1 << 30,
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	for ev, err := range a.Run(ctx, conv, input) {
		if err != nil {
			runErr = err
		}
		if ev.Type == agent.EventToolResult && ev.ToolResult != nil {
			if rp.compare(*ev.ToolResult) {
				return nil // breaking out stops the run
			}
		}
	}
	switch {
	case runErr == nil, errors.Is(runErr, errSegmentEnd):
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fmt.Errorf("replay: the replayed run failed: %w", runErr)
	}
	if n := prov.remaining(); n > 0 {
		return fmt.Errorf("replay: the replayed run stopped with %d recorded answer(s) unplayed; the recorded run went on (different limits?)", n)
	}
	return nil
}

// compare checks a replayed result against the recording and reports
// whether it diverged.
func (rp *replayer) compare(got model.ToolResult) bool {
	k := callKey{int(rp.served.Load()), got.CallID}
	want, ok := rp.rec.results[k]
	if !ok || (want.IsError && strings.HasPrefix(want.Content, "interrupted:")) {
		rp.report.Skipped++
		return false
	}
	rp.report.Compared++
	// The recording is redacted; the replay is compared the same way.
	got.Content = redact.String(got.Content)
	norm := rp.cfg.Normalize
	if norm == nil {
		norm = func(s string) string { return s }
	}
	want.Content, got.Content = norm(want.Content), norm(got.Content)
	if want.Content == got.Content && want.IsError == got.IsError {
		return false
	}
	c := rp.rec.calls[k]
	rp.report.Divergence = &Divergence{
		Index: rp.rec.index[k], CallID: got.CallID, Tool: got.Name, Args: c.Args,
		Recorded: want, Replayed: got,
		Diff: workspace.UnifiedDiff("recorded", "replayed", []byte(want.Content), []byte(got.Content)),
	}
	return true
}

// recordedPolicy decides every call as it was decided when recorded.
type recordedPolicy struct {
	rec    *recording
	inner  policy.Decider
	served *atomic.Int64 // the replayer's
}

// Decide implements policy.Decider.
func (p recordedPolicy) Decide(ctx context.Context, c policy.Call) policy.Decision {
	if p.inner != nil {
		if d := p.inner.Decide(ctx, c); d.Hard && d.Action == policy.Deny {
			return d
		}
	}
	d, ok := p.rec.decisions[callKey{int(p.served.Load()), c.ID}]
	switch {
	case !ok:
		return policy.Decision{Action: policy.Deny, Reason: "no decision was recorded for this call", Rule: "replay"}
	case d.Action == policy.Allow.String():
		return policy.Decision{Action: policy.Allow, Reason: d.Reason, Rule: d.By}
	}
	return policy.Decision{Action: policy.Deny, Reason: d.Reason, Rule: d.By}
}
