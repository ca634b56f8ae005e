package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// toolSamplingRequest is the second request of a sampling conversation
// with tools: the model called weather, the server answered.
func toolSamplingRequest(choice string) *mcp.SamplingRequest {
	return &mcp.SamplingRequest{
		Server: "srv", MaxTokens: 100, ToolChoice: choice,
		Tools: []mcp.SamplingTool{{Name: "weather", Description: "Weather.", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Messages: []mcp.SamplingMessage{
			{Role: "user", Text: "Oslo?", Blocks: []mcp.SamplingBlock{{Kind: mcp.BlockText, Text: "Oslo?"}}},
			{Role: "assistant", Blocks: []mcp.SamplingBlock{{Kind: mcp.BlockToolUse, ToolUseID: "c1", ToolName: "weather", Input: json.RawMessage(`{"city":"Oslo"}`)}}},
			{Role: "user", Blocks: []mcp.SamplingBlock{{Kind: mcp.BlockToolResult, ToolUseID: "c1", Text: "rain"}}},
		},
	}
}

// TestConsoleSampleWithTools: an approved sampling request that offers
// tools runs one model turn with them declared and the conversation's
// tool calls and results in place; the model's tool calls go back as
// tool uses (stop reason toolUse), one with broken arguments dropped.
// The user is told tools are offered.
func TestConsoleSampleWithTools(t *testing.T) {
	c, out := console("y")
	p := modeltest.NewScripted(modeltest.ToolCalls(
		model.ToolCall{ID: "c2", Name: "weather", Args: json.RawMessage(`{"city":"Bergen"}`)},
		model.ToolCall{ID: "c3", Name: "weather", Args: json.RawMessage(`{"city":`)},
	))
	c.useModel(&sampler{provider: p, model: "m1", name: "m1", ex: newExplainer(config.ModelConfig{})})
	got, err := c.Sample(context.Background(), toolSamplingRequest("required"))
	if err != nil {
		t.Fatal(err)
	}
	want := &mcp.SamplingResponse{Model: "m1", StopReason: "toolUse",
		ToolUses: []mcp.SamplingToolUse{{ID: "c2", Name: "weather", Input: json.RawMessage(`{"city":"Bergen"}`)}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.String(), "may call 1 tool") {
		t.Errorf("the prompt did not say tools are offered:\n%s", out)
	}
	reqs := p.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	r := reqs[0]
	if len(r.Tools) != 1 || r.Tools[0].Name != "weather" || r.ToolChoice != model.ToolChoiceRequired {
		t.Errorf("tools = %+v, choice %q", r.Tools, r.ToolChoice)
	}
	wantMsgs := []model.Message{
		model.UserText("Oslo?"),
		{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(model.ToolCall{ID: "c1", Name: "weather", Args: json.RawMessage(`{"city":"Oslo"}`)})}},
		model.ToolResults(model.ToolResult{CallID: "c1", Content: "rain"}),
	}
	if diff := cmp.Diff(wantMsgs, r.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestConsoleSampleToolChoiceNone: with toolChoice "none" the model is
// offered no tools, and a stray call is not passed on.
func TestConsoleSampleToolChoiceNone(t *testing.T) {
	c, _ := console("y")
	p := modeltest.NewScripted(modeltest.Text("Rain, take a coat."))
	c.useModel(&sampler{provider: p, model: "m1", name: "m1", ex: newExplainer(config.ModelConfig{})})
	got, err := c.Sample(context.Background(), toolSamplingRequest("none"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Rain, take a coat." || len(got.ToolUses) != 0 {
		t.Errorf("response = %+v", got)
	}
	if r := p.Requests()[0]; len(r.Tools) != 0 || r.ToolChoice != "" {
		t.Errorf("toolChoice none still declared tools %+v (%q)", r.Tools, r.ToolChoice)
	}
}

// TestConsoleSampleAllowed: with sampling = "allow" the request runs
// without a question (no input is read) and is announced in one line.
func TestConsoleSampleAllowed(t *testing.T) {
	c, out := console() // no lines: a question would be declined
	p := modeltest.NewScripted(modeltest.Text("Rain."))
	c.useModel(&sampler{provider: p, model: "m1", name: "m1", ex: newExplainer(config.ModelConfig{})})
	req := toolSamplingRequest("auto")
	req.Setting = mcp.SamplingAllow
	got, err := c.Sample(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Rain." || !strings.Contains(out.String(), `sampling = "allow"`) || strings.Contains(out.String(), "[y/N]") {
		t.Errorf("response %+v, output:\n%s", got, out)
	}
}
