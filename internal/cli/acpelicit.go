package cli

import (
	"context"
	"net/url"

	"github.com/reinharness/rein/internal/acp"
	"github.com/reinharness/rein/mcp"
)

// acpInteraction puts an MCP server's elicitation to the editor's user
// (elicitation/create) when the editor offers the mode, form or URL;
// otherwise, and for sampling, it answers as a headless run does. The
// editor shows a URL and lets its user open it: rein never opens one.
type acpInteraction struct {
	*headlessInteraction
	sess *acpSession
}

// Elicit implements mcp.Interaction.
func (ai *acpInteraction) Elicit(ctx context.Context, req *mcp.Elicitation) (*mcp.ElicitationResponse, error) {
	srv := ai.sess.srv
	srv.mu.Lock()
	caps := srv.client.Elicitation
	srv.mu.Unlock()
	ai.sess.mu.Lock()
	id := ai.sess.id // set once the session is open; an earlier question is declined
	ai.sess.mu.Unlock()
	p := acp.CreateElicitationParams{SessionID: id, Mode: req.Mode, Message: clipText(req.Message, 2000)}
	switch {
	case caps == nil || id == "":
		return ai.headlessInteraction.Elicit(ctx, req)
	case req.Mode == "url" && caps.URL != nil:
		if u, err := url.Parse(req.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return &mcp.ElicitationResponse{Action: "decline"}, nil // only web addresses reach the editor
		}
		p.URL, p.ElicitationID = req.URL, req.ID
	case req.Mode != "url" && caps.Form != nil:
		p.Mode, p.RequestedSchema = "form", req.Schema
	default:
		return ai.headlessInteraction.Elicit(ctx, req)
	}
	var res acp.CreateElicitationResult
	if err := srv.conn.Call(ctx, acp.MethodCreateElicitation, p, &res); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &mcp.ElicitationResponse{Action: "decline"}, nil // an answer we cannot read declines
	}
	switch res.Action {
	case "accept":
		if p.Mode == "url" {
			return &mcp.ElicitationResponse{Action: "accept"}, nil
		}
		return &mcp.ElicitationResponse{Action: "accept", Content: res.Content}, nil
	case "cancel":
		return &mcp.ElicitationResponse{Action: "cancel"}, nil
	}
	return &mcp.ElicitationResponse{Action: "decline"}, nil
}
