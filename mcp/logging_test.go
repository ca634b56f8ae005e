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

// TestModernSubscription: in 2026-07-28 a subscription rides on the
// SDK's subscriptions/listen stream; an update the go-sdk server sends
// for the URI arrives as a ResourceUpdate.
func TestModernSubscription(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	subscribed := make(chan string, 1)
	opts := &sdk.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *sdk.SubscribeRequest) error {
			subscribed <- req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	}
	g := newGoServer(t, true, opts)
	g.srv.AddResource(&sdk.Resource{URI: "mem://watched", Name: "watched"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "mem://watched", Text: "v1"}}}, nil
	})
	n := newNotes()
	m, _ := newManager(t, n.config(Config{Servers: []ServerConfig{{Name: "go", URL: g.url}}}))
	mustTools(t, ctx, m)
	if st := m.Status(ctx)[0]; st.Era != ProtocolModern {
		t.Fatalf("era = %q, want %s", st.Era, ProtocolModern)
	}
	if err := m.Subscribe(ctx, "go", "mem://watched"); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-subscribed:
		if uri != "mem://watched" {
			t.Fatalf("subscribed to %q", uri)
		}
	case <-ctx.Done():
		t.Fatal("the server saw no subscription")
	}
	for {
		if err := g.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "mem://watched"}); err != nil {
			t.Fatal(err)
		}
		select {
		case u := <-n.updates:
			if u != (ResourceUpdate{Server: "go", URI: "mem://watched"}) {
				t.Fatalf("update = %+v", u)
			}
			return
		case <-time.After(200 * time.Millisecond):
			// The listen stream may not be registered yet: send again.
		case <-ctx.Done():
			t.Fatal("no update arrived")
		}
	}
}
