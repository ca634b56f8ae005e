package agent

import (
	"errors"
	"fmt"
)

// The delivery of a run's events: stamped, journaled, shown to the hooks
// and yielded to the consumer, in that order.

// emitMessage reports the message just appended to the conversation.
func (r *run) emitMessage() error {
	return r.emit(Event{Type: EventMessage, Message: &r.c.msgs[len(r.c.msgs)-1]})
}

// emit stamps ev and hands it to the journal, the hooks and the consumer,
// in that order. It returns a wrapped ErrJournal when the journal refused
// it and errStopped when the consumer stopped iterating; either ends the
// run.
func (r *run) emit(ev Event) error {
	return r.deliver(ev, nil)
}

func (r *run) deliver(ev Event, runErr error) error {
	return r.deliverEvent(r.stamp(ev), runErr, true)
}

// stamp sets the fields every event of the run carries.
func (r *run) stamp(ev Event) Event {
	ev.RunID = r.c.id
	ev.Step = r.step
	ev.Time = r.a.cfg.Clock.Now()
	r.stampLink(&ev)
	return ev
}

// journal appends ev to the Journal, if any. It may be called from any
// goroutine.
func (r *run) journal(ev Event) error {
	j := r.a.cfg.Journal
	if j == nil {
		return nil
	}
	r.journalMu.Lock()
	defer r.journalMu.Unlock()
	if r.journalDown {
		return nil
	}
	if err := j.Append(r.recordCtx, ev); err != nil {
		r.journalDown = true
		return fmt.Errorf("agent: %w for a %s event: %v; the run stopped because its record would be incomplete — fix the journal's storage and resume the session", ErrJournal, ev.Type, err)
	}
	return nil
}

// deliverEvent hands a stamped event to the journal (unless it was
// journaled already), the hooks and the consumer.
func (r *run) deliverEvent(ev Event, runErr error, toJournal bool) error {
	if r.stopped {
		return errStopped
	}
	if toJournal {
		if err := r.journal(ev); err != nil {
			return err
		}
	}
	for _, h := range r.a.cfg.Hooks {
		r.callHook(h, ev)
	}
	if !r.yield(ev, runErr) {
		r.stopped = true
		r.cancel(errStopped)
		return errStopped
	}
	return nil
}

// callHook runs one hook, recovering and counting a panic.
func (r *run) callHook(h Hook, ev Event) {
	defer func() {
		if recover() != nil {
			r.a.hookPanics.Add(1)
		}
	}()
	h.OnEvent(r.recordCtx, ev)
}

// end closes the run: an error event when err is set, then session.completed
// with the Outcome, yielded together with err. After the consumer stopped
// nothing is yielded. When the journal refuses one of these closing events
// the run is reported Failed with both errors, this time bypassing the
// journal: the caller must learn how the run ended.
func (r *run) end(kind OutcomeKind, err error) {
	if r.stopped {
		return
	}
	r.sessionEnd(kind)
	r.foldChildUsage()
	r.out.Kind, r.out.Steps, r.out.Err = kind, r.step, r.outErr
	if err != nil {
		r.out.Err = err.Error()
		if e := r.emit(Event{Type: EventError, Err: r.out.Err}); e != nil {
			if !r.stopped {
				r.end(Failed, errors.Join(err, e))
			}
			return
		}
	}
	out := r.out
	if e := r.deliver(Event{Type: EventSessionCompleted, Outcome: &out}, err); e != nil && !r.stopped {
		r.end(Failed, errors.Join(err, e))
	}
}
