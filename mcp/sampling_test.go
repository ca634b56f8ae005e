package mcp

//lint:file-ignore SA1019 sampling serves servers of the 2025 revisions, which rein supports.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/mcp/mcpserver"
	"github.com/reinharness/rein/tool"
)

// weatherModel is an Interaction playing the model of a sampling
// conversation with tools: asked with the weather tool offered, it calls
// it; shown the tool's result, it answers from it. It records what it
// was asked.
type weatherModel struct {
	mu    sync.Mutex
	asked []*SamplingRequest
	// rogue makes the first answer call a tool that was not offered.
	rogue bool
}

func (w *weatherModel) Elicit(context.Context, *Elicitation) (*ElicitationResponse, error) {
	return &ElicitationResponse{Action: "decline"}, nil
}

func (w *weatherModel) Sample(_ context.Context, r *SamplingRequest) (*SamplingResponse, error) {
	w.mu.Lock()
	w.asked = append(w.asked, r)
	w.mu.Unlock()
	last := r.Messages[len(r.Messages)-1]
	for _, b := range last.Blocks {
		if b.Kind == BlockToolResult {
			return &SamplingResponse{Model: "m", Text: "Forecast says: " + b.Text, StopReason: "endTurn"}, nil
		}
	}
	name := "weather"
	if w.rogue {
		name = "delete_everything"
	}
	return &SamplingResponse{Model: "m", Text: "Let me look.", ToolUses: []SamplingToolUse{{ID: "c1", Name: name, Input: json.RawMessage(`{"city":"Oslo"}`)}}}, nil
}

// samplingPeer is rein's own MCP server with a "plan" tool that runs a
// sampling conversation offering a weather tool (mcpserver.SampleLoop).
func samplingPeer(t *testing.T) string {
	t.Helper()
	set, err := tool.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	weather := &sdk.Tool{Name: "weather", Description: "Weather for a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	plan := func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := mcpserver.SampleLoop(ctx, req, &sdk.CreateMessageWithToolsParams{
			MaxTokens:  100,
			Messages:   []*sdk.SamplingMessageV2{{Role: "user", Content: []sdk.Content{&sdk.TextContent{Text: "What to wear in Oslo?"}}}},
			Tools:      []*sdk.Tool{weather},
			ToolChoice: &sdk.ToolChoice{Mode: "auto"},
		}, func(_ context.Context, use *sdk.ToolUseContent) *sdk.ToolResultContent {
			return &sdk.ToolResultContent{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("sunny in %v", use.Input["city"])}}}
		})
		if err != nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return textResult(b.String()), nil
	}
	s, err := mcpserver.New(mcpserver.Config{Tools: set, Policy: allowAll{}, Features: &mcpserver.Features{Tools: []mcpserver.NativeTool{{
		Tool: &sdk.Tool{Name: "plan", Description: "Plans.", InputSchema: json.RawMessage(`{"type":"object"}`)}, Handler: plan,
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestSamplingWithTools: rein's server library runs a sampling
// conversation with a tool against rein's client (2025-11-25): the
// client's model is offered the tool, its tool_use reaches the server,
// the server's tool_result comes back in the next request, and the
// final answer is the call's result. A tool use the server did not
// offer is refused, never passed on.
func TestSamplingWithTools(t *testing.T) {
	url := samplingPeer(t)
	for _, rogue := range []bool{false, true} {
		t.Run(fmt.Sprint("rogue=", rogue), func(t *testing.T) {
			in := &weatherModel{rogue: rogue}
			sc := ServerConfig{Name: "peer", URL: url, Transport: TransportStreamable, ProtocolVersion: Protocol251125}
			m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, Interaction: in})
			ctx := testCtx(t, 30*time.Second)
			tools, err := m.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, ctx, toolByName(t, tools, "peer__plan"), `{}`)
			in.mu.Lock()
			defer in.mu.Unlock()
			if rogue {
				if !res.IsError || !strings.Contains(res.Content, "did not offer") || len(in.asked) != 1 {
					t.Errorf("rogue tool use: result %+v after %d requests; want a refusal after one", res, len(in.asked))
				}
				return
			}
			if res.IsError || res.Content != "Forecast says: sunny in Oslo" {
				t.Fatalf("result = %+v", res)
			}
			if len(in.asked) != 2 {
				t.Fatalf("%d sampling requests, want 2", len(in.asked))
			}
			first := in.asked[0]
			if len(first.Tools) != 1 || first.Tools[0].Name != "weather" || !strings.Contains(string(first.Tools[0].InputSchema), `"city"`) || first.ToolChoice != "auto" {
				t.Errorf("first request's tools = %+v, choice %q", first.Tools, first.ToolChoice)
			}
			second := in.asked[1]
			if n := len(second.Messages); n != 3 {
				t.Fatalf("second request has %d messages, want user, assistant (tool use), user (tool result)", n)
			}
			use := second.Messages[1].Blocks
			if len(use) != 2 || use[1].Kind != BlockToolUse || use[1].ToolUseID != "c1" || use[1].ToolName != "weather" || string(use[1].Input) != `{"city":"Oslo"}` {
				t.Errorf("assistant turn blocks = %+v", use)
			}
			if r := second.Messages[2].Blocks; len(r) != 1 || r[0].Kind != BlockToolResult || r[0].ToolUseID != "c1" || r[0].Text != "sunny in Oslo" {
				t.Errorf("tool result blocks = %+v", r)
			}
		})
	}
}

// TestSamplingContentRoundTrip: tool_use and tool_result blocks decode
// from the wire into SamplingBlocks, and a response's tool uses encode
// as tool_use content with stopReason toolUse that decodes back the same.
func TestSamplingContentRoundTrip(t *testing.T) {
	wire := `{"maxTokens":50,"toolChoice":{"mode":"required"},
	  "tools":[{"name":"lookup","inputSchema":{"type":"object"}}],
	  "messages":[
	    {"role":"user","content":{"type":"text","text":"find x"}},
	    {"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"lookup","input":{"q":"x"}}]},
	    {"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[{"type":"text","text":"x=1"}],"isError":true}]}]}`
	var p sdk.CreateMessageWithToolsParams
	if err := json.Unmarshal([]byte(wire), &p); err != nil {
		t.Fatal(err)
	}
	sr, err := decodeSampling("s", &p)
	if err != nil {
		t.Fatal(err)
	}
	if sr.ToolChoice != "required" || len(sr.Tools) != 1 || len(sr.Messages) != 3 {
		t.Fatalf("decoded %+v", sr)
	}
	if b := sr.Messages[1].Blocks[0]; b.Kind != BlockToolUse || b.ToolUseID != "u1" || string(b.Input) != `{"q":"x"}` {
		t.Errorf("tool_use → %+v", b)
	}
	if b := sr.Messages[2].Blocks[0]; b.Kind != BlockToolResult || b.ToolUseID != "u1" || b.Text != "x=1" || !b.IsError {
		t.Errorf("tool_result → %+v", b)
	}
	res, err := encodeSampling(sr, &SamplingResponse{Model: "m", ToolUses: []SamplingToolUse{{ID: "u2", Name: "lookup", Input: json.RawMessage(`{"q":"y"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back sdk.CreateMessageWithToolsResult
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	u, ok := back.Content[0].(*sdk.ToolUseContent)
	if back.StopReason != "toolUse" || len(back.Content) != 1 || !ok || u.ID != "u2" || u.Name != "lookup" || u.Input["q"] != "y" {
		t.Errorf("encoded %s, decoded %+v", data, back)
	}
	for _, bad := range []*SamplingResponse{
		{ToolUses: []SamplingToolUse{{ID: "u", Name: "other"}}},
		{ToolUses: []SamplingToolUse{{ID: "u", Name: "lookup", Input: json.RawMessage(`[1]`)}}},
	} {
		if _, err := encodeSampling(sr, bad); err == nil {
			t.Errorf("encoded %+v", bad)
		}
	}
	sr.ToolChoice = "none"
	if _, err := encodeSampling(sr, &SamplingResponse{ToolUses: []SamplingToolUse{{ID: "u", Name: "lookup"}}}); err == nil {
		t.Error("a tool use passed with toolChoice none")
	}
	if _, err := decodeSampling("s", &sdk.CreateMessageWithToolsParams{Tools: []*sdk.Tool{{Name: "bad name"}}}); err == nil {
		t.Error("a tool name with a space was accepted")
	}
}

// FuzzSamplingDecode: decoding any sampling/createMessage params never
// panics, keeps only valid offered tools, and an accepted request
// encodes any response's use of an offered tool.
func FuzzSamplingDecode(f *testing.F) {
	f.Add([]byte(`{"maxTokens":5,"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`))
	f.Add([]byte(`{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"auto"},"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"t","input":{}}]},{"role":"user","content":[{"type":"tool_result","toolUseId":"1","content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}]}]}`))
	f.Add([]byte(`{"tools":[{"name":""}],"toolChoice":{"mode":"weird"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p sdk.CreateMessageWithToolsParams
		if json.Unmarshal(data, &p) != nil {
			return
		}
		sr, err := decodeSampling("s", &p)
		if err != nil {
			return
		}
		if len(sr.Tools) > maxSamplingTools {
			t.Fatalf("%d tools kept", len(sr.Tools))
		}
		for _, tl := range sr.Tools {
			if tl.Name == "" || len(tl.Name) > maxToolNameLen || !json.Valid(tl.InputSchema) {
				t.Fatalf("kept tool %+v", tl)
			}
			res, err := encodeSampling(sr, &SamplingResponse{ToolUses: []SamplingToolUse{{ID: "x", Name: tl.Name}}})
			if (err == nil) == (sr.ToolChoice == "none") || (err == nil && res.StopReason != "toolUse") {
				t.Fatalf("encoding a use of %q with choice %q: %v", tl.Name, sr.ToolChoice, err)
			}
		}
	})
}

// TestSamplingWithToolsTSPeer: a TypeScript SDK v1 server runs a
// sampling conversation with a tool against rein's client over stdio:
// the SDK accepts rein's sampling.tools capability, its tool_use reply
// and the final answer built from the tool_result it sent.
func TestSamplingWithToolsTSPeer(t *testing.T) {
	nm := peer(t, "node_modules/@modelcontextprotocol/sdk/package.json")
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/sampling-tools-server.mjs")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "sampling-tools-server.mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(filepath.Dir(filepath.Dir(nm))), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	in := &weatherModel{}
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "ts", Command: nodeBin(t), Args: []string{script}}}, Interaction: in})
	ctx := testCtx(t, 60*time.Second)
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := tool.Invoke(ctx, toolByName(t, tools, "ts__plan"), json.RawMessage(`{}`), tool.InvokeOptions{Timeout: 40 * time.Second})
	if res.IsError || res.Content != "final (endTurn): Forecast says: sunny in Oslo" {
		t.Fatalf("result = %+v", res)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.asked) != 2 || len(in.asked[0].Tools) != 1 || in.asked[0].Tools[0].Name != "weather" {
		t.Errorf("sampling requests = %d, first offering %+v", len(in.asked), in.asked[0].Tools)
	}
}

// TestSamplingMode: sampling = "never" declares no sampling (with tools
// otherwise), a request carries the server's setting and whether it is a
// workspace's server (the policy's inputs), and an unknown mode is
// refused.
func TestSamplingMode(t *testing.T) {
	if _, _, err := loadTOML(t, "[mcp_servers.w]\ncommand = \"x\"\nsampling = \"always\"\n", nil); err == nil || !strings.Contains(err.Error(), `"always" is not ask, allow or never`) {
		t.Errorf("bad sampling mode: %v", err)
	}
	servers, _, err := loadTOML(t, "[mcp_servers.w]\ncommand = \"x\"\nsampling = \"Allow\"\n", nil)
	if err != nil || len(servers) != 1 || servers[0].Sampling != SamplingAllow {
		t.Fatalf("parsed %+v, %v", servers, err)
	}
	for _, tc := range []struct {
		mode SamplingMode
		caps string // what initialize declares under sampling
	}{{"", `{"tools":{}}`}, {SamplingNever, ""}} {
		sc, log := fixture(t, "ask", nil)
		sc.Sampling = tc.mode
		m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, Interaction: answering{}})
		ctx := testCtx(t, 30*time.Second)
		if _, err := m.Tools(ctx); err != nil {
			t.Fatal(err)
		}
		if got := string(initializeCapabilities(t, log)["sampling"]); got != tc.caps {
			t.Errorf("sampling %q: declared %q, want %q", tc.mode, got, tc.caps)
		}
	}

	url := samplingPeer(t)
	for _, project := range []bool{false, true} {
		in := &weatherModel{}
		sc := ServerConfig{Name: "peer", URL: url, Transport: TransportStreamable, ProtocolVersion: Protocol251125, Sampling: SamplingAllow, Project: project}
		m, _ := newManager(t, Config{Servers: []ServerConfig{sc}, Interaction: in})
		ctx := testCtx(t, 30*time.Second)
		tools, err := m.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		call(t, ctx, toolByName(t, tools, "peer__plan"), `{}`)
		in.mu.Lock()
		if len(in.asked) == 0 || in.asked[0].Setting != SamplingAllow || in.asked[0].Project != project {
			t.Errorf("project=%v: requests %+v; want the setting and the project flag passed on", project, in.asked)
		}
		in.mu.Unlock()
	}
}
