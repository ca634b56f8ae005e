package tui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/termsafe"
)

// Bounds of what the live area and the one-line summaries show.
const (
	maxReasoningLive = 3
	maxResultLines   = 8
	maxDetail        = 200
	// maxCallTailLines is how many lines of a running command's output show
	// under it; maxCallTailBytes how much of that output is kept for them.
	maxCallTailLines = 5
	maxCallTailBytes = 8 << 10
)

// event shows one agent event.
func (m *Model) event(msg EventMsg) {
	ev := msg.Event
	if ev.AgentPath != "" {
		m.childEvent(ev)
		return
	}
	if ev.Type != agent.EventUsage {
		m.retry = RetryMsg{} // the model answered
	}
	switch ev.Type {
	case agent.EventReasoningDelta:
		m.reasoning.WriteString(termsafe.Text(ev.Text))
	case agent.EventTextDelta:
		m.foldReasoning()
		m.md.write(ev.Text)
		m.printBlocks(m.md.done())
	case agent.EventToolCallStarted:
		if ev.ToolCall != nil {
			m.endAnswer()
			m.startCall(ev.ToolCall.ID, ev.ToolCall.Name, "")
		}
	case agent.EventToolCall:
		if ev.ToolCall != nil {
			m.endAnswer()
			m.startCall(ev.ToolCall.ID, ev.ToolCall.Name, callDetail(ev.ToolCall.Name, ev.ToolCall.Args))
		}
	case agent.EventToolDecision:
		m.decision(ev.Decision)
	case agent.EventToolResult:
		if ev.ToolResult != nil {
			m.result(ev, msg.Diff)
		}
	case agent.EventPlanUpdated:
		m.plan = ev.Plan
	case agent.EventVerifyStarted:
		if ev.Verify != nil {
			m.verify = "verifying: " + termsafe.Line(ev.Verify.Check)
		}
	case agent.EventVerifyResult:
		m.verifyResult(ev.Verify)
	case agent.EventCompaction:
		if ev.Compaction != nil {
			m.print(m.st.dim.Render(fmt.Sprintf("(context compacted: %d earlier messages summarized)", ev.Compaction.OmittedMessages+ev.Compaction.Summarized)))
		}
	case agent.EventSessionCompleted:
		m.endAnswer()
	}
}

// childEvent shows a sub-agent's tool activity, indented under its task.
func (m *Model) childEvent(ev agent.Event) {
	name := termsafe.Line(ev.Agent)
	if name == "" {
		name = "sub-agent"
	}
	indent := strings.Repeat("  ", max(ev.Depth, 1))
	switch {
	case ev.Type == agent.EventToolCall && ev.ToolCall != nil:
		m.print(m.st.dim.Render(fmt.Sprintf("%s%s → %s %s", indent, name, termsafe.Line(ev.ToolCall.Name), callDetail(ev.ToolCall.Name, ev.ToolCall.Args))))
	case ev.Type == agent.EventToolResult && ev.ToolResult != nil:
		m.print(m.st.dim.Render(indent + "  ← " + firstLine(ev.ToolResult.Content)))
	}
}

// startCall adds (or updates) a running call.
func (m *Model) startCall(id, name, detail string) {
	for _, c := range m.calls {
		if c.id == id {
			if detail != "" {
				c.detail = detail
				c.start = m.now() // the call runs now; streaming is over
			}
			return
		}
	}
	m.calls = append(m.calls, &runningCall{id: id, name: termsafe.Line(name), detail: detail, start: m.now()})
}

// toolOutput adds output to a running call's live tail. The text is
// escaped as it arrives (it is the command's, so anything may be in it);
// only the end is kept, cut at a line start.
func (m *Model) toolOutput(msg ToolOutputMsg) {
	for _, c := range m.calls {
		if c.id != msg.CallID {
			continue
		}
		tail := c.tail + termsafe.Escape(overwritten(msg.Text))
		if len(tail) > maxCallTailBytes {
			tail = tail[len(tail)-maxCallTailBytes:]
			if i := strings.IndexByte(tail, '\n'); i >= 0 {
				tail = tail[i+1:]
			}
			for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
				tail = tail[1:] // no half character at the cut
			}
		}
		c.tail = tail
		return
	}
}

// overwritten keeps of each line what a terminal would show after its
// carriage returns: a progress bar's last state, not all of them.
func overwritten(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// decision shows a denial, once: the dialog's own answer line is left
// out for a denial and the call's result (which repeats the reason) is
// not shown; the call line shows allowed calls.
func (m *Model) decision(d *agent.Decision) {
	if d == nil {
		return
	}
	if d.Action == "allow" {
		for _, c := range m.calls {
			if c.id == d.CallID {
				c.start = m.now() // approval time does not count
			}
		}
		return
	}
	if d.Action != "deny" || d.By == "harness" {
		return
	}
	head := "✗ " + termsafe.Line(d.Tool)
	for _, c := range m.calls {
		if c.id == d.CallID {
			c.denied = true
			if c.detail != "" {
				head += " " + c.detail
			}
		}
	}
	verdict, why := DenialText(d.Tool, d.Reason)
	line := m.st.bad.Render(head + " " + verdict)
	if why != "" {
		line += ": " + termsafe.Line(clipRunes(why, 400))
	}
	m.print(line)
}

// DenialText splits a denial's reason into the verdict and the why, so
// that a line naming the tool does not name it twice: "run_command is
// denied: rm -rf is never allowed" is ("denied", "rm -rf is never
// allowed"), "run_command was denied by the user: use make" is ("denied
// by the user", "use make").
func DenialText(tool, reason string) (verdict, why string) {
	if rest, ok := strings.CutPrefix(reason, tool+" was denied by the user"); ok {
		return "denied by the user", strings.TrimPrefix(rest, ": ")
	}
	return "denied", strings.TrimPrefix(reason, tool+" is denied: ")
}

// exitCode is the exit status in run_command's structured result, 0 when
// there is none.
func exitCode(name string, structured []byte) int {
	if name != "run_command" || len(structured) == 0 {
		return 0
	}
	var out struct {
		ExitCode int `json:"exit_code"`
	}
	if json.Unmarshal(structured, &out) != nil {
		return 0
	}
	return out.ExitCode
}

// result ends a call: one summary line (with the start of its output for
// a command, the colored diff for a file change); Ctrl-O shows all of
// the last result.
func (m *Model) result(ev agent.Event, diff string) {
	r := ev.ToolResult
	var call *runningCall
	for i, c := range m.calls {
		if c.id == r.CallID {
			call = c
			m.calls = append(m.calls[:i], m.calls[i+1:]...)
			break
		}
	}
	name, detail, took := termsafe.Line(r.Name), "", ""
	if call != nil {
		name, detail = call.name, call.detail
		took = " " + m.st.dim.Render("("+elapsed(m.now().Sub(call.start))+")")
	}
	content := termsafe.Escape(strings.TrimRight(r.Content, "\n"))
	m.lastResult = content
	if call != nil && call.denied {
		return // the denial's line said it
	}
	mark := m.st.ok.Render("●")
	if r.IsError || exitCode(r.Name, ev.ToolStructured) != 0 {
		mark = m.st.bad.Render("●")
	}
	head := mark + " " + m.st.bold.Render(name)
	if detail != "" {
		head += " " + detail
	}
	lines := strings.Split(content, "\n")
	var b strings.Builder
	b.WriteString(head + took + "\n  ⎿ " + clipRunes(lines[0], max(m.width-6, 20)))
	rest := lines[1:]
	if name == "run_command" || r.IsError {
		for i, l := range rest {
			if i == maxResultLines {
				break
			}
			b.WriteString("\n    " + m.st.dim.Render(clipRunes(l, max(m.width-6, 20))))
		}
		rest = rest[min(len(rest), maxResultLines):]
	}
	if len(rest) > 0 {
		b.WriteString("\n    " + m.st.dim.Render(fmt.Sprintf("… %d more lines (ctrl+o shows the whole result)", len(rest))))
	}
	if diff != "" {
		b.WriteString("\n" + m.st.colorDiff(termsafe.Escape(diff)))
	}
	m.print(b.String())
}

func (m *Model) verifyResult(v *agent.VerifyInfo) {
	m.verify = ""
	if v == nil {
		return
	}
	line := fmt.Sprintf("verify %s: exit %d (%s)", termsafe.Line(v.Check), v.ExitCode, elapsed(v.Duration))
	if v.Passed {
		m.print(m.st.ok.Render("✓ ") + line)
		return
	}
	if v.Err != "" {
		line += ": " + termsafe.Line(clipRunes(v.Err, 200))
	}
	m.print(m.st.bad.Render("✗ ") + line)
}

// notice prints a notice of the front end.
func (m *Model) notice(n NoticeMsg) {
	m.endAnswer()
	text := termsafe.Escape(strings.TrimRight(n.Text, "\n"))
	switch {
	case n.Kind == NoticeOutput && looksLikeDiff(text):
		text = m.st.colorDiff(text)
	case n.Kind == NoticeError:
		text = m.st.bad.Render(text)
	case n.Kind == NoticeInfo:
		text = m.st.dim.Render(text)
	}
	m.print(text)
}

// printBlocks prints finished markdown blocks, each after a blank line.
func (m *Model) printBlocks(blocks []string) {
	for _, b := range blocks {
		m.print("\n" + b)
	}
}

// endAnswer freezes the answer streamed so far (a tool call or a notice
// follows it).
func (m *Model) endAnswer() { m.printBlocks(m.md.flush()) }

// foldReasoning replaces the streamed reasoning with one line once the
// answer (or the turn's end) comes; Ctrl-T shows it.
func (m *Model) foldReasoning() {
	if m.folded || m.reasoning.Len() == 0 {
		return
	}
	m.folded = true
	m.lastReasoning = m.reasoning.String()
	n := strings.Count(strings.TrimRight(m.lastReasoning, "\n"), "\n") + 1
	lines := "1 line"
	if n != 1 {
		lines = strconv.Itoa(n) + " lines"
	}
	m.print(m.st.dim.Render("∴ thought for " + lines + " (ctrl+t shows)"))
	m.reasoning.Reset()
}

// liveArea is what changes while a turn runs: reasoning, the answer's
// unfinished block, the calls running, the plan, a spinner.
func (m *Model) liveArea() string {
	var parts []string
	if m.reasoning.Len() > 0 && !m.folded {
		parts = append(parts, m.st.dim.Render(tailLines(m.reasoning.String(), maxReasoningLive, m.width)))
	}
	if live := m.md.live(); live != "" {
		parts = append(parts, tailLines(live, m.liveBudget(), 0))
	}
	for _, c := range m.calls {
		line := fmt.Sprintf("%s %s %s %s", m.spin.View(), m.st.bold.Render(c.name), c.detail, m.st.dim.Render(elapsed(m.now().Sub(c.start))))
		parts = append(parts, clipLine(line, m.width))
		if c.tail != "" {
			parts = append(parts, m.callTail(c.tail))
		}
	}
	if len(m.plan) > 0 {
		parts = append(parts, m.planText())
	}
	if m.verify != "" {
		parts = append(parts, m.spin.View()+" "+m.verify)
	}
	if m.busy && len(m.calls) == 0 && m.verify == "" {
		line := "working " + elapsed(m.now().Sub(m.turnStart))
		if m.retry.Reason != "" {
			line += " · " + termsafe.Line(m.retry.Reason) + ", retrying in " + waitText(m.retry.Until.Sub(m.now()))
		}
		parts = append(parts, m.spin.View()+" "+m.st.dim.Render(line+" · esc cancels"))
	}
	return strings.Join(parts, "\n")
}

// waitText is a wait left, in whole seconds rounded up ("3 s"); "now"
// once it is over.
func waitText(d time.Duration) string {
	if d <= 0 {
		return "now"
	}
	return strconv.Itoa(int((d+time.Second-1)/time.Second)) + " s"
}

// callTail is a running call's last output lines, indented and dimmed
// under it, each cut to the width.
func (m *Model) callTail(tail string) string {
	lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
	if len(lines) > maxCallTailLines {
		lines = lines[len(lines)-maxCallTailLines:]
	}
	for i, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ") // a tab's width is the terminal's guess
		lines[i] = m.st.dim.Render("    " + clipRunes(l, max(m.width-6, 20)))
	}
	return strings.Join(lines, "\n")
}

// liveBudget is how many lines the answer's live block may take: the
// rest of the screen holds the input and status.
func (m *Model) liveBudget() int { return max(m.height-m.input.Height()-6, 3) }

// planText is the plan as a checklist.
func (m *Model) planText() string {
	var b strings.Builder
	b.WriteString(m.st.bold.Render("Plan"))
	for _, it := range m.plan {
		box := "☐"
		text := termsafe.Line(it.Content)
		switch it.Status {
		case agent.PlanCompleted:
			box = m.st.ok.Render("☑")
			text = m.st.dim.Render(text)
		case agent.PlanInProgress:
			box = m.st.accent.Render("▶")
			if it.ActiveForm != "" {
				text = termsafe.Line(it.ActiveForm)
			}
		}
		b.WriteString("\n  " + box + " " + clipRunes(text, max(m.width-6, 20)))
	}
	return b.String()
}

// callDetail is the short description of a call: a command, a path.
func callDetail(name string, args []byte) string {
	var fields map[string]any
	if json.Unmarshal(args, &fields) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "pattern", "url", "query", "description"} {
		if s, ok := fields[k].(string); ok && s != "" {
			return termsafe.Line(clipRunes(s, maxDetail))
		}
	}
	_ = name
	return ""
}

// elapsed formats a duration the way the activity lines show it.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " …"
	}
	return termsafe.Line(clipRunes(s, 160))
}

// clipRunes cuts s to n runes with an ellipsis.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n-1, 0)]) + "…"
}

// clipLine cuts styled text to the terminal's width.
func clipLine(s string, width int) string {
	if width <= 0 {
		return s
	}
	return truncateANSI(s, width)
}

// tailLines keeps the last n lines of s, each cut to width (0: not cut).
func tailLines(s string, n, width int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if width > 0 {
		for i, l := range lines {
			lines[i] = truncateANSI(l, width)
		}
	}
	return strings.Join(lines, "\n")
}
