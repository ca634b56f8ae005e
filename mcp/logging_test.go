package mcp

//lint:file-ignore SA1019 the tests exercise logging, deprecated in 2026-07-28 but still served.

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestModernLogLevelInMeta: with a 2026-07-28 server (the go-sdk,
// stateless), which sends log messages only for requests whose _meta
// asks, none arrive before SetLogLevel; after it, the messages of the
// level and above do.
func TestModernLogLevelInMeta(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	g := newGoServer(t, true, &sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Tools: &sdk.ToolCapabilities{}}})
	sdk.AddTool(g.srv, &sdk.Tool{Name: "chatty"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		for _, l := range []sdk.LoggingLevel{"info", "warning", "error"} {
			if err := req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: l, Data: "message at " + string(l)}); err != nil {
				return nil, nil, err
			}
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "said it"}}}, nil, nil
	})
	n := newNotes()
	m, _ := newManager(t, n.config(Config{Servers: []ServerConfig{{Name: "go", URL: g.url}}}))
	tools := mustTools(t, ctx, m)
	if st := m.Status(ctx)[0]; st.Era != ProtocolModern {
		t.Fatalf("era = %q, want %s", st.Era, ProtocolModern)
	}
	chatty := toolByName(t, tools, "go__chatty")
	wantContent(t, call(t, ctx, chatty, `{}`), "said it")
	select {
	case l := <-n.logs:
		t.Fatalf("a log message arrived before any level was set: %+v", l)
	case <-time.After(300 * time.Millisecond):
	}
	if err := m.SetLogLevel(ctx, "warning"); err != nil {
		t.Fatal(err)
	}
	wantContent(t, call(t, ctx, chatty, `{}`), "said it")
	var got []string
	for len(got) < 2 {
		select {
		case l := <-n.logs:
			got = append(got, l.Level+": "+l.Text)
		case <-ctx.Done():
			t.Fatalf("log messages = %v, want the warning and the error", got)
		}
	}
	if got[0] != "warning: message at warning" || got[1] != "error: message at error" {
		t.Errorf("log messages = %v", got)
	}
}
