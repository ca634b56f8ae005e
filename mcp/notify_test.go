package mcp

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// notes collects what a Manager reports outside calls.
type notes struct {
	logs    chan ServerLog
	updates chan ResourceUpdate
}

func newNotes() *notes {
	return &notes{logs: make(chan ServerLog, 1000), updates: make(chan ResourceUpdate, 100)}
}

func (n *notes) config(cfg Config) Config {
	cfg.OnServerLog = func(l ServerLog) {
		select {
		case n.logs <- l:
		default:
		}
	}
	cfg.OnResourceUpdated = func(u ResourceUpdate) { n.updates <- u }
	return cfg
}

// waitLog waits for a log message containing want.
func (n *notes) waitLog(t *testing.T, ctx context.Context, want string) ServerLog {
	t.Helper()
	for {
		select {
		case l := <-n.logs:
			if strings.Contains(l.Text, want) {
				return l
			}
		case <-ctx.Done():
			t.Fatalf("no log message containing %q", want)
		}
	}
}

// TestEverythingLogsAndSubscriptions: against server-everything, the log
// level set reaches the server (logging/setLevel), a subscription's
// acknowledgement arrives as a log message and its updates as events,
// and a raised level silences the server's info messages.
func TestEverythingLogsAndSubscriptions(t *testing.T) {
	ctx := testCtx(t, 90*time.Second)
	n := newNotes()
	m, _ := newManager(t, n.config(Config{Servers: []ServerConfig{{Name: "every", Command: nodeBin(t), Args: []string{everythingJS(t), "stdio"}}}}))
	tools := mustTools(t, ctx, m)
	if err := m.SetLogLevel(ctx, "info"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetLogLevel(ctx, "loud"); err == nil {
		t.Error("an unknown level was accepted")
	}
	const uri = "demo://resource/static/document/architecture.md"
	if err := m.Subscribe(ctx, "every", uri); err != nil {
		t.Fatal(err)
	}
	l := n.waitLog(t, ctx, "Received Subscribe Resource request for URI: "+uri)
	if l.Server != "every" || l.Level != "info" {
		t.Errorf("log = %+v", l)
	}
	if got := m.Subscriptions("every"); !slices.Equal(got, []string{uri}) {
		t.Errorf("subscriptions = %v", got)
	}
	wantContent(t, call(t, ctx, toolByName(t, tools, "every__toggle-subscriber-updates"), `{}`), "Started simulated resource updated")
	select {
	case u := <-n.updates:
		if u != (ResourceUpdate{Server: "every", URI: uri}) {
			t.Errorf("update = %+v", u)
		}
	case <-ctx.Done():
		t.Fatal("no resource update")
	}
	if err := m.SetLogLevel(ctx, "error"); err != nil {
		t.Fatal(err)
	}
	if err := m.Unsubscribe(ctx, "every", uri); err != nil {
		t.Fatal(err)
	}
	if err := m.Unsubscribe(ctx, "every", uri); err == nil {
		t.Error("a second unsubscribe succeeded")
	}
	// The server filters by the level it was told: its info-level
	// acknowledgement of the unsubscription must not come.
	deadline := time.After(time.Second)
	for {
		select {
		case l := <-n.logs:
			if strings.Contains(l.Text, "Unsubscribe") {
				t.Fatalf("an info message arrived at level error: %+v", l)
			}
			continue
		case <-deadline:
		}
		break
	}
}

// TestEverythingCompletion: completion/complete for a prompt argument,
// with an earlier answer narrowing a dependent one.
func TestEverythingCompletion(t *testing.T) {
	ctx := testCtx(t, 90*time.Second)
	m, _ := newManager(t, Config{Servers: []ServerConfig{{Name: "every", Command: nodeBin(t), Args: []string{everythingJS(t), "stdio"}}}})
	c, err := m.CompletePrompt(ctx, "every", "completable-prompt", "department", "En", nil)
	if err != nil || !slices.Equal(c.Values, []string{"Engineering"}) {
		t.Fatalf("department completion = %+v, %v", c, err)
	}
	c, err = m.CompletePrompt(ctx, "every", "completable-prompt", "name", "", map[string]string{"department": "Sales"})
	if err != nil || !slices.Equal(c.Values, []string{"David", "Eve", "Frank"}) {
		t.Fatalf("name completion = %+v, %v", c, err)
	}
	if _, err := m.CompletePrompt(ctx, "nope", "p", "a", "", nil); err == nil {
		t.Error("an unknown server completed")
	}
}

// urlAsker records URL elicitations and declines them.
type urlAsker struct {
	Decline
	mu  sync.Mutex
	got []*Elicitation
}

func (u *urlAsker) Elicit(_ context.Context, e *Elicitation) (*ElicitationResponse, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.got = append(u.got, e)
	return &ElicitationResponse{Action: "decline"}, nil
}

// TestEverythingURLElicitation: rein advertises URL-mode elicitation when
// it can ask someone, so server-everything offers its URL tool, and the
// request reaches the Interaction with the URL; without an Interaction
// the capability (and so the tool) is absent.
func TestEverythingURLElicitation(t *testing.T) {
	ctx := testCtx(t, 90*time.Second)
	cfg := ServerConfig{Name: "every", Command: nodeBin(t), Args: []string{everythingJS(t), "stdio"}}
	in := &urlAsker{}
	m, _ := newManager(t, Config{Servers: []ServerConfig{cfg}, Interaction: in})
	tools := mustTools(t, ctx, m)
	res := call(t, ctx, toolByName(t, tools, "every__trigger-url-elicitation"), `{"url":"https://example.com/consent","message":"Grant access"}`)
	in.mu.Lock()
	got := slices.Clone(in.got)
	in.mu.Unlock()
	if len(got) != 1 || got[0].Mode != "url" || got[0].URL != "https://example.com/consent" || got[0].Message != "Grant access" || got[0].ID == "" {
		t.Fatalf("elicitations = %+v (result %+v)", got, res)
	}
	bare, _ := newManager(t, Config{Servers: []ServerConfig{cfg}})
	for _, tl := range mustTools(t, ctx, bare) {
		if tl.Spec().Name == "every__trigger-url-elicitation" {
			t.Error("the URL tool is offered to a client without URL elicitation")
		}
	}
}
