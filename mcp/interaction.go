package mcp

//lint:file-ignore SA1019 sampling serves servers of the 2025 revisions, which rein supports.

import (
	"context"
	"encoding/json"
	"errors"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Interaction answers what a server asks of the user while it works:
// elicitation (a question or a form) and sampling (a model completion).
// In the 2026-07-28 era these arrive as input_required results of a call
// and the SDK retries the call with the answers; in earlier eras they are
// requests from the server. Either way they reach the Interaction.
//
// Methods are called on the SDK's goroutines, possibly concurrently for
// different calls, while the tool call that caused them waits; they must
// honour ctx, which ends with that call.
type Interaction interface {
	// Elicit asks the user. Returning Action "decline" or "cancel" is an
	// answer; an error fails the server's request.
	Elicit(ctx context.Context, req *Elicitation) (*ElicitationResponse, error)
	// Sample asks the harness's model for a completion. ErrDeclined
	// refuses politely (the server sees "user rejected").
	Sample(ctx context.Context, req *SamplingRequest) (*SamplingResponse, error)
}

// Elicitation is a server's question for the user.
type Elicitation struct {
	Server  string
	Message string
	// Mode is "form" (answer the Schema's fields) or "url" (open URL).
	Mode string
	// Schema is the flat JSON Schema object of the form, in form mode.
	Schema json.RawMessage
	URL    string
	ID     string
}

// ElicitationResponse is the user's answer. Action is "accept" (with
// Content in form mode), "decline" or "cancel".
type ElicitationResponse struct {
	Action  string
	Content map[string]any
}

// ErrDeclined is returned by an Interaction that refuses a request.
var ErrDeclined = errors.New("declined by the user")

// Decline is the Interaction of headless runs: nobody can answer, so every
// elicitation is declined and every sampling request refused.
type Decline struct{}

// Elicit implements Interaction.
func (Decline) Elicit(context.Context, *Elicitation) (*ElicitationResponse, error) {
	return &ElicitationResponse{Action: "decline"}, nil
}

// Sample implements Interaction.
func (Decline) Sample(context.Context, *SamplingRequest) (*SamplingResponse, error) {
	return nil, ErrDeclined
}

// codeUserRejected is the JSON-RPC error code MCP uses for a sampling
// request the user rejected.
const codeUserRejected = -1

// elicitHandler adapts an Interaction to the SDK.
func elicitHandler(server string, in Interaction) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		p := req.Params
		e := &Elicitation{Server: server, Message: printable(p.Message), Mode: p.Mode, URL: p.URL, ID: p.ElicitationID}
		if e.Mode == "" {
			e.Mode = "form"
			if p.URL != "" {
				e.Mode = "url"
			}
		}
		if p.RequestedSchema != nil {
			if data, err := json.Marshal(p.RequestedSchema); err == nil {
				e.Schema = data
			}
		}
		resp, err := in.Elicit(ctx, e)
		if err != nil {
			return nil, err
		}
		if resp == nil {
			return &sdk.ElicitResult{Action: "cancel"}, nil
		}
		res := &sdk.ElicitResult{Action: resp.Action}
		if resp.Action == "accept" {
			res.Content = resp.Content
			if res.Content == nil {
				res.Content = map[string]any{}
			}
		}
		return res, nil
	}
}
