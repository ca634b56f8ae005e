package loop

import (
	"encoding/json"
	"testing"
)

// The floor: the least a loop can do — append the model's message, run
// each requested tool, append its result, call again — written by hand
// with no framework, so the table shows what the frameworks add.

type floorCall struct{ id, name, args string }

type floorMsg struct {
	role, text string
	calls      []floorCall
	callID     string
}

type floorRunner struct {
	s       *script
	history []floorMsg
	msgs    []floorMsg
}

func newFloor(_ testing.TB, s *script, history int) loopRunner {
	h := make([]floorMsg, history)
	for i := range h {
		h[i] = floorMsg{role: []string{"user", "assistant"}[i%2], text: historyText(i)}
	}
	return &floorRunner{s: s, history: h}
}

func (r *floorRunner) prepare(testing.TB) {
	r.msgs = append(make([]floorMsg, 0, len(r.history)+1), r.history...)
}

// model is the scripted model on the floor's own types.
func (r *floorRunner) model(msgs []floorMsg) floorMsg {
	wantTool, id, args := r.s.next(len(msgs))
	if !wantTool {
		return floorMsg{role: "assistant", text: finalText}
	}
	return floorMsg{role: "assistant", calls: []floorCall{{id, "noop", args}}}
}

func (r *floorRunner) noop(args string) string {
	var in noopIn
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "error: " + err.Error()
	}
	r.s.toolRuns++
	return "ok"
}

func (r *floorRunner) run(tb testing.TB) string {
	r.msgs = append(r.msgs, floorMsg{role: "user", text: "go"})
	for range r.s.k + 2 {
		m := r.model(r.msgs)
		r.msgs = append(r.msgs, m)
		if len(m.calls) == 0 {
			return m.text
		}
		for _, c := range m.calls {
			r.msgs = append(r.msgs, floorMsg{role: "tool", callID: c.id, text: r.noop(c.args)})
		}
	}
	tb.Fatal("floor: step limit")
	return ""
}
