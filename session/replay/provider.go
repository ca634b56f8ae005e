package replay

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/reinharness/rein/model"
)

// errSegmentEnd ends a replayed run where the recorded run ended: the
// recording holds no further answer for it.
var errSegmentEnd = errors.New("replay: the recorded run ends here")

// recordedProvider is a model.Provider that answers each call with the
// next recorded assistant message, whatever the request holds: the model
// is taken out of the experiment, so only the tools can diverge.
type recordedProvider struct {
	mu   sync.Mutex
	msgs []model.Message
	next int
	// served counts the answers given, for the replayer (nil: none).
	served *atomic.Int64
}

func (p *recordedProvider) take() (model.Message, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= len(p.msgs) {
		return model.Message{}, false
	}
	m := p.msgs[p.next]
	p.next++
	if p.served != nil {
		p.served.Add(1)
	}
	return m, true
}

// remaining reports the recorded answers not played yet.
func (p *recordedProvider) remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.msgs) - p.next
}

// Stream implements model.Provider.
func (p *recordedProvider) Stream(ctx context.Context, _ *model.Request) iter.Seq2[model.Event, error] {
	return func(yield func(model.Event, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(model.Event{}, err)
			return
		}
		msg, ok := p.take()
		if !ok {
			yield(model.Event{}, errSegmentEnd)
			return
		}
		for _, ev := range messageEvents(msg) {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// messageEvents turns a recorded message back into the stream a provider
// would have yielded for it, so that model.Builder rebuilds the same
// message.
func messageEvents(msg model.Message) []model.Event {
	evs := make([]model.Event, 0, len(msg.Parts)+1)
	stop := model.StopEndTurn
	for _, p := range msg.Parts {
		switch p.Kind {
		case model.PartText:
			evs = append(evs, model.Event{Kind: model.EventTextDelta, Text: p.Text})
		case model.PartReasoning:
			if p.Text != "" {
				evs = append(evs, model.Event{Kind: model.EventReasoningDelta, Text: p.Text})
			}
			evs = append(evs, model.Event{Kind: model.EventReasoningEnd, Signature: p.Signature, Redacted: p.Redacted})
		case model.PartToolCall:
			if p.ToolCall != nil {
				c := *p.ToolCall
				evs = append(evs, model.Event{Kind: model.EventToolCall, ToolCall: &c})
				stop = model.StopToolUse
			}
		}
	}
	return append(evs, model.Event{Kind: model.EventStop, StopReason: stop})
}
