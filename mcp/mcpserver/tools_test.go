package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

func ptr[T any](v T) *T { return &v }

func TestToolAnnotations(t *testing.T) {
	type hints struct {
		ReadOnly, Destructive, Idempotent, OpenWorld bool
		Title                                        string
	}
	tests := []struct {
		name string
		spec tool.Spec
		want hints
	}{
		{"no effects is read-only and closed", tool.Spec{}, hints{ReadOnly: true}},
		{"reading files is read-only", tool.Spec{Effects: tool.Effects{ReadsFiles: true}}, hints{ReadOnly: true}},
		{"a read-only tool claiming otherwise is believed",
			tool.Spec{Annotations: tool.Annotations{ReadOnlyHint: ptr(false)}},
			hints{Destructive: true}},
		{"writing files is destructive by default",
			tool.Spec{Effects: tool.Effects{WritesFiles: true}},
			hints{Destructive: true}},
		{"a file writer claiming read-only is not believed",
			tool.Spec{Effects: tool.Effects{WritesFiles: true}, Annotations: tool.Annotations{ReadOnlyHint: ptr(true)}},
			hints{Destructive: true}},
		{"a file writer may claim it destroys nothing",
			tool.Spec{Effects: tool.Effects{WritesFiles: true}, Annotations: tool.Annotations{DestructiveHint: ptr(false), IdempotentHint: ptr(true)}},
			hints{Idempotent: true}},
		{"commands are destructive and open whatever they claim",
			tool.Spec{Effects: tool.Effects{Exec: true}, Annotations: tool.Annotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false), ReadOnlyHint: ptr(true)}},
			hints{Destructive: true, OpenWorld: true}},
		{"network tools keep their read-only claim",
			tool.Spec{Effects: tool.Effects{Network: true}, Annotations: tool.Annotations{ReadOnlyHint: ptr(true), Title: "Fetch"}},
			hints{ReadOnly: true, OpenWorld: true, Title: "Fetch"}},
		{"network tools without a claim are not read-only",
			tool.Spec{Effects: tool.Effects{Network: true}},
			hints{Destructive: true, OpenWorld: true}},
		{"outside tools are open and keep their destructive claim",
			tool.Spec{Effects: tool.Effects{External: true}, Annotations: tool.Annotations{DestructiveHint: ptr(false)}},
			hints{OpenWorld: true}},
		{"an open-world claim is kept", tool.Spec{Annotations: tool.Annotations{OpenWorldHint: ptr(true)}},
			hints{ReadOnly: true, OpenWorld: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ToolAnnotations(tt.spec)
			if a.DestructiveHint == nil || a.OpenWorldHint == nil {
				t.Fatalf("destructiveHint and openWorldHint must always be stated, got %+v", a)
			}
			got := hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint, a.Title}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRefuses(t *testing.T) {
	bad := func(schema string) *tool.Set {
		set, err := tool.NewSet(rawTool{name: "bad", schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no policy", Config{}, "Config.Policy is nil"},
		{"schema without type", Config{Policy: allow, Tools: bad(`{"properties":{}}`)}, `"type": (absent)`},
		{"array schema", Config{Policy: allow, Tools: bad(`{"type":"array"}`)}, `"type": "array"`},
		{"bad origin", Config{Policy: allow, AllowedOrigins: []string{"example.com"}}, "not an origin"},
		{"origin with a path", Config{Policy: allow, AllowedOrigins: []string{"https://example.com/app"}}, "not an origin"},
		{"negative TTL", Config{Policy: allow, CacheTTL: -time.Second}, "CacheTTL is negative"},
		{"header annotation clash", Config{Policy: allow, Tools: bad(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"R"}}}`)}, `tool "bad"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: got %v, want an ErrConfig mentioning %q", err, tt.want)
			}
		})
	}
}

// rawTool is a tool with a literal schema.
type rawTool struct {
	name, schema string
	call         func(context.Context, json.RawMessage) (*tool.Result, error)
}

func (r rawTool) Spec() tool.Spec {
	return tool.Spec{Name: r.name, Description: "raw", InputSchema: json.RawMessage(r.schema)}
}

func (r rawTool) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	if r.call == nil {
		return tool.TextResult(string(args)), nil
	}
	return r.call(ctx, args)
}

func TestListing(t *testing.T) {
	s := newTestServer(t, Config{Tools: testTools(t, &keyRecorder{}), CacheTTL: 1500 * time.Millisecond})
	for _, version := range []string{modern, legacy} {
		t.Run(version, func(t *testing.T) {
			cs := stdioSession(t, s, version)
			caps := cs.InitializeResult().Capabilities
			want := &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}}
			if diff := cmp.Diff(want, caps); diff != "" {
				t.Errorf("capabilities: only tools, nothing else (-want +got):\n%s", diff)
			}
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			// The SDK lists tools by name.
			byName := map[string]*sdk.Tool{}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
				byName[tl.Name] = tl
			}
			if diff := cmp.Diff([]string{"echo", "run", "write_note"}, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			schema, _ := json.Marshal(byName["echo"].InputSchema)
			if !strings.Contains(string(schema), `"text"`) {
				t.Errorf("echo's schema lost its property: %s", schema)
			}
			if a := byName["run"].Annotations; a == nil || a.ReadOnlyHint || !*a.DestructiveHint || !*a.OpenWorldHint {
				t.Errorf("run is listed as %+v; want destructive, open-world, not read-only", a)
			}
			if a := byName["echo"].Annotations; a == nil || !a.ReadOnlyHint {
				t.Errorf("echo is listed as %+v; want read-only", a)
			}
			if version == modern && (res.CacheScope != "private" || res.TTLMs != 1500) {
				t.Errorf("tools/list cache hints = %q, %d ms; want private, 1500", res.CacheScope, res.TTLMs)
			}
		})
	}
}

func TestResults(t *testing.T) {
	slow := rawTool{name: "slow", schema: `{"type":"object"}`, call: func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	panics := rawTool{name: "boom", schema: `{"type":"object"}`, call: func(context.Context, json.RawMessage) (*tool.Result, error) {
		panic("kaboom")
	}}
	structured := tool.Func("stats", "Stats.", func(context.Context, struct{}) (map[string]int, error) {
		return map[string]int{"lines": 3}, nil
	})
	long := tool.Func("long", "Long.", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("x", 5000), nil
	})
	failing := tool.Func("fails", "Fails.", func(context.Context, struct{}) (string, error) {
		return "", errTest
	})
	set, err := tool.NewSet(slow, panics, structured, long, failing, rawTool{name: "args", schema: `{"type":"object"}`})
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, Config{Tools: set, ToolTimeout: 100 * time.Millisecond, MaxResultBytes: 1000})
	cs := stdioSession(t, s, legacy)

	tests := []struct {
		tool    string
		args    any
		isError bool
		want    string // substring of the text
	}{
		{"slow", nil, true, "timed out"},
		{"boom", nil, true, "kaboom"},
		{"stats", nil, false, `{"lines":3}`},
		{"long", nil, false, "truncated"},
		{"fails", nil, true, "test failure"},
		{"args", nil, false, "{}"},
		{"args", map[string]any{"a": 1}, false, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			text, isErr := call(t, cs, tt.tool, tt.args)
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Fatalf("%s: got isError=%v %q; want isError=%v containing %q", tt.tool, isErr, clipText(text), tt.isError, tt.want)
			}
			if tt.tool == "long" && len(text) > 1100 {
				t.Errorf("the result cap was not applied: %d bytes", len(text))
			}
		})
	}

	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "stats"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.StructuredContent)
	if string(got) != `{"lines":3}` {
		t.Errorf("structuredContent = %s, want {\"lines\":3}", got)
	}
}

func clipText(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
