package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
)

// promptGate lets one question at a time hold the terminal. The policy's
// approval prompts and MCP servers' elicitation and sampling requests all
// pass through it, so two questions never interleave on stderr and an
// answer always goes to the question on screen.
type promptGate struct{ ch chan struct{} }

func newPromptGate() *promptGate { return &promptGate{ch: make(chan struct{}, 1)} }

// enter waits for the terminal, or until ctx is done.
func (g *promptGate) enter(ctx context.Context) error {
	select {
	case g.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave releases the terminal.
func (g *promptGate) leave() { <-g.ch }

// busy reports whether a question holds the terminal; progress lines wait
// for it to end rather than break into it.
func (g *promptGate) busy() bool { return len(g.ch) > 0 }

// gatedApprover asks its approver's questions through the gate.
type gatedApprover struct {
	gate  *promptGate
	inner policy.Approver
}

// Approve implements policy.Approver. Decisions that need no question
// pass straight through.
func (g *gatedApprover) Approve(ctx context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
	if d.Action != policy.Ask {
		return g.inner.Approve(ctx, c, d)
	}
	if err := g.gate.enter(ctx); err != nil {
		return policy.Decision{Action: policy.Deny, Reason: c.Spec.Name + " was denied: no answer (" + err.Error() + ")", Rule: "approver:console"}, err
	}
	defer g.gate.leave()
	return g.inner.Approve(ctx, c, d)
}

// consoleInteraction is the mcp.Interaction of a chat on a terminal: it
// puts servers' questions to the user on stderr and reads the answers
// from the chat's own line source, so an answer is never taken as a chat
// message. Elicit and Sample may be called concurrently (different calls,
// different servers); the gate asks one question at a time. Both honour
// ctx, which ends with the tool call that caused the request.
type consoleInteraction struct {
	gate     *promptGate
	readLine func(context.Context) (string, error)
	out      io.Writer
	// sampler answers approved sampling requests; it is set once the
	// agent's provider exists (useModel). Until then requests are
	// refused.
	sampler atomic.Pointer[sampler]
	// openURL opens a URL elicitation's link when the user asks (see
	// askURL); nil offers no opening.
	openURL func(string) (bool, error)

	// turn is the context of the chat turn now running, nil between
	// turns. Questions are asked only during a turn and end with it:
	// servers do not always cancel their question when the call that
	// raised it is cancelled, and between turns the chat itself reads
	// the input.
	mu   sync.Mutex
	turn context.Context
	// open counts the questions bound to the current turn, so the turn's
	// end waits until they have let go of the input.
	open sync.WaitGroup
}

func newConsoleInteraction(gate *promptGate, readLine func(context.Context) (string, error), out io.Writer) *consoleInteraction {
	return &consoleInteraction{gate: gate, readLine: readLine, out: out}
}

// useModel lets approved sampling requests run on the agent's provider.
func (c *consoleInteraction) useModel(s *sampler) { c.sampler.Store(s) }

// during lets servers ask questions while the turn whose context is ctx
// runs. The returned function ends that: it cancels the questions still
// open and waits until they have let go of the input, so the next line
// typed is the chat's. It is a no-op on a nil c.
func (c *consoleInteraction) during(ctx context.Context) (end func()) {
	if c == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.turn = ctx
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		if c.turn == ctx {
			c.turn = nil
		}
		c.mu.Unlock()
		cancel()
		c.open.Wait() // every question honours its context: this is brief
	}
}

// bind returns a context for one question that ends with the request's
// ctx and with the current turn, and done, which the question calls when
// it is over; ok is false between turns.
func (c *consoleInteraction) bind(ctx context.Context) (qctx context.Context, done func(), ok bool) {
	c.mu.Lock()
	turn := c.turn
	if turn != nil {
		c.open.Add(1) // under mu: before the turn's end can Wait
	}
	c.mu.Unlock()
	if turn == nil {
		return nil, nil, false
	}
	qctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(turn, cancel)
	return qctx, func() { stop(); cancel(); c.open.Done() }, true
}

// maxAnswerAttempts bounds how often one question is asked again after an
// answer that does not fit; then the request is cancelled.
const maxAnswerAttempts = 5

// Answers that end an elicitation early, typed at any prompt.
var (
	errAnswerDecline = errors.New("declined")
	errAnswerCancel  = errors.New("cancelled")
	errNoValidAnswer = errors.New("no valid answer")
	// errUnreadable is a line that could not be read (too long); the
	// question is asked again.
	errUnreadable = errors.New("unreadable line")
)

// questioner reads the answers of one request.
type questioner struct {
	ctx  context.Context
	read func(context.Context) (string, error)
	out  io.Writer
}

// ask shows prompt and returns the trimmed answer. /decline and /cancel
// end the request (errAnswerDecline, errAnswerCancel); the end of the
// input and ctx end it too.
func (q *questioner) ask(prompt string) (string, error) {
	io.WriteString(q.out, prompt)
	line, err := q.read(q.ctx)
	switch {
	case err != nil && q.ctx.Err() != nil:
		return "", q.ctx.Err()
	case errors.Is(err, errInputEnded):
		return "", err
	case err != nil:
		fmt.Fprintf(q.out, "  (%s)\n", textclip.FirstLine(err.Error()))
		return "", errUnreadable
	}
	line = strings.TrimSpace(line)
	switch strings.ToLower(line) {
	case "/decline":
		return "", errAnswerDecline
	case "/cancel":
		return "", errAnswerCancel
	}
	return line, nil
}

// yesNo asks a yes/no question until it gets y or n; Enter means def.
func (q *questioner) yesNo(prompt string, def bool) (bool, error) {
	for range maxAnswerAttempts {
		in, err := q.ask(prompt)
		if errors.Is(err, errUnreadable) {
			continue
		}
		if err != nil {
			return false, err
		}
		switch strings.ToLower(in) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintln(q.out, "  answer y or n")
	}
	return false, errNoValidAnswer
}

// Elicit implements mcp.Interaction: a form is asked field by field, a URL
// is shown (never opened) and the user says whether they completed it.
// Between turns it declines without asking; a question still open when
// the turn ends (Ctrl-C) is cancelled.
func (c *consoleInteraction) Elicit(reqCtx context.Context, req *mcp.Elicitation) (*mcp.ElicitationResponse, error) {
	var form *elicitForm
	if req.Mode != "url" {
		var err error
		if form, err = parseForm(req.Schema); err != nil {
			// The server gets an error, not a decline: its form is broken.
			return nil, fmt.Errorf("rein cannot ask this form: %w", err)
		}
	}
	ctx, done, ok := c.bind(reqCtx)
	if !ok {
		return &mcp.ElicitationResponse{Action: "decline"}, nil
	}
	defer done()
	if err := c.gate.enter(ctx); err != nil {
		if reqCtx.Err() != nil {
			return nil, err
		}
		return &mcp.ElicitationResponse{Action: "cancel"}, nil
	}
	defer c.gate.leave()
	q := &questioner{ctx: ctx, read: c.readLine, out: c.out}
	var (
		content map[string]any
		err     error
	)
	if form == nil {
		err = c.askURL(q, req)
	} else {
		content, err = c.askForm(q, req, form)
	}
	return c.outcome(reqCtx, ctx, req, content, err)
}

// outcome turns how the questions ended into the answer for the server:
// accept, decline or cancel, or an error when the server itself withdrew
// the question (reqCtx ended).
func (c *consoleInteraction) outcome(reqCtx, ctx context.Context, req *mcp.Elicitation, content map[string]any, err error) (*mcp.ElicitationResponse, error) {
	switch {
	case err == nil:
		return &mcp.ElicitationResponse{Action: "accept", Content: content}, nil
	case errors.Is(err, errAnswerDecline):
		fmt.Fprintf(c.out, "(declined; %s is told so)\n", termText(req.Server, 60))
		return &mcp.ElicitationResponse{Action: "decline"}, nil
	case errors.Is(err, errAnswerCancel):
		fmt.Fprintf(c.out, "(cancelled; %s is told so)\n", termText(req.Server, 60))
		return &mcp.ElicitationResponse{Action: "cancel"}, nil
	case reqCtx.Err() != nil:
		fmt.Fprintln(c.out, "\n(the server withdrew its question)")
		return nil, reqCtx.Err()
	case ctx.Err() != nil:
		fmt.Fprintln(c.out, "\n(the turn ended before the question was answered; it is cancelled)")
		return &mcp.ElicitationResponse{Action: "cancel"}, nil
	case errors.Is(err, errInputEnded):
		fmt.Fprintln(c.out, "\n(the input ended; the request is cancelled)")
	default:
		fmt.Fprintln(c.out, "(too many answers that do not fit; the request is cancelled)")
	}
	return &mcp.ElicitationResponse{Action: "cancel"}, nil
}

// askForm asks every field of a form and confirms the answers.
func (c *consoleInteraction) askForm(q *questioner, req *mcp.Elicitation, form *elicitForm) (map[string]any, error) {
	server := termText(req.Server, 60)
	fmt.Fprintf(c.out, "\nMCP server %s asks:\n%s\n", server, termBlock(req.Message, 2000, "  "))
	if len(form.fields) == 0 {
		ok, err := q.yesNo("Reply yes? [y]es, [n]o (/cancel to cancel): ", false)
		if err == nil && !ok {
			err = errAnswerDecline
		}
		return map[string]any{}, err
	}
	fmt.Fprintln(c.out, "(Answer each field; /decline or /cancel at any prompt.)")
	content := map[string]any{}
	for i := range form.fields {
		f := &form.fields[i]
		v, ok, err := c.askField(q, f)
		if err != nil {
			return nil, err
		}
		if ok {
			content[f.name] = v
		}
	}
	fmt.Fprintln(c.out, "Your answers:")
	if len(content) == 0 {
		fmt.Fprintln(c.out, "  (none)")
	}
	for _, f := range form.fields {
		if v, ok := content[f.name]; ok {
			fmt.Fprintf(c.out, "  %s: %s\n", f.fullName(), termText(f.answerText(v), 120))
		}
	}
	send, err := q.yesNo(fmt.Sprintf("Send them to %s? [Y/n]: ", server), true)
	if err == nil && !send {
		err = errAnswerDecline
	}
	return content, err
}

// askField asks one field until the answer fits. ok is false for an
// optional field left empty.
func (c *consoleInteraction) askField(q *questioner, f *formField) (v any, ok bool, err error) {
	fmt.Fprintln(c.out, f.header())
	for _, l := range f.optionLines() {
		fmt.Fprintln(c.out, l)
	}
	for range maxAnswerAttempts {
		in, err := q.ask(f.hint())
		if errors.Is(err, errUnreadable) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if in == "" {
			if f.def != nil {
				return f.defaultAnswer(), true, nil
			}
			if !f.required {
				return nil, false, nil
			}
			fmt.Fprintln(c.out, "  this field is required (or /decline, /cancel)")
			continue
		}
		v, err := f.parse(in)
		if err == nil {
			return v, true, nil
		}
		fmt.Fprintf(c.out, "  %s\n", err)
	}
	return nil, false, errNoValidAnswer
}

// sampler runs approved sampling requests on the agent's provider.
type sampler struct {
	provider model.Provider
	// model is the configured model name ("" lets the provider choose);
	// name is what servers are told answered.
	model, name string
	// maxTokens caps a request's maxTokens when set (the configured
	// max_tokens).
	maxTokens int
	ex        *explainer
	policy    *policy.Engine // decides servers' requests (samplingpolicy.go)
}

// Sample implements mcp.Interaction: it shows the request and, when the
// user approves, runs one completion on rein's model.
func (c *consoleInteraction) Sample(reqCtx context.Context, req *mcp.SamplingRequest) (*mcp.SamplingResponse, error) {
	s := c.sampler.Load()
	if s == nil {
		return nil, mcp.ErrDeclined // no model yet: nothing can answer
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("the sampling request has no messages")
	}
	ctx, done, ok := c.bind(reqCtx)
	if !ok {
		return nil, mcp.ErrDeclined
	}
	defer done()
	switch d := s.decide(req); d.Action {
	case policy.Allow, policy.Deny:
		noteSamplingDecision(c.out, req, s, d)
		if d.Action == policy.Deny {
			return nil, mcp.ErrDeclined
		}
		return s.complete(ctx, req)
	}
	if err := c.gate.enter(ctx); err != nil {
		return nil, mcp.ErrDeclined
	}
	approved, err := c.askSampling(&questioner{ctx: ctx, read: c.readLine, out: c.out}, req, s)
	c.gate.leave() // the completion needs no answers; others may ask meanwhile
	switch {
	case reqCtx.Err() != nil:
		return nil, reqCtx.Err()
	case err != nil || !approved:
		return nil, mcp.ErrDeclined
	}
	// The completion ends with the turn too: a cancelled turn stops
	// spending tokens on a server's behalf.
	return s.complete(ctx, req)
}

// askSampling shows a sampling request: its system prompt and its last
// message, clipped.
func (c *consoleInteraction) askSampling(q *questioner, req *mcp.SamplingRequest, s *sampler) (bool, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nMCP server %s asks rein's model for a completion (at most %d tokens):\n", termText(req.Server, 60), s.tokens(req.MaxTokens))
	if req.SystemPrompt != "" {
		fmt.Fprintf(&b, "  system: %s\n", termText(req.SystemPrompt, 300))
	}
	last := req.Messages[len(req.Messages)-1]
	fmt.Fprintf(&b, "  %s: %s\n", termText(last.Role, 20), termText(last.Text, 500))
	if n := len(req.Messages) - 1; n > 0 {
		fmt.Fprintf(&b, "  (%s before it not shown)\n", plural(n, "message"))
	}
	if len(req.Tools) > 0 && req.ToolChoice != "none" {
		fmt.Fprintf(&b, "  (the model may call %s of the server's; the server runs them)\n", plural(len(req.Tools), "tool"))
	}
	if len(req.ModelHints) > 0 {
		fmt.Fprintf(&b, "  (the server prefers %s; %s answers)\n", termText(strings.Join(req.ModelHints, ", "), 200), termText(s.name, 80))
	}
	io.WriteString(c.out, b.String())
	return q.yesNo("Let the model answer? [y/N]: ", false)
}

// tokens is the completion's token limit: the server's, capped by the
// configured max_tokens.
func (s *sampler) tokens(asked int64) int {
	n := int(min(max(asked, 0), 1<<30))
	if s.maxTokens > 0 && (n == 0 || n > s.maxTokens) {
		n = s.maxTokens
	}
	return n
}

// complete runs one completion for a sampling request.
func (s *sampler) complete(ctx context.Context, req *mcp.SamplingRequest) (*mcp.SamplingResponse, error) {
	mr := &model.Request{Model: s.model, System: req.SystemPrompt, MaxTokens: s.tokens(req.MaxTokens), Stop: req.Stop}
	if req.Temperature != 0 {
		t := req.Temperature
		mr.Temperature = &t
	}
	mr.Messages = samplingMessages(req)
	mr.Tools, mr.ToolChoice = samplingTools(req)
	resp, err := model.Collect(s.provider.Stream(ctx, mr))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("rein's model could not answer: %s", s.ex.errorLine(err))
	}
	out := &mcp.SamplingResponse{Model: s.name, Text: resp.Message.Text(), StopReason: samplingStop(resp.StopReason)}
	if len(mr.Tools) > 0 {
		out.ToolUses = samplingToolUses(resp.Message)
	}
	return out, nil
}

// samplingStop maps rein's stop reasons to MCP's names.
func samplingStop(r model.StopReason) string {
	switch r {
	case model.StopEndTurn:
		return "endTurn"
	case model.StopSequence:
		return "stopSequence"
	case model.StopMaxTokens:
		return "maxTokens"
	case model.StopToolUse:
		return "toolUse"
	}
	return string(r)
}
