package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/host"
)

// transcriptTree prints a session's events with each task call's
// sub-agent nested under it, however the concurrent children's events
// interleave in the store.
type transcriptTree struct {
	root []agent.Event
	// byPath holds each sub-agent's events in order; kids maps a parent
	// path and task call id to the sub-agent paths that call started.
	byPath map[string][]agent.Event
	kids   map[string][]string
}

func newTranscriptTree() *transcriptTree {
	return &transcriptTree{byPath: map[string][]agent.Event{}, kids: map[string][]string{}}
}

func (t *transcriptTree) add(ev agent.Event) {
	if ev.AgentPath == "" {
		t.root = append(t.root, ev)
		return
	}
	if _, seen := t.byPath[ev.AgentPath]; !seen {
		parent, callID := splitAgentPath(ev.AgentPath)
		k := parent + "\x00" + callID
		t.kids[k] = append(t.kids[k], ev.AgentPath)
	}
	t.byPath[ev.AgentPath] = append(t.byPath[ev.AgentPath], ev)
}

// splitAgentPath returns the parent's path and the task call id of the
// last level of path ("task:c1/a/task:c2/b" → "task:c1/a", "c2").
func splitAgentPath(path string) (parent, callID string) {
	segs := strings.Split(path, "/")
	if len(segs) < 2 {
		return "", ""
	}
	_, callID, _ = strings.Cut(segs[len(segs)-2], ":")
	return strings.Join(segs[:len(segs)-2], "/"), callID
}

// print writes the root's events, and after each task call the events of
// the sub-agents it started.
func (t *transcriptTree) print(w io.Writer) {
	t.printEvents(w, "", t.root)
}

func (t *transcriptTree) printEvents(w io.Writer, path string, evs []agent.Event) {
	depth := strings.Count(path, "/")/2 + 1
	if path == "" {
		depth = 0
	}
	for _, ev := range evs {
		if depth == 0 {
			showEvent(w, ev)
		} else {
			showChildEvent(w, ev, depth)
		}
		if ev.Type == agent.EventToolCall && ev.ToolCall != nil && ev.ToolCall.Name == agent.TaskToolName {
			for _, p := range t.kids[path+"\x00"+ev.ToolCall.ID] {
				t.printEvents(w, p, t.byPath[p])
			}
		}
	}
}

// showChildEvent prints a sub-agent's tool activity and outcome, indented
// by its depth.
func showChildEvent(w io.Writer, ev agent.Event, depth int) {
	pad := strings.Repeat("    ", depth) + "[" + ev.Agent + "] "
	switch ev.Type {
	case agent.EventToolCall:
		if c := ev.ToolCall; c != nil {
			fmt.Fprintf(w, "%s→ %s %s\n", pad, c.Name, host.ClipRunes(string(c.Args), maxToolLine))
		}
	case agent.EventToolDecision:
		if d := ev.Decision; d != nil && d.Action != "allow" {
			fmt.Fprintf(w, "%s  %s by %s: %s\n", pad, d.Action, orDash(d.By), host.ClipRunes(d.Reason, maxDenialLine))
		}
	case agent.EventToolResult:
		if r := ev.ToolResult; r != nil {
			mark := "←"
			if r.IsError {
				mark = "✗"
			}
			fmt.Fprintf(w, "%s%s %s\n", pad, mark, host.ClipRunes(strings.Join(strings.Fields(r.Content), " "), maxToolLine))
		}
	case agent.EventSessionCompleted:
		if o := ev.Outcome; o != nil {
			fmt.Fprintf(w, "%s[sub-agent %s after %s, %s]\n", pad, o.Kind, plural(o.Steps, "model call"), plural(o.ToolCalls, "tool call"))
		}
	}
}
