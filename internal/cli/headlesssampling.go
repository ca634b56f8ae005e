package cli

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/policy"
)

// headlessInteraction answers MCP servers where nobody can be asked (rein
// run, rein acp's servers' questions, mcp serve): elicitations are
// declined, and so is sampling, except where the policy allows it (a
// server of the user's own configuration whose sampling setting is
// "allow", or a rule): the user answered in advance, so rein's model runs
// the request, with a line on stderr so that the spending is never
// silent.
type headlessInteraction struct {
	mcp.Decline
	out     io.Writer
	sampler atomic.Pointer[sampler]
}

// useModel lets allowed sampling requests run on the agent's provider.
func (h *headlessInteraction) useModel(s *sampler) { h.sampler.Store(s) }

// Sample implements mcp.Interaction.
func (h *headlessInteraction) Sample(ctx context.Context, req *mcp.SamplingRequest) (*mcp.SamplingResponse, error) {
	s := h.sampler.Load()
	if s == nil {
		return nil, mcp.ErrDeclined
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("the sampling request has no messages")
	}
	d := s.decide(req)
	noteSamplingDecision(h.out, req, s, d)
	if d.Action != policy.Allow {
		return nil, mcp.ErrDeclined // an ask: nobody can answer
	}
	return s.complete(ctx, req)
}
