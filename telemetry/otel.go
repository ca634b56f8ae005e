package telemetry

import (
	"context"
	"encoding/json"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/telemetry/redact"
)

// GenAI semantic-convention attribute keys (OpenTelemetry semconv 1.40).
// They are spelled out rather than imported so that an upgrade of the
// semconv module cannot rename what dashboards already query.
const (
	attrOperation      = attribute.Key("gen_ai.operation.name")
	attrProvider       = attribute.Key("gen_ai.provider.name")
	attrRequestModel   = attribute.Key("gen_ai.request.model")
	attrConversationID = attribute.Key("gen_ai.conversation.id")
	attrAgentName      = attribute.Key("gen_ai.agent.name")
	attrInputTokens    = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens   = attribute.Key("gen_ai.usage.output_tokens")
	attrCacheRead      = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	attrCacheWrite     = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	attrFinishReasons  = attribute.Key("gen_ai.response.finish_reasons")
	attrOutputMessages = attribute.Key("gen_ai.output.messages")
	attrToolName       = attribute.Key("gen_ai.tool.name")
	attrToolCallID     = attribute.Key("gen_ai.tool.call.id")
	attrToolType       = attribute.Key("gen_ai.tool.type")
	attrToolArguments  = attribute.Key("gen_ai.tool.call.arguments")
	attrToolResult     = attribute.Key("gen_ai.tool.call.result")
	attrErrorType      = attribute.Key("error.type")

	attrDecision       = attribute.Key("rein.tool.decision")
	attrDecisionBy     = attribute.Key("rein.tool.decision.by")
	attrDecisionReason = attribute.Key("rein.tool.decision.reason")
	attrOutcome        = attribute.Key("rein.outcome")
	attrOutcomeReason  = attribute.Key("rein.outcome.reason")
	attrSteps          = attribute.Key("rein.steps")
	attrToolCalls      = attribute.Key("rein.tool_calls")
)

// TracerConfig configures NewTracer.
type TracerConfig struct {
	// Provider creates the tracer; required. Use Tracing (SetupOTLP) or
	// any SDK TracerProvider.
	Provider trace.TracerProvider
	// Model and ProviderName ("openai", "anthropic") describe the model
	// calls (gen_ai.request.model, gen_ai.provider.name).
	Model, ProviderName string
	// CaptureContent exports the model's output messages and the tools'
	// arguments and results (redacted, and cut to MaxLoggedBytes unless
	// Debug). Off by default: traces often leave the machine.
	CaptureContent bool
	// Debug exports captured contents in full.
	Debug bool
}

// Tracer turns agent events into spans following the OpenTelemetry GenAI
// semantic conventions: one "invoke_agent rein" span per run, a
// "chat {model}" span per model call and an "execute_tool {name}" span per
// tool call, both children of the run's span. It is an agent.Hook, safe
// for concurrent use by many runs.
//
// The spans are reconstructed from events, so their times are those of
// the events: a model call starts when the loop moved on from the
// previous event, and every tool call of a turn ends when the turn's
// results are recorded.
type Tracer struct {
	cfg    TracerConfig
	tracer trace.Tracer

	mu   sync.Mutex
	runs map[string]*runSpans
}

var _ agent.Hook = (*Tracer)(nil)

// runSpans is the open spans of one run.
type runSpans struct {
	ctx   context.Context // carries the run span
	run   trace.Span
	step  int
	chat  trace.Span
	last  agent.Event // the previous event, for the next model call's start
	tools map[string]trace.Span
	memo  redact.Memo
}

// NewTracer returns a Tracer on cfg.Provider.
func NewTracer(cfg TracerConfig) *Tracer {
	return &Tracer{
		cfg:    cfg,
		tracer: cfg.Provider.Tracer("github.com/reinharness/rein/telemetry"),
		runs:   map[string]*runSpans{},
	}
}

// OnEvent implements agent.Hook.
func (t *Tracer) OnEvent(ctx context.Context, ev agent.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.runs[ev.RunID]
	if r == nil {
		r = t.startRun(ctx, ev)
		t.runs[ev.RunID] = r
	}
	if ev.Step > r.step && ev.Type != agent.EventSessionCompleted {
		t.startChat(r, ev)
	}
	switch ev.Type {
	case agent.EventUsage:
		if r.chat != nil && ev.Usage != nil {
			r.chat.SetAttributes(usageAttrs(*ev.Usage)...)
		}
	case agent.EventMessage:
		if ev.Message != nil && ev.Message.Role == model.RoleAssistant && r.chat != nil {
			t.endChat(r, ev)
		}
	case agent.EventToolCall:
		t.startTool(r, ev)
	case agent.EventToolDecision:
		if d := ev.Decision; d != nil {
			if s := r.tools[d.CallID]; s != nil {
				s.SetAttributes(attrDecision.String(d.Action), attrDecisionBy.String(d.By),
					attrDecisionReason.String(redact.String(d.Reason)))
			}
		}
	case agent.EventToolResult:
		t.endTool(r, ev)
	case agent.EventError:
		span := r.run
		if r.chat != nil {
			span = r.chat
		}
		span.SetStatus(codes.Error, redact.String(ev.Err))
	case agent.EventSessionCompleted:
		t.endRun(r, ev)
		delete(t.runs, ev.RunID)
		return
	}
	r.last = ev
}

func (t *Tracer) startRun(ctx context.Context, ev agent.Event) *runSpans {
	ctx, span := t.tracer.Start(ctx, "invoke_agent rein",
		trace.WithTimestamp(ev.Time),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attrOperation.String("invoke_agent"),
			attrAgentName.String("rein"),
			attrConversationID.String(ev.RunID),
		))
	return &runSpans{ctx: ctx, run: span, last: ev, tools: map[string]trace.Span{}}
}

// startChat opens the span of model call ev.Step, ending a previous one
// that never got its answer.
func (t *Tracer) startChat(r *runSpans, ev agent.Event) {
	if r.chat != nil {
		r.chat.End(trace.WithTimestamp(r.last.Time))
	}
	r.step = ev.Step
	name := "chat"
	if t.cfg.Model != "" {
		name += " " + t.cfg.Model
	}
	attrs := []attribute.KeyValue{attrOperation.String("chat"), attrConversationID.String(ev.RunID)}
	if t.cfg.Model != "" {
		attrs = append(attrs, attrRequestModel.String(t.cfg.Model))
	}
	if t.cfg.ProviderName != "" {
		attrs = append(attrs, attrProvider.String(t.cfg.ProviderName))
	}
	_, r.chat = t.tracer.Start(r.ctx, name,
		trace.WithTimestamp(r.last.Time),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs...))
}

func (t *Tracer) endChat(r *runSpans, ev agent.Event) {
	msg := *ev.Message
	reason := "stop"
	if len(msg.ToolCalls()) > 0 {
		reason = "tool_calls"
	}
	r.chat.SetAttributes(attrFinishReasons.StringSlice([]string{reason}))
	if t.cfg.CaptureContent {
		r.chat.SetAttributes(attrOutputMessages.String(t.content(r, outputMessages(msg, reason))))
	}
	r.chat.End(trace.WithTimestamp(ev.Time))
	r.chat = nil
}

func (t *Tracer) startTool(r *runSpans, ev agent.Event) {
	c := ev.ToolCall
	if c == nil {
		return
	}
	attrs := []attribute.KeyValue{
		attrOperation.String("execute_tool"),
		attrToolName.String(c.Name),
		attrToolCallID.String(c.ID),
		attrToolType.String("function"),
	}
	if t.cfg.CaptureContent {
		attrs = append(attrs, attrToolArguments.String(t.content(r, string(c.Args))))
	}
	_, span := t.tracer.Start(r.ctx, "execute_tool "+c.Name,
		trace.WithTimestamp(ev.Time),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...))
	if old := r.tools[c.ID]; old != nil {
		old.End(trace.WithTimestamp(ev.Time))
	}
	r.tools[c.ID] = span
}

func (t *Tracer) endTool(r *runSpans, ev agent.Event) {
	res := ev.ToolResult
	if res == nil {
		return
	}
	span := r.tools[res.CallID]
	if span == nil {
		return
	}
	delete(r.tools, res.CallID)
	if t.cfg.CaptureContent {
		span.SetAttributes(attrToolResult.String(t.content(r, res.Content)))
	}
	if res.IsError {
		span.SetAttributes(attrErrorType.String("tool_error"))
		span.SetStatus(codes.Error, "the tool call failed or was refused")
	}
	span.End(trace.WithTimestamp(ev.Time))
}

// endRun closes everything still open and the run span itself.
func (t *Tracer) endRun(r *runSpans, ev agent.Event) {
	end := trace.WithTimestamp(ev.Time)
	if r.chat != nil {
		r.chat.End(end)
	}
	for _, s := range r.tools {
		s.End(end)
	}
	if o := ev.Outcome; o != nil {
		r.run.SetAttributes(attrOutcome.String(string(o.Kind)), attrSteps.Int(o.Steps),
			attrToolCalls.Int(o.ToolCalls))
		r.run.SetAttributes(usageAttrs(o.Usage)...)
		if o.Reason != "" {
			r.run.SetAttributes(attrOutcomeReason.String(redact.String(o.Reason)))
		}
		if o.Kind == agent.Failed {
			r.run.SetAttributes(attrErrorType.String("run_failed"))
			r.run.SetStatus(codes.Error, redact.String(o.Err))
		}
	}
	r.run.End(end)
}

// content redacts s and, unless Debug, cuts it to MaxLoggedBytes.
func (t *Tracer) content(r *runSpans, s string) string {
	s = r.memo.String(s)
	if !t.cfg.Debug {
		s = cutText(s, MaxLoggedBytes)
	}
	return s
}

func usageAttrs(u model.Usage) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attrInputTokens.Int(u.InputTokens), attrOutputTokens.Int(u.OutputTokens)}
	if u.CacheReadTokens > 0 {
		attrs = append(attrs, attrCacheRead.Int(u.CacheReadTokens))
	}
	if u.CacheWriteTokens > 0 {
		attrs = append(attrs, attrCacheWrite.Int(u.CacheWriteTokens))
	}
	return attrs
}

// outputMessages renders msg in the GenAI convention's output-messages
// shape: [{"role","parts":[…],"finish_reason"}].
func outputMessages(msg model.Message, reason string) string {
	type part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	out := struct {
		Role         string `json:"role"`
		Parts        []part `json:"parts"`
		FinishReason string `json:"finish_reason"`
	}{Role: "assistant", FinishReason: reason}
	for _, p := range msg.Parts {
		switch {
		case p.Kind == model.PartText:
			out.Parts = append(out.Parts, part{Type: "text", Content: p.Text})
		case p.Kind == model.PartReasoning && p.Text != "":
			out.Parts = append(out.Parts, part{Type: "reasoning", Content: p.Text})
		case p.Kind == model.PartToolCall && p.ToolCall != nil:
			out.Parts = append(out.Parts, part{Type: "tool_call", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Arguments: p.ToolCall.Args})
		}
	}
	b, err := json.Marshal([]any{out})
	if err != nil {
		return ""
	}
	return string(b)
}
