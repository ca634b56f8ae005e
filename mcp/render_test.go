package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// TestRenderResult decodes wire results with the SDK, as a session would,
// and checks what the model sees.
func TestRenderResult(t *testing.T) {
	png := strings.Repeat("A", 16) // 12 bytes once base64-decoded
	for _, tc := range []struct {
		name string
		wire string
		want tool.Result
	}{
		{"text", `{"content":[{"type":"text","text":"hello"},{"type":"text","text":"world"}]}`,
			tool.Result{Content: "hello\nworld"}},
		{"error", `{"content":[{"type":"text","text":"no such file"}],"isError":true}`,
			tool.Result{Content: "no such file", IsError: true}},
		{"error without text", `{"content":[],"isError":true}`,
			tool.Result{Content: "the tool reported an error without a message", IsError: true}},
		{"image and audio", `{"content":[{"type":"image","data":"` + png + `","mimeType":"image/png"},{"type":"audio","data":"` + png + `","mimeType":"audio/wav"}]}`,
			tool.Result{Content: "[image image/png, 12 bytes]\n[audio audio/wav, 12 bytes]"}},
		{"resource link", `{"content":[{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","mimeType":"text/plain","size":42,"description":"the\nfile"}]}`,
			tool.Result{Content: "[resource link: a.txt <file:///a.txt> text/plain, 42 bytes: the file]"}},
		{"embedded text", `{"content":[{"type":"resource","resource":{"uri":"mem://x","mimeType":"text/plain","text":"body"}}]}`,
			tool.Result{Content: "[resource <mem://x> text/plain]\nbody"}},
		{"embedded blob", `{"content":[{"type":"resource","resource":{"uri":"mem://b","mimeType":"application/gzip","blob":"` + png + `"}}]}`,
			tool.Result{Content: "[resource <mem://b> application/gzip, 12 bytes]"}},
		{"structured only", `{"content":[],"structuredContent":{"sum":3}}`,
			tool.Result{Content: `{"sum":3}`, Structured: json.RawMessage(`{"sum":3}`)}},
		{"structured with text", `{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}`,
			tool.Result{Content: "3", Structured: json.RawMessage(`{"sum":3}`)}},
		{"structured array", `{"content":[{"type":"image","data":"","mimeType":""}],"structuredContent":[1,2]}`,
			tool.Result{Content: "[image of unknown type, 0 bytes]\n[1,2]", Structured: json.RawMessage(`[1,2]`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res sdk.CallToolResult
			if err := json.Unmarshal([]byte(tc.wire), &res); err != nil {
				t.Fatalf("decoding the wire result: %v", err)
			}
			got := renderResult(&res)
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInputSchema(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, `{"type":"object","properties":{}}`},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}, `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{map[string]any{"properties": map[string]any{}}, `{"properties":{},"type":"object"}`},
		{[]any{1}, `{"type":"object","properties":{}}`},
		{json.RawMessage(`{"$defs":{"x":{}},"type":"object","$ref":"#/$defs/x"}`), `{"$defs":{"x":{}},"type":"object","$ref":"#/$defs/x"}`},
	} {
		if got := string(inputSchema(tc.in)); got != tc.want {
			t.Errorf("inputSchema(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestAnnotations(t *testing.T) {
	no := false
	yes := true
	got := annotations(&sdk.Tool{Name: "t", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &no, Title: "T"}})
	want := tool.Annotations{Title: "T", ReadOnlyHint: &yes, DestructiveHint: &no, OpenWorldHint: &no}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if got := annotations(&sdk.Tool{Name: "t"}); got != (tool.Annotations{}) {
		t.Errorf("no annotations → %+v, want no claims", got)
	}
	s := &server{cfg: ServerConfig{Name: "x", Command: "c"}}
	spec := s.newTool(&sdk.Tool{Name: "t", Annotations: &sdk.ToolAnnotations{OpenWorldHint: &no}}, "x__t").Spec()
	if diff := cmp.Diff(tool.Effects{External: true}, spec.Effects); diff != "" {
		t.Errorf("closed-world local tool effects = %+v, want External only", spec.Effects)
	}
	spec = s.newTool(&sdk.Tool{Name: "t"}, "x__t").Spec()
	if !spec.Effects.Network || !spec.Effects.External || !spec.Effects.Mutating() {
		t.Errorf("tool without hints effects = %+v, want External and Network (openWorldHint defaults to true)", spec.Effects)
	}
	remote := &server{cfg: ServerConfig{Name: "x", URL: "https://example.com/mcp"}}
	if spec := remote.newTool(&sdk.Tool{Name: "t", Annotations: &sdk.ToolAnnotations{OpenWorldHint: &no}}, "x__t").Spec(); !spec.Effects.Network {
		t.Errorf("a remote server's tool must count as Network: %+v", spec.Effects)
	}
}
