package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/telemetry/redact"
)

// renderer shows one run in an output format. event is called for every
// agent event in order, finish once at the end with the outcome (nil if the
// run never completed) and the explanation of anything short of success
// ("" on success). Renderers are used from one goroutine.
type renderer interface {
	event(ev agent.Event)
	finish(out *agent.Outcome, problem string)
}

func newRenderer(format string, stdout, stderr io.Writer, ex *explainer) renderer {
	switch format {
	case formatJSON:
		return &jsonRenderer{w: stdout, ex: ex, t: newResultTracker()}
	case formatStreamJSON:
		return &streamRenderer{w: stdout, ex: ex, memo: &redact.Memo{}}
	}
	return &textRenderer{out: stdout, err: stderr, ex: ex}
}

// textRenderer streams the assistant's text to stdout as it arrives and
// shows tool activity compactly on stderr, one line per call and result.
// Everything it prints is model-controlled: it is redacted of secrets
// first, then escaped (termsafe) so a terminal shows control characters
// instead of obeying them. Tool lines are one line already (compactLine
// cuts at the first line break) and show JSON, which escapes its own
// backslashes, so they use termsafe.Text, which leaves backslashes alone.
type textRenderer struct {
	out, err io.Writer
	ex       *explainer
	// midLine is set while an answer is being streamed: stdout (or
	// answer, which holds back what could be a split secret) holds text
	// not yet ended by a newline.
	midLine bool
	answer  secret.Stream
	// lastAnswer is the last answer text printed, for endLine.
	lastAnswer string
	// denied holds the calls whose denial was shown, so their result
	// (which repeats the reason) is not shown again.
	denied map[string]bool
	// verifyOpen is the check whose "verify: …" line awaits its result.
	verifyOpen string
}

// maxToolLine bounds the runes of a tool call's arguments or result shown;
// maxDenialLine those of a denial's reason, which says what to change.
const (
	maxToolLine   = 160
	maxDenialLine = 400
)

func (r *textRenderer) event(ev agent.Event) {
	if ev.AgentPath != "" {
		r.childEvent(ev)
		return
	}
	switch ev.Type {
	case agent.EventTextDelta:
		if ev.Text == "" {
			return
		}
		// The answer is redacted line by line as it streams (a secret
		// split across deltas, or wrapped over lines, is held back until
		// it is whole; see secret.Stream), then escaped (termsafe escapes
		// each control character on its own, so no sequence survives).
		r.writeAnswer(r.answer.Write(ev.Text))
		r.midLine = true
	case agent.EventToolCall:
		if ev.ToolCall == nil {
			return
		}
		r.endLine()
		r.closeVerify()
		fmt.Fprintf(r.err, "→ %s %s\n", termsafe.Line(ev.ToolCall.Name), termsafe.Text(compactLine(r.ex.scrub(compactJSON(ev.ToolCall.Args)))))
	case agent.EventToolDecision:
		r.decision(ev.Decision)
	case agent.EventVerifyStarted:
		r.verifyStarted(ev.Verify)
	case agent.EventVerifyResult:
		r.verifyResult(ev.Verify)
	case agent.EventPlanUpdated:
		r.plan(ev.Plan)
	case agent.EventToolResult:
		if ev.ToolResult == nil || r.denied[ev.ToolResult.CallID] {
			return
		}
		prefix := "← "
		if ev.ToolResult.IsError {
			prefix = "← error: "
		}
		fmt.Fprintf(r.err, "%s%s\n", prefix, termsafe.Text(compactLine(r.ex.scrub(ev.ToolResult.Content))))
	}
}

// decision shows a policy or approver denial compactly on stderr:
// "✗ run_command denied: <why>". Allowed calls need no line (the call
// line shows them), and the harness's own refusals (an unknown tool,
// unusable arguments) are shown by their result, which says more.
func (r *textRenderer) decision(d *agent.Decision) {
	if d == nil || d.Action != "deny" || d.By == "harness" {
		return
	}
	if r.denied == nil {
		r.denied = map[string]bool{}
	}
	r.denied[d.CallID] = true
	r.endLine()
	fmt.Fprintf(r.err, "✗ %s\n", denialLine(r.ex, d))
}

// denialLine is "run_command denied: <why>" or "run_command denied by
// the user: <reason>": the policy's and the approver's reasons start with
// the tool's name, which the line already gives.
func denialLine(ex *explainer, d *agent.Decision) string {
	verdict, why := tui.DenialText(d.Tool, d.Reason)
	line := termsafe.Line(d.Tool) + " " + verdict
	if why != "" {
		line += ": " + termsafe.Text(compactLineMax(ex.scrub(why), maxDenialLine))
	}
	return line
}

// endLine ends a partial line of assistant text, so tool lines and the
// shell prompt start on a line of their own.
func (r *textRenderer) endLine() {
	if !r.midLine {
		return
	}
	r.writeAnswer(r.answer.Flush())
	if r.lastAnswer != "" && !strings.HasSuffix(r.lastAnswer, "\n") {
		io.WriteString(r.out, "\n")
	}
	r.midLine, r.lastAnswer = false, ""
}

// writeAnswer prints released answer text, remembering how it ended.
func (r *textRenderer) writeAnswer(s string) {
	if s == "" {
		return
	}
	io.WriteString(r.out, termsafe.Text(r.ex.scrub(s)))
	r.lastAnswer = s
}

func (r *textRenderer) finish(_ *agent.Outcome, _ string) {
	r.endLine()
	r.closeVerify()
}

// streamRenderer prints every agent event as one JSON line, with secrets
// removed from every field first (redact.Event: texts, messages, tool
// calls' arguments, results, reasons, errors), as the session store
// records it.
//
// Text deltas go through a secret.Stream per agent: a secret a model
// streams split across deltas is held back until it is whole and
// redacted, so a delta line may carry the text of several deltas, and
// comes before the next other event at the latest.
type streamRenderer struct {
	w    io.Writer
	ex   *explainer
	memo *redact.Memo
	// answers hold back streamed text, one per agent (by AgentPath);
	// order is the agents in the order they first streamed, lastDelta
	// each one's last text delta, the template of a flushed one.
	answers   map[string]*secret.Stream
	order     []string
	lastDelta map[string]agent.Event
	// sc adds the fields beyond the agent event (see streamLine); nil
	// adds none.
	sc *streamContext
	// held is an error event and what follows it (session.completed),
	// kept until finish gives the one-line message text output prints.
	held []agent.Event
}

func (r *streamRenderer) event(ev agent.Event) {
	if ev.Type == agent.EventTextDelta {
		a := r.answers[ev.AgentPath]
		if a == nil {
			if r.answers == nil {
				r.answers, r.lastDelta = map[string]*secret.Stream{}, map[string]agent.Event{}
			}
			a = &secret.Stream{}
			r.answers[ev.AgentPath], r.order = a, append(r.order, ev.AgentPath)
		}
		r.lastDelta[ev.AgentPath], ev.Text = ev, a.Write(ev.Text)
		if ev.Text == "" {
			return
		}
	} else {
		r.flushAnswers()
	}
	r.write(ev)
}

// flushAnswers writes the text each stream held back as one delta.
func (r *streamRenderer) flushAnswers() {
	for _, path := range r.order {
		if rest := r.answers[path].Flush(); rest != "" {
			ev := r.lastDelta[path]
			ev.Text = rest
			r.write(ev)
		}
	}
}

func (r *streamRenderer) write(ev agent.Event) {
	ev = r.memo.Event(ev)
	if ev.Err != "" {
		ev.Err = r.ex.scrub(ev.Err)
	}
	if ev.Type == agent.EventError && ev.AgentPath == "" || len(r.held) > 0 {
		r.held = append(r.held, ev)
		return
	}
	writeJSONLine(r.w, r.ex, r.sc.line(ev))
}

// finish writes the held lines: the error event's "error" is the line
// text output prints ("rein: …"), its "cause" the raw error.
func (r *streamRenderer) finish(_ *agent.Outcome, problem string) {
	r.flushAnswers()
	for _, ev := range r.held {
		l := r.sc.line(ev)
		if ev.Type == agent.EventError && ev.AgentPath == "" && problem != "" {
			l.Cause, l.Err = ev.Err, problem
		}
		writeJSONLine(r.w, r.ex, l)
	}
	r.held = nil
}

// writeJSONLine writes v as one line of JSON with the registered secrets
// scrubbed (the patterns, which could disturb JSON syntax, are applied to
// v's fields before: see streamRenderer). encoding/json escapes C0
// controls; termsafe.JSON escapes what it leaves raw (DEL, C1 controls,
// bidi and invisible characters), so the line is inert on a terminal.
func writeJSONLine(w io.Writer, ex *explainer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Every value rendered here is plain data; an encoding failure is
		// a bug worth surfacing in the stream itself.
		fmt.Fprintf(w, "{\"type\":\"error\",\"error\":%q}\n", err.Error())
		return
	}
	io.WriteString(w, termsafe.JSON(ex.scrubKnown(buf.String())))
}

// compactJSON re-encodes raw JSON without insignificant whitespace.
func compactJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// compactLine keeps the first line of s, cut to maxToolLine runes, with an
// ellipsis when anything was left out.
func compactLine(s string) string { return compactLineMax(s, maxToolLine) }

// compactLineMax is compactLine with a cap of maxRunes.
func compactLineMax(s string, maxRunes int) string {
	s = strings.TrimSpace(s)
	cut := false
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s, cut = strings.TrimSpace(s[:i]), true
	}
	if utf8.RuneCountInString(s) > maxRunes {
		s, cut = string([]rune(s)[:maxRunes]), true
	}
	if cut {
		s += " …"
	}
	return s
}

// terminalFile is in as a file when it is one (the console approver
// discards what was typed on it before each question when it is a
// terminal), else nil.
func terminalFile(in io.Reader) *os.File {
	f, _ := in.(*os.File)
	return f
}
