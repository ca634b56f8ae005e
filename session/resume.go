package session

import (
	"context"
	"errors"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// Results given to calls a crash left without one. They say what the
// harness knows, so the model can decide what to do, and nothing re-runs
// behind its back.
const (
	// InterruptedRunning answers a call that was journaled as started:
	// it may have run partly or fully, and what it left running was killed
	// (by the sandbox's supervisor when rein died, else by the sweep of
	// package internal/procreg before the session resumes).
	InterruptedRunning = "interrupted: rein stopped while this call was running, so it may have run partly or wholly; its remaining processes were killed — check its effects before retrying"
	// InterruptedNotRun answers a call that provably never ran: it was
	// never started, or the policy denied it.
	InterruptedNotRun = "interrupted: rein stopped before this call ran; it did not run"
)

// Resumed is a session ready to continue.
type Resumed struct {
	// Conversation holds the session's messages, including the results
	// Resume added, and the model's plan; its id is the session id.
	Conversation *agent.Conversation
	// Journal appends to the session; pass it as agent.Config.Journal
	// and close it when done.
	Journal Journal
	// Snapshot is the session as loaded, before Resume answered any call.
	Snapshot *Snapshot
	// Interrupted lists the calls answered with InterruptedRunning: they
	// may have had effects the model does not know about.
	Interrupted []model.ToolCall
	// Recovered lists the calls whose recorded result Resume put into
	// the conversation (the crash came after the result, before its
	// message).
	Recovered []model.ToolCall
}

// AwaitsModel reports whether the conversation ends waiting for the
// model's answer (after a user message or tool results): running the
// agent with an empty input continues it.
func (r *Resumed) AwaitsModel() bool {
	msgs := r.Conversation.Messages()
	if len(msgs) == 0 {
		return false
	}
	role := msgs[len(msgs)-1].Role
	return role == model.RoleUser || role == model.RoleTool
}

// Resume loads session id and prepares it to continue. Every call of the
// last assistant message that has no result in the conversation gets one,
// in call order: its recorded result when the crash came after the result
// was committed, InterruptedRunning when it was started, and
// InterruptedNotRun when it never was or the policy denied it. The
// results are journaled (tool.result events and one tool message) before
// Resume returns, so a second crash finds them. Nothing is re-run.
//
// now stamps the added events; nil means time.Now.
func Resume(ctx context.Context, store Store, id string, now func() time.Time) (*Resumed, error) {
	if now == nil {
		now = time.Now
	}
	snap, err := store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	j, err := store.Journal(ctx, snap.Info.ID)
	if err != nil {
		return nil, err
	}
	r := &Resumed{Journal: j, Snapshot: snap}
	msgs := snap.Messages
	if len(snap.Unanswered) > 0 {
		msg, err := r.answer(ctx, now)
		if err != nil {
			return nil, errors.Join(err, j.Close())
		}
		msgs = append(msgs[:len(msgs):len(msgs)], msg)
	}
	r.Conversation = agent.NewConversation(snap.Info.ID, msgs...)
	r.Conversation.SetPlan(snap.Plan)
	return r, nil
}

// answer builds and journals the tool message for the unanswered calls.
func (r *Resumed) answer(ctx context.Context, now func() time.Time) (model.Message, error) {
	snap := r.Snapshot
	results := make([]model.ToolResult, 0, len(snap.Unanswered))
	for _, c := range snap.Unanswered {
		res, recorded := snap.Results[c.ID]
		switch {
		case recorded:
			r.Recovered = append(r.Recovered, c)
		case snap.Started[c.ID] && !snap.Denied[c.ID]:
			res = interruptedResult(c, snap.Children[c.ID])
			r.Interrupted = append(r.Interrupted, c)
		default:
			res = model.ToolResult{CallID: c.ID, Name: c.Name, Content: InterruptedNotRun, IsError: true}
		}
		results = append(results, res)
	}
	msg := model.ToolResults(results...)
	id := snap.Info.ID
	for i := range results {
		if _, recorded := snap.Results[results[i].CallID]; recorded {
			continue // its tool.result is in the journal already
		}
		ev := agent.Event{Type: agent.EventToolResult, RunID: id, Time: now(), ToolResult: &results[i]}
		if err := r.Journal.Append(ctx, ev); err != nil {
			return model.Message{}, err
		}
	}
	ev := agent.Event{Type: agent.EventMessage, RunID: id, Time: now(), Message: &msg}
	if err := r.Journal.Append(ctx, ev); err != nil {
		return model.Message{}, err
	}
	return msg, nil
}
