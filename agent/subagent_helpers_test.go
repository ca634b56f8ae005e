package agent

import (
	"context"
	"iter"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// routed is a provider whose answer is a function of the request, so the
// parent and its concurrent sub-agents can share it without taking each
// other's scripted turns. It counts the model calls it answered.
type routed struct {
	fn    func(req *model.Request) modeltest.Turn
	calls atomic.Int64
}

func (p *routed) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Event, error] {
	p.calls.Add(1)
	return modeltest.NewScripted(p.fn(req)).Stream(ctx, req)
}

// who names the agent a request comes from by the marker its system
// prompt starts with ("AGENT:name"), "root" when there is none.
func who(req *model.Request) string {
	if rest, ok := strings.CutPrefix(req.System, "AGENT:"); ok {
		name, _, _ := strings.Cut(rest, "\n")
		return strings.TrimSpace(name)
	}
	if strings.HasPrefix(req.System, DefaultSubagentSystem) {
		return GeneralAgent
	}
	return "root"
}

// turnOf is how many assistant messages the request's history holds.
func turnOf(req *model.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == model.RoleAssistant {
			n++
		}
	}
	return n
}

// lastResults returns the results of the request's last tool message.
func lastResults(req *model.Request) []model.ToolResult {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == model.RoleTool {
			return req.Messages[i].ToolResultParts()
		}
	}
	return nil
}

// snapshot returns the events j recorded so far.
func (j *memJournal) snapshot() []Event {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Event(nil), j.events...)
}

// steerLog records the steering points it was consulted at.
type steerLog struct {
	mu     sync.Mutex
	points []SteerEvent
}

func (s *steerLog) Steer(_ context.Context, p SteerPoint) SteerVerdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.points = append(s.points, p.Event)
	return SteerVerdict{}
}

func (s *steerLog) count(e SteerEvent) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.points {
		if p == e {
			n++
		}
	}
	return n
}
