package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// Internal stop causes. They never reach the caller as such: errStopped
// means the consumer stopped iterating, errRunTimeout marks Config.Timeout.
var (
	errStopped    = errors.New("agent: the consumer stopped reading events")
	errRunTimeout = errors.New("agent: run timeout reached")
)

// Run appends input to c as a user message (nothing when input is "", to
// continue a conversation, e.g. after a resume) and runs the loop, yielding
// its events. The last event is always session.completed carrying the
// Outcome; when the run ended Failed or Cancelled it is yielded together
// with the typed error (after an error event), so a range loop sees it. A
// run that ended VerificationFailed yields no error: the Outcome's Err
// holds the last failed check's output.
//
// Breaking out of the loop stops the run: the model stream and running
// tools are cancelled, every pending call gets an "interrupted" result so c
// stays valid, and no goroutine outlives Run. Events share memory with c
// and must be treated as read-only. c must not be used concurrently.
//
// Run is RunWith with zero RunOptions.
func (a *Agent) Run(ctx context.Context, c *Conversation, input string) iter.Seq2[Event, error] {
	return a.RunWith(ctx, c, input, RunOptions{})
}

// RunOptions override parts of the Agent's Config for one run, so one Agent
// can serve runs with different prompts or sampling (a sub-agent, a "plan
// only" turn, a retry at a lower temperature) without being rebuilt. The
// zero value changes nothing.
type RunOptions struct {
	// System, when not empty, replaces Config.System for this run;
	// Config.Instructions are still appended to it.
	System string
	// AppendSystem, when not empty, is appended to the run's system
	// prompt (System or Config.System, with Config.Instructions), so a
	// caller can add sections — an active skill's — without knowing the
	// Agent's prompt.
	AppendSystem string
	// Params, when not nil, replaces Config.Params as the request
	// template of this run (its Model, System, Messages and Tools are
	// ignored, as in Config.Params). It is read, never modified, and must
	// not be modified while the run lasts.
	Params *model.Request
	// Model, when not empty, replaces Config.Model for this run (a
	// custom command's model: front matter).
	Model string
	// Tools, when not nil, replaces Config.Tools for this run: the
	// tools the run offers and may call, so a program can change an
	// Agent's tools between runs (a skill.Registry's Tools, say) without
	// rebuilding it. AllowedTools still narrows it, and every call is
	// still decided by Steering, the policy and the approver. Sub-agents
	// the run starts draw their tools from it. It is read as the run
	// goes, like Config.Tools, and must not shrink while the run lasts.
	Tools *tool.Set

	// AllowedTools, when not nil, narrows the run to the tools of
	// its tool set (Tools, else Config.Tools) it names: only they are offered to the model, and a
	// call of any other tool is denied with a reason naming Restriction,
	// without reaching Steering or the policy. Names the Set lacks are
	// ignored; an empty, non-nil list offers no tools. It only narrows:
	// every call of an allowed tool is still decided by Steering, the
	// policy and the approver as in any run.
	AllowedTools []string
	// Narrow, when not nil, decides every call of an allowed tool beside
	// Config.Policy and the stricter decision wins, so it can deny or ask
	// but never lift what the policy decided (an Allow from it changes
	// nothing). A command's Bash(git status:*) patterns are one.
	Narrow policy.Decider
	// Restriction names what narrowed the run in the reasons the model
	// sees, e.g. "the command's allowed-tools"; default "this run's
	// allowed tools".
	Restriction string
}

// RunWith is Run with per-run overrides. Concurrent runs on different
// Conversations may use different options: they are the run's own, never
// written to the Agent.
func (a *Agent) RunWith(ctx context.Context, c *Conversation, input string, opts RunOptions) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		r := newRun(a, ctx, c, yield, opts)
		defer r.workers.Close() // after the cancel: no goroutine outlives Run
		defer r.cancel(nil)
		r.loop(input)
	}
}

// run is the state of one Run.
type run struct {
	exec     execLevel                  // the calls FanOut is running (see execFn)
	execFunc func(context.Context, int) // made once per run
	// onEvent is onStream as a func value, made once per run; streamOver
	// is set once the stream was told to stop or has returned.
	onEvent    func(model.Event, error) bool
	streamOver bool
	a          *Agent
	c          *Conversation
	parent     context.Context
	ctx        context.Context
	cancel     context.CancelCauseFunc
	// recordCtx is what the journal and hooks get: the caller's values
	// without its cancellation, so the interrupted results and the closing
	// events of a cancelled run are still recorded.
	recordCtx context.Context
	yield     func(Event, error) bool

	// system and params are what this run sends: the Agent's, or the
	// RunOptions' overrides.
	system string
	params *model.Request
	// model is the model name this run sends.
	model string
	// tools is the run's tool set: RunOptions.Tools, else Config.Tools.
	tools *tool.Set
	// narrowing is the run's RunOptions.AllowedTools restriction.
	narrowing

	// The tool set is read at the start of the run and again before a
	// model call when the Set changed (toolsVersion), so tools added to it
	// mid-run (an MCP server that connected late) are offered from the
	// next model call on.
	specs        []model.ToolSpec
	names        []string
	toolsVersion uint64
	// fixedTokens is the raw estimate of what every request carries besides
	// the history: system prompt, instructions and tool specs.
	fixedTokens int

	// arrays hands out the arrays of the run's turns (arena.go).
	arrays turnArrays
	// workers are the goroutines the run's tool calls run on, reused
	// from call to call and ended with the run.
	workers tool.Workers

	// req, builder and streamErr serve the current model call; they live
	// here so a call does not allocate them afresh.
	req       model.Request
	builder   model.Builder
	streamErr error

	// window is the context window for this run, -1 until asked.
	window int

	step int
	out  Outcome
	// used is input+output tokens reported so far, for TokenBudget.
	used int
	// denials counts consecutive policy denials.
	denials int
	// asks counts consecutive calls that needed an approval no one could
	// give (unanswered.go); they are not denials.
	asks   int
	repeat repeatGuard
	// stopped is set once the consumer stopped iterating; nothing more
	// is yielded.
	stopped bool
	// journalMu serialises the Journal: tool results are journaled from
	// the goroutine that ran the call, as soon as it finishes.
	journalMu sync.Mutex
	// journalDown is set after the Journal failed; the closing events
	// then bypass it.
	journalDown bool

	// nudged is set after the model was told its answer was empty; a
	// second empty answer in a row ends the run.
	nudged bool
	// outErr is the Outcome's error text for a run that ends short of
	// Complete without a framework error (a failed verification).
	outErr string
	// ended is set once SessionEnd was sent.
	ended bool
	steerState
	verifyState
	planState
	// link is the run's place in its tree of agents (subagent_tree.go).
	link *treeLink
}

func newRun(a *Agent, ctx context.Context, c *Conversation, yield func(Event, error) bool, opts RunOptions) *run {
	r := &run{a: a, c: c, parent: ctx, recordCtx: context.WithoutCancel(ctx), yield: yield, window: -1,
		system: a.system, params: &a.cfg.Params}
	if opts.System != "" {
		r.system = joinSystem(opts.System, a.cfg.Instructions)
	}
	if opts.AppendSystem != "" {
		r.system = joinSystem(r.system, opts.AppendSystem)
	}
	r.tools = a.cfg.Tools
	if opts.Tools != nil {
		r.tools = opts.Tools
	}
	if opts.Params != nil {
		r.params = opts.Params
	}
	r.model = a.cfg.Model
	if opts.Model != "" {
		r.model = opts.Model
	}
	r.narrowing = newNarrowing(opts)
	r.readTools()
	linkRun(r, ctx)
	// The run rides in its context so that tools of this package (the
	// plan tool) reach the run that invoked them; a nested run (a
	// sub-agent) shadows it with its own.
	r.ctx, r.cancel = context.WithCancelCause(context.WithValue(ctx, runKey{}, r))
	if a.cfg.Timeout > 0 {
		// The timeout's cause tells Deadline apart from cancellation.
		tctx, tcancel := context.WithTimeoutCause(r.ctx, a.cfg.Timeout, errRunTimeout)
		outer := r.cancel
		r.ctx, r.cancel = tctx, func(err error) { tcancel(); outer(err) }
	}
	return r
}

// readTools reads the tool set's specs (those the run offers) and the
// fixed part of every request's token estimate that depends on them.
func (r *run) readTools() {
	all, version := r.tools.SpecsVersion() // a nil Set is empty
	specs := r.offered(all)
	r.toolsVersion = version
	r.fixedTokens = EstimateTextTokens(len(r.system))
	r.specs, r.names = nil, nil
	if len(specs) == 0 {
		return
	}
	r.specs = make([]model.ToolSpec, len(specs))
	r.names = make([]string, len(specs))
	for i, s := range specs {
		r.specs[i] = model.ToolSpec{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema}
		r.names[i] = s.Name
		r.fixedTokens += partOverhead + EstimateTextTokens(len(s.Name)+len(s.Description)+len(s.InputSchema))
	}
}

// loop is the run: limits, then a model call, then its tool calls, until an
// outcome.
func (r *run) loop(input string) {
	if err := r.emit(Event{Type: EventSessionStarted}); err != nil {
		r.end(Failed, err)
		return
	}
	if kind, err, stop := r.begin(input); stop {
		r.end(kind, err)
		return
	}
	for {
		if kind, err, stop := r.limitReached(); stop {
			r.end(kind, err)
			return
		}
		if kind, err, stop := r.step1(); stop {
			r.end(kind, err)
			return
		}
	}
}

// limitReached checks the limits that apply before a model call.
func (r *run) limitReached() (OutcomeKind, error, bool) {
	r.foldChildUsage()
	if reason, halted := r.halted(); halted {
		r.out.Reason = reason
		return Blocked, nil, true
	}
	switch {
	case r.ctx.Err() != nil:
		kind, err := r.ctxOutcome()
		return kind, err, true
	case r.step >= r.a.cfg.MaxSteps:
		r.out.Reason = "reached the limit of " + plural(r.a.cfg.MaxSteps, "model call") + " per run"
		return StepLimit, nil, true
	case r.a.cfg.TokenBudget > 0 && r.used >= r.a.cfg.TokenBudget:
		r.out.Reason = fmt.Sprintf("used %d of the run's budget of %d tokens", r.used, r.a.cfg.TokenBudget)
		return TokenBudget, nil, true
	}
	if reason, over := r.treeLimitReached(); over {
		r.out.Reason = reason
		return StepLimit, nil, true
	}
	return "", nil, false
}

// ctxOutcome classifies a done run context: the run's own timeout or the
// caller's deadline is Deadline (a limit), anything else is Cancelled and
// returns the caller's cancellation error.
func (r *run) ctxOutcome() (OutcomeKind, error) {
	cause := context.Cause(r.ctx)
	switch {
	case errors.Is(cause, errStopped):
		return Cancelled, errStopped
	case errors.Is(cause, errRunTimeout):
		r.out.Reason = "reached the run timeout of " + r.a.cfg.Timeout.String()
		return Deadline, nil
	case errors.Is(cause, context.DeadlineExceeded):
		r.out.Reason = "reached the caller's deadline"
		return Deadline, nil
	}
	return Cancelled, fmt.Errorf("agent: run cancelled: %w", cause)
}

// interruptedReason is the result text for calls cut short by the end of
// the run, stopErr being why the run is ending, if known.
func (r *run) interruptedReason(stopErr error) string {
	if errors.Is(stopErr, ErrJournal) && r.ctx.Err() == nil {
		return "interrupted: the run stopped because its journal failed"
	}
	if _, halted := r.halted(); halted && r.ctx.Err() == nil {
		return "interrupted: a hook halted the run"
	}
	if kind, _ := r.ctxOutcome(); kind == Deadline {
		return "interrupted: run deadline reached"
	}
	return "interrupted: run cancelled"
}

// recordCut records the answer a cancelled or timed-out model call had
// streamed so far — its text, without the tool calls it had begun, which
// would have no results — and a note that it was cut off, so the history
// says what the user saw, the next user message does not follow the last
// one as if unanswered, and the model knows its answer was interrupted.
func (r *run) recordCut(resp *model.Response) error {
	note := "[rein: answer " + r.interruptedReason(nil) + "]"
	if resp != nil {
		if text := strings.TrimRight(resp.Message.Text(), " \t\n"); text != "" {
			note = text + "\n\n" + note
		}
	}
	r.c.Append(model.AssistantText(note))
	return r.emitMessage()
}

// step1 makes one model call and handles its answer. stop reports that the
// run is over with kind and err.
func (r *run) step1() (kind OutcomeKind, err error, stop bool) {
	r.step++
	if r.tools.Version() != r.toolsVersion {
		r.readTools()
	}
	budget := r.historyBudget()
	if kind, stop := r.preCompact(budget); stop {
		return kind, nil, true
	}
	msgs, info, err := r.a.cfg.Context.Prepare(r.ctx, r.c, budget)
	if err != nil {
		if r.ctx.Err() != nil {
			kind, err := r.ctxOutcome()
			return kind, err, true
		}
		return Failed, fmt.Errorf("agent: context strategy failed before model call %d: %w", r.step, err), true
	}
	estimate := r.c.scaled(r.fixedTokens + r.planTokens())
	if info != nil {
		estimate += info.EstimatedTokens
		if err := r.emit(Event{Type: EventCompaction, Compaction: info}); err != nil {
			return Failed, err, true
		}
	} else {
		estimate += r.c.EstimatedTokens(0)
	}
	resp, err := r.callModel(msgs)
	if err := r.account(resp.Usage, estimate); err != nil {
		return Failed, err, true
	}
	if err != nil {
		if errors.Is(err, errStopped) || r.ctx.Err() != nil {
			kind, cerr := r.ctxOutcome()
			if !errors.Is(cerr, errStopped) {
				if jerr := r.recordCut(&resp); jerr != nil {
					return Failed, jerr, true
				}
			}
			return kind, cerr, true
		}
		if errors.Is(err, ErrJournal) {
			return Failed, err, true
		}
		return Failed, fmt.Errorf("%w %d failed: %w", ErrModelCall, r.step, err), true
	}
	if resp.StopReason == model.StopContentFilter {
		return r.contentFiltered(resp.Message)
	}
	msg, states := sanitizeAssistant(resp.Message, r.a.cfg.IDs, &r.arrays)
	if len(msg.Parts) == 0 {
		// An empty answer is not recorded: providers reject empty
		// assistant messages on the next call.
		return r.emptyAnswer()
	}
	r.c.Append(msg)
	text := msg.Text()
	if text != "" {
		r.out.Text = text
	}
	if err := r.emitMessage(); err != nil {
		if len(states) > 0 {
			return r.afterTurn(states, "", r.closeTurn(states, err))
		}
		return Failed, err, true
	}
	if len(states) > 0 {
		r.nudged = false
		return r.toolTurn(states, text)
	}
	if strings.TrimSpace(text) == "" {
		// Only reasoning, or only white space: still no answer.
		return r.emptyAnswer()
	}
	r.nudged = false
	return r.finalAnswer(text)
}

// ErrEmptyAnswer reports a model that returned an empty answer again after
// it was told its answer was empty.
var ErrEmptyAnswer = errors.New("agent: the model returned an empty answer twice")

// emptyNudge is the user message sent after an empty answer.
const emptyNudge = "You returned an empty answer. Answer the user, or call a tool."

// emptyAnswer handles a turn without text or tool calls. A model that
// stops without a word (a template glitch, a stop sequence hit at once)
// usually answers when told so; ending Complete would print nothing and
// exit 0, hiding the failure. So it is nudged once, and a second empty
// answer in a row ends the run Failed.
func (r *run) emptyAnswer() (OutcomeKind, error, bool) {
	if r.nudged {
		r.out.Text = ""
		return Failed, ErrEmptyAnswer, true
	}
	r.nudged = true
	r.c.Append(model.UserText(emptyNudge))
	if err := r.emitMessage(); err != nil {
		return Failed, err, true
	}
	return "", nil, false
}

// finalAnswer handles a turn that ended with an answer and no tool calls:
// the verification gate, then the Stop steering point, decide whether the
// run is over or goes on.
func (r *run) finalAnswer(text string) (OutcomeKind, error, bool) {
	switch kind, g, err := r.verify(); g {
	case gateEnd:
		return kind, err, true
	case gateRetry:
		return "", nil, false
	}
	return r.stop(text)
}

// historyBudget returns the tokens the history may use on the next call:
// the window minus the room reserved for the answer (Params.MaxTokens, else
// an eighth of the window) and minus what travels outside the history.
// 0 means unbounded.
func (r *run) historyBudget() int {
	if r.window < 0 {
		// Asking the server costs requests (and fails noisily on a bad
		// key before the real call could say why), so it is put off
		// until the request could come near the smallest window a model
		// server runs with.
		if !r.a.windowAsked() && r.c.scaled(r.fixedTokens)+r.c.EstimatedTokens(0) < minProbeTokens {
			return 0
		}
		r.window = r.a.contextWindow(r.ctx)
	}
	w := r.window
	if w <= 0 {
		return 0
	}
	reserve := r.params.MaxTokens
	if reserve <= 0 || reserve >= w {
		reserve = w / 8
	}
	// Never 0, which would mean unbounded: when the fixed part alone
	// overflows, send as little history as possible.
	return max(w-reserve-r.c.scaled(r.fixedTokens+r.planTokens()), 1)
}

// callModel streams one model call, yielding deltas as they arrive. It
// returns the assembled response (partial on error) and the stream's error;
// a stream without its stop event is model.ErrIncompleteStream. The request
// and builder live in the run and are reused from call to call: providers
// must not keep the request after Stream returns.
func (r *run) callModel(msgs []model.Message) (model.Response, error) {
	r.req = *r.params
	r.req.Model = r.model
	r.req.System = r.systemWithPlan()
	r.req.Messages = msgs
	r.req.Tools = r.specs
	r.builder = model.Builder{}
	r.streamErr = nil
	// The stream is called with a yield made once per run: a range loop's
	// body is a fresh closure (an allocation) on every model call.
	r.streamOver = false
	if r.onEvent == nil {
		r.onEvent = r.onStream
	}
	r.a.cfg.Provider.Stream(r.ctx, &r.req)(r.onEvent)
	r.streamOver = true
	if r.streamErr == nil && !r.builder.Stopped() {
		r.streamErr = model.ErrIncompleteStream
	}
	r.req.Messages = nil // do not pin a compacted copy until the next call
	// Take resets the builder: the next call starts it afresh anyway.
	return r.builder.Take(), r.streamErr
}

// onStream is the yield the model's stream is called with. After it has
// said stop, a stream that goes on is ignored, as it is the run's no more.
func (r *run) onStream(ev model.Event, err error) bool {
	switch {
	case r.streamOver:
		return false
	case err != nil:
		r.streamErr = err
	case r.onModelEvent(ev):
		return true
	}
	r.streamOver = true
	return false
}

// onModelEvent folds one stream event into the answer and reports deltas.
// It returns false when the run must stop (r.streamErr says why).
func (r *run) onModelEvent(ev model.Event) bool {
	r.builder.Add(ev)
	var typ EventType
	switch ev.Kind {
	case model.EventTextDelta:
		typ = EventTextDelta
	case model.EventReasoningDelta:
		typ = EventReasoningDelta
	case model.EventToolCallStart:
		return r.onToolCallStart(ev.ToolCall)
	default:
		return true
	}
	if ev.Text == "" {
		return true
	}
	if err := r.emit(Event{Type: typ, Text: ev.Text}); err != nil {
		r.streamErr = err
		return false
	}
	return true
}

// account adds a call's usage to the run, calibrates the conversation's
// estimates and reports it.
func (r *run) account(u model.Usage, estimate int) error {
	if u.InputTokens == 0 && u.OutputTokens == 0 && u.CacheReadTokens == 0 &&
		u.CacheWriteTokens == 0 && u.ReasoningTokens == 0 && u.Timings == nil {
		return nil
	}
	r.out.Usage.Add(u)
	r.used += u.InputTokens + u.OutputTokens
	r.c.ObserveUsage(u, estimate)
	reported := u // only reported usage escapes to the heap
	return r.emit(Event{Type: EventUsage, Usage: &reported})
}
