package main

//lint:file-ignore SA1019 the conformance scenarios exercise roots, sampling and logging of the 2025 revisions.

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
)

// The multi-round-trip tools (SEP-2322, the 2026-07-28 era): a call that
// needs the client's input answers with inputRequests, and the client
// calls again with inputResponses (and the requestState it was given).
// The server keeps nothing between rounds; what it must remember travels
// in requestState, signed by mcpserver.StateSigner so a client cannot
// forge it, keep it past its expiry or move it onto another call.

// open verifies a retry's requestState (mcpserver.StateSigner: signed,
// bound to this tool and these arguments, unexpired) and checks that it
// is the round's: a state must be one issued for purpose.
func (f *fixture) open(req *sdk.CallToolRequest) (string, error) {
	data, err := f.state.Open(req)
	if err != nil {
		return "", mcpserver.StateError(err)
	}
	return string(data), nil
}

// ask answers with input requests and a state carrying payload.
func (f *fixture) ask(req *sdk.CallToolRequest, requests sdk.InputRequestMap, payload string) (*sdk.CallToolResult, error) {
	return f.state.Ask(req, requests, []byte(payload))
}

// invalidState refuses a state that verified but is not this round's.
func invalidState(why string) error {
	return mcpserver.StateError(fmt.Errorf("%w: %s", mcpserver.ErrRequestState, why))
}

func (f *fixture) inputRequiredTools() []mcpserver.NativeTool {
	return []mcpserver.NativeTool{
		native("test_input_required_result_elicitation", "MRTR (SEP-2322): asks for the caller's name with an elicitation input request", askName),
		native("test_input_required_result_sampling", "MRTR (SEP-2322): asks for an LLM completion with a sampling input request", askSampling),
		native("test_input_required_result_list_roots", "MRTR (SEP-2322): asks for the client's roots with a roots/list input request", askRoots),
		native("test_input_required_result_request_state", "MRTR (SEP-2322): round-trips an integrity-protected requestState beside an elicitation", f.askConfirm("request_state")),
		native("test_input_required_result_tampered_state", "MRTR (SEP-2322): rejects a retry whose requestState fails its integrity check", f.askConfirm("tampered_state")),
		native("test_input_required_result_multiple_inputs", "MRTR (SEP-2322): asks for elicitation, sampling and roots input in one round", f.askAll),
		native("test_input_required_result_multi_round", "MRTR (SEP-2322): two elicitation rounds with evolving requestState before completing", f.multiRound),
		native("test_input_required_result_capabilities", "MRTR (SEP-2322): asks only for input the client's declared capabilities cover", askPerCapabilities),
	}
}

// accepted returns the content of an accepted elicitation response, or nil.
func accepted(responses sdk.InputResponseMap, key string) map[string]any {
	res, ok := responses[key].(*sdk.ElicitResult)
	if !ok || res == nil || res.Action != "accept" {
		return nil
	}
	return res.Content
}

// sampled returns the text of a sampling response.
func sampled(responses sdk.InputResponseMap, key string) (string, bool) {
	res, ok := responses[key].(*sdk.CreateMessageWithToolsResult)
	if !ok || res == nil {
		return "", false
	}
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			return tc.Text, true
		}
	}
	return "(non-text response)", true
}

func stringSchema(field string) *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{field: {Type: "string"}},
		Required:   []string{field},
	}
}

func nameRequest(message string) *sdk.ElicitParams {
	return &sdk.ElicitParams{Message: message, RequestedSchema: stringSchema("name")}
}

func samplingRequest(prompt string, maxTokens int64) *sdk.CreateMessageParams {
	return &sdk.CreateMessageParams{
		Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: prompt}}},
		MaxTokens: maxTokens,
	}
}

// askName answers "Hello, NAME!" once it has an accepted name, and asks
// for one otherwise (also when the response is missing or malformed).
func askName(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if name, _ := accepted(req.Params.InputResponses, "user_name")["name"].(string); name != "" {
		return text("Hello, %s!", name), nil
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"user_name": nameRequest("What is your name?")}}, nil
}

func askSampling(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if answer, ok := sampled(req.Params.InputResponses, "capital_question"); ok {
		return text("Sampling response: %s", answer), nil
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
		"capital_question": samplingRequest("What is the capital of France?", 100),
	}}, nil
}

func askRoots(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if res, ok := req.Params.InputResponses["client_roots"].(*sdk.ListRootsResult); ok && res != nil {
		uris := make([]string, len(res.Roots))
		for i, r := range res.Roots {
			uris[i] = r.URI
		}
		return text("Client exposed %d root(s): %s", len(res.Roots), strings.Join(uris, ", ")), nil
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"client_roots": &sdk.ListRootsParams{}}}, nil
}

// askConfirm asks for a confirmation with a signed state and completes
// only when the retry carries that state unaltered.
func (f *fixture) askConfirm(purpose string) sdk.ToolHandler {
	return func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if req.Params.RequestState != "" {
			payload, err := f.open(req)
			if err != nil {
				return nil, err
			}
			if payload != purpose {
				return nil, invalidState("it was issued for another tool")
			}
			if accepted(req.Params.InputResponses, "confirm") != nil {
				return text("state-ok: requestState received and confirmation accepted"), nil
			}
		}
		return f.ask(req, sdk.InputRequestMap{"confirm": &sdk.ElicitParams{
			Message: "Please confirm",
			RequestedSchema: &jsonschema.Schema{
				Type:       "object",
				Properties: map[string]*jsonschema.Schema{"ok": {Type: "boolean"}},
				Required:   []string{"ok"},
			},
		}}, purpose)
	}
}

// askAll asks for a name, a sampled greeting and the roots in one round,
// with a signed state, and completes once all three came back.
func (f *fixture) askAll(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if req.Params.RequestState != "" {
		payload, err := f.open(req)
		if err != nil {
			return nil, err
		}
		if payload != "multiple_inputs" {
			return nil, invalidState("it was issued for another tool")
		}
	}
	in := req.Params.InputResponses
	name, _ := accepted(in, "user_name")["name"].(string)
	greeting, haveGreeting := sampled(in, "greeting")
	roots, haveRoots := in["client_roots"].(*sdk.ListRootsResult)
	if name != "" && haveGreeting && haveRoots && roots != nil {
		return text("%s %s — %d root(s) visible", greeting, name, len(roots.Roots)), nil
	}
	return f.ask(req, sdk.InputRequestMap{
		"user_name":    nameRequest("What is your name?"),
		"greeting":     samplingRequest("Generate a greeting", 50),
		"client_roots": &sdk.ListRootsParams{},
	}, "multiple_inputs")
}

// multiRound asks for a name, then a colour, then completes. The round
// and the name so far travel in the signed state.
func (f *fixture) multiRound(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	round, name := "", ""
	if req.Params.RequestState != "" {
		payload, err := f.open(req)
		if err != nil {
			return nil, err
		}
		round, name, _ = strings.Cut(payload, ":")
	}
	switch round {
	case "":
		return f.ask(req, sdk.InputRequestMap{"step1": nameRequest("Step 1: What is your name?")}, "1:")
	case "1":
		name, _ = accepted(req.Params.InputResponses, "step1")["name"].(string)
		if name == "" {
			name = "unknown"
		}
		return f.ask(req, sdk.InputRequestMap{"step2": &sdk.ElicitParams{
			Message: "Step 2: What is your favorite color?", RequestedSchema: stringSchema("color"),
		}}, "2:"+name)
	case "2":
		color, _ := accepted(req.Params.InputResponses, "step2")["color"].(string)
		if color == "" {
			color = "unknown"
		}
		return text("Multi-round complete: %s likes %s", name, color), nil
	}
	return nil, invalidState(fmt.Sprintf("unknown round %q", round))
}

// askPerCapabilities asks only for the input kinds the request's declared
// client capabilities cover.
func askPerCapabilities(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if len(req.Params.InputResponses) > 0 {
		return text("Capability-aware input requests fulfilled"), nil
	}
	caps := req.ClientCapabilities()
	asks := sdk.InputRequestMap{}
	if caps != nil && caps.Elicitation != nil {
		asks["user_name"] = nameRequest("What is your name?")
	}
	if caps != nil && caps.Sampling != nil {
		asks["greeting"] = samplingRequest("Generate a short greeting", 50)
	}
	if caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged) {
		asks["client_roots"] = &sdk.ListRootsParams{}
	}
	if len(asks) == 0 {
		return text("No declared client capability supports an in-band input request"), nil
	}
	return &sdk.CallToolResult{InputRequests: asks}, nil
}

// promptWithInput is prompts/get's multi-round analogue: it asks for
// context, then returns the prompt.
func promptWithInput(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	if c := accepted(req.Params.InputResponses, "user_context"); c != nil {
		ctxText, _ := c["context"].(string)
		return &sdk.GetPromptResult{
			Description: "A prompt with elicited context",
			Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Context: " + ctxText}}},
		}, nil
	}
	return &sdk.GetPromptResult{InputRequests: sdk.InputRequestMap{
		"user_context": &sdk.ElicitParams{Message: "Please provide context for the prompt", RequestedSchema: stringSchema("context")},
	}}, nil
}
