package mcpserver

//lint:file-ignore SA1019 logging is declared for clients of the 2025 revisions, which rein supports.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

func nativeTool(name string, effects tool.Effects, a *sdk.ToolAnnotations, h sdk.ToolHandler) NativeTool {
	return NativeTool{Tool: &sdk.Tool{Name: name, InputSchema: objectSchema, Annotations: a}, Effects: effects, Handler: h}
}

func TestNativeTools(t *testing.T) {
	image := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}}}, nil
	}
	deny := deciderFunc(func(_ context.Context, c policy.Call) policy.Decision {
		if c.Spec.Effects.Exec {
			return policy.Decision{Action: policy.Deny, Reason: c.Spec.Name + " runs commands"}
		}
		return policy.Decision{Action: policy.Allow}
	})
	s := newTestServer(t, Config{Policy: deny, ToolTimeout: 100 * time.Millisecond, Features: &Features{Tools: []NativeTool{
		nativeTool("picture", tool.Effects{}, nil, image),
		nativeTool("shell", tool.Effects{Exec: true}, &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false)}, image),
		nativeTool("boom", tool.Effects{}, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { panic("native kaboom") }),
		nativeTool("stuck", tool.Effects{}, nil, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
		nativeTool("nothing", tool.Effects{}, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return nil, nil }),
	}}})
	cs := stdioSession(t, s, modern)

	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "picture"})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("picture: %v %+v", err, res)
	}
	if img, ok := res.Content[0].(*sdk.ImageContent); !ok || img.MIMEType != "image/png" || len(img.Data) != 3 {
		t.Errorf("picture: the image did not come through: %#v", res.Content[0])
	}
	for _, tt := range []struct{ name, want string }{
		{"shell", "tool call denied: shell runs commands"},
		{"boom", "native kaboom"},
		{"stuck", "timed out"},
	} {
		if text, isErr := call(t, cs, tt.name, nil); !isErr || !strings.Contains(text, tt.want) {
			t.Errorf("%s: isError=%v %q; want an error containing %q", tt.name, isErr, text, tt.want)
		}
	}
	if text, isErr := call(t, cs, "nothing", nil); isErr || text != "" {
		t.Errorf("a nil result: isError=%v %q; want an empty success", isErr, text)
	}

	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		switch tl.Name {
		case "shell":
			if a := tl.Annotations; a == nil || a.ReadOnlyHint || !*a.DestructiveHint {
				t.Errorf("shell claims read-only and harmless but runs commands; listed as %+v", a)
			}
		case "picture":
			if tl.Annotations != nil {
				t.Errorf("picture made no claims but is listed with %+v", tl.Annotations)
			}
		}
	}
}

func TestFeatureCapabilities(t *testing.T) {
	read := func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "contents"}}}, nil
	}
	s := newTestServer(t, Config{Features: &Features{
		Prompts: []Prompt{{Prompt: &sdk.Prompt{Name: "p"}, Handler: func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "hi"}}}}, nil
		}}},
		Resources: []Resource{{Resource: &sdk.Resource{Name: "r", URI: "test://r"}, Handler: read}},
		Complete: func(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
			return &sdk.CompleteResult{}, nil
		},
		Subscribe:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		Unsubscribe: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
		Logging:     true,
		ListChanged: true,
	}})
	for _, version := range []string{modern, legacy} {
		t.Run(version, func(t *testing.T) {
			cs := stdioSession(t, s, version)
			want := &sdk.ServerCapabilities{
				Completions: &sdk.CompletionCapabilities{},
				Logging:     &sdk.LoggingCapabilities{},
				Prompts:     &sdk.PromptCapabilities{ListChanged: true},
				Resources:   &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true},
			}
			if diff := cmp.Diff(want, cs.InitializeResult().Capabilities); diff != "" {
				t.Errorf("capabilities (-want +got):\n%s", diff)
			}
			res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "test://r"})
			if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "contents" {
				t.Fatalf("resources/read: %v %+v", err, res)
			}
			if version == modern && res.CacheScope != "private" {
				t.Errorf("resources/read cacheScope %q, want private", res.CacheScope)
			}
		})
	}
}

func TestAddFeatureErrors(t *testing.T) {
	s := newTestServer(t, Config{})
	noop := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return nil, nil }
	tests := []struct {
		name string
		err  error
	}{
		{"nil tool", s.AddNativeTool(NativeTool{Handler: noop})},
		{"nil handler", s.AddNativeTool(NativeTool{Tool: &sdk.Tool{Name: "x", InputSchema: objectSchema}})},
		{"bad name", s.AddNativeTool(nativeTool("two words", tool.Effects{}, nil, noop))},
		{"no schema", s.AddNativeTool(NativeTool{Tool: &sdk.Tool{Name: "x"}, Handler: noop})},
		{"nil prompt", s.AddPrompt(Prompt{})},
		{"nil resource", s.addResource(Resource{})},
		{"nil template", s.addTemplate(ResourceTemplate{})},
		{"bad template", s.addTemplate(ResourceTemplate{Template: &sdk.ResourceTemplate{URITemplate: "{"}, Handler: func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return nil, nil
		}})},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, ErrConfig) {
			t.Errorf("%s: got %v, want an ErrConfig", tt.name, tt.err)
		}
	}
}
