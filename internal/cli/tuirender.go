package cli

import (
	"fmt"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/workspace"
)

// tuiRenderer shows one turn in the terminal UI. Like textRenderer it
// redacts secrets from everything model- or tool-controlled before it
// leaves rein's hands (the UI escapes control characters); it adds the
// unified diff of the files a call changed to the call's result, read
// from the workspace's journal.
type tuiRenderer struct {
	s *chatSession
	f *tuiFront
	// names are the tools of the turn's calls by id (results do not
	// always carry the name), keys their idempotency keys, which the
	// workspace journal tags their changes with.
	names, keys map[string]string
	// answer holds back the streamed answer (see secret.Stream);
	// lastDelta is the last text delta, the template of a flushed one.
	answer    secret.Stream
	lastDelta agent.Event
}

// fileTools are the tools whose results show the diff of their changes.
var fileTools = map[string]bool{"write_file": true, "edit_file": true, "apply_patch": true}

func (r *tuiRenderer) event(ev agent.Event) {
	ex := r.s.ex
	if ev.Type == agent.EventTextDelta && ev.AgentPath == "" {
		// Held back until a secret split across deltas is whole (see
		// secret.Stream).
		r.lastDelta, ev.Text = ev, r.answer.Write(ev.Text)
		if ev.Text == "" {
			return
		}
	} else {
		r.flushAnswer()
	}
	ev.Text = ex.scrub(ev.Text)
	if ev.ToolCall != nil {
		c := *ev.ToolCall
		c.Args = []byte(ex.scrub(string(c.Args)))
		ev.ToolCall = &c
		if r.names == nil {
			r.names, r.keys = map[string]string{}, map[string]string{}
		}
		r.names[c.ID] = c.Name
		if ev.IdempotencyKey != "" {
			r.keys[c.ID] = ev.IdempotencyKey
		}
	}
	var diff string
	if ev.ToolResult != nil {
		res := *ev.ToolResult
		res.Content = ex.scrub(res.Content)
		ev.ToolResult = &res
		if res.Name == "" {
			res.Name = r.names[res.CallID]
		}
		if fileTools[res.Name] && ev.AgentPath == "" {
			diff = ex.scrub(callDiff(r.s.ws, r.keys[res.CallID]))
		}
	}
	if ev.Decision != nil {
		d := *ev.Decision
		d.Reason = ex.scrub(d.Reason)
		ev.Decision = &d
	}
	if ev.Type == agent.EventUsage && ev.Usage != nil && ev.AgentPath == "" {
		r.s.lastInput = ev.Usage.InputTokens
	}
	r.f.send(tui.EventMsg{Event: ev, Diff: diff})
}

func (r *tuiRenderer) finish(*agent.Outcome, string) { r.flushAnswer() }

// flushAnswer sends the answer text the stream held back.
func (r *tuiRenderer) flushAnswer() {
	if rest := r.answer.Flush(); rest != "" {
		ev := r.lastDelta
		ev.Text = r.s.ex.scrub(rest)
		r.f.send(tui.EventMsg{Event: ev})
	}
}

// maxCallDiff bounds the diff shown under one call's result.
const maxCallDiff = 200

// callDiff is the unified diff of the changes of the call with
// idempotency key id, from the journal's before- and after-images.
func callDiff(ws *workspace.Workspace, id string) string {
	if id == "" {
		return ""
	}
	var b strings.Builder
	for _, c := range ws.Changes() {
		if c.CallID != id {
			continue
		}
		if (c.Before.Exists && !c.Before.Stored) || (c.After.Exists && !c.After.Stored) {
			fmt.Fprintf(&b, "(%s: %s, contents too large to show)\n", c.Path, c.Kind())
			continue
		}
		oldName, newName := "a/"+c.Path, "b/"+c.Path
		if !c.Before.Exists {
			oldName = "/dev/null"
		}
		if !c.After.Exists {
			newName = "/dev/null"
		}
		b.WriteString(workspace.UnifiedDiff(oldName, newName, c.Before.Data, c.After.Data))
	}
	lines := strings.SplitAfter(b.String(), "\n")
	if len(lines) > maxCallDiff {
		return strings.Join(lines[:maxCallDiff], "") + fmt.Sprintf("… %d more diff lines (/diff shows all)\n", len(lines)-maxCallDiff)
	}
	return b.String()
}
