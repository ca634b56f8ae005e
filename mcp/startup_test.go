package mcp

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestToolsWithinGrace: with a grace of 0, a hung server is left out at
// once and silently (it is reported once, when its own startup timeout
// passes), the healthy server's tools are there, and Connecting names
// the hung one until then.
func TestToolsWithinGrace(t *testing.T) {
	hung, _ := fixture(t, "hung", map[string]string{"FIXTURE_HANG": "1"})
	hung.StartupTimeout = 1500 * time.Millisecond
	hung.ProbeTimeout = 500 * time.Millisecond
	ok, _ := fixture(t, "ok", nil)
	m, pr := newManager(t, Config{Servers: []ServerConfig{hung, ok}})
	ctx := testCtx(t, 30*time.Second)
	m.Start()
	if _, err := m.ToolsWithin(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tools, err := m.ToolsWithin(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("ToolsWithin(0) took %v after the grace had passed", d)
	}
	if len(tools) != 9 || !strings.HasPrefix(tools[0].Spec().Name, "ok__") {
		t.Errorf("got %d tools, want the healthy server's 9", len(tools))
	}
	if got := m.Connecting(); !slices.Equal(got, []string{"hung"}) {
		t.Errorf("Connecting() = %v, want [hung]", got)
	}
	if p := pr.all(); len(p) != 0 {
		t.Errorf("problems reported within the grace: %v", p)
	}
	waitUntil(t, 5*time.Second, func() bool { return len(pr.all()) > 0 })
	time.Sleep(200 * time.Millisecond)
	if p := pr.all(); len(p) != 1 || p[0].Server != "hung" || !strings.Contains(p[0].Err.Error(), "within 1.5s") {
		t.Errorf("problems = %v, want one for hung at its startup timeout", p)
	}
	if got := m.Connecting(); len(got) != 0 {
		t.Errorf("Connecting() = %v after the timeout, want none", got)
	}
}

// TestToolsWithinWaitsForRequired: a required server is waited for until
// its startup timeout whatever the grace, and fails the call.
func TestToolsWithinWaitsForRequired(t *testing.T) {
	hung, _ := fixture(t, "hung", map[string]string{"FIXTURE_HANG": "1"})
	hung.StartupTimeout = time.Second
	hung.ProbeTimeout = 300 * time.Millisecond
	hung.Required = true
	m, _ := newManager(t, Config{Servers: []ServerConfig{hung}})
	start := time.Now()
	_, err := m.ToolsWithin(testCtx(t, 30*time.Second), 0)
	if !errors.Is(err, ErrRequiredServer) {
		t.Fatalf("err = %v, want ErrRequiredServer", err)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("a required server was given up after %v, before its 1s startup timeout", d)
	}
}

// TestOnConnectedLateServer: a server slower than the grace is left out,
// then OnConnected reports it and ServerTools returns its tools.
func TestOnConnectedLateServer(t *testing.T) {
	slow, _ := fixture(t, "slow", map[string]string{"FIXTURE_SLOW_START": "700ms"})
	connected := make(chan string, 4)
	m, pr := newManager(t, Config{Servers: []ServerConfig{slow}, OnConnected: func(s string) { connected <- s }})
	if got := m.ServerTools("slow"); got != nil {
		t.Errorf("ServerTools before the start = %d tools", len(got))
	}
	tools, err := m.ToolsWithin(testCtx(t, 30*time.Second), 100*time.Millisecond)
	if err != nil || len(tools) != 0 {
		t.Fatalf("ToolsWithin(100ms) = %d tools, %v; want none yet", len(tools), err)
	}
	select {
	case name := <-connected:
		if name != "slow" {
			t.Errorf("OnConnected(%q)", name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnConnected was not called")
	}
	if got := m.ServerTools("slow"); len(got) != 9 {
		t.Errorf("ServerTools = %d tools, want 9", len(got))
	}
	if got := m.ServerTools("nope"); got != nil {
		t.Errorf("ServerTools of an unknown server = %v", got)
	}
	if p := pr.all(); len(p) != 0 {
		t.Errorf("problems: %v", p)
	}
}

func waitUntil(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
