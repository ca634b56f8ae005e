package cli_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry"
)

const baseConfig = "[model]\ncontext_window = 32768\n"

// requestTools lists the tool names a recorded request offered.
func requestTools(t *testing.T, body []byte) []string {
	t.Helper()
	var names []string
	tools, _ := requestJSON(t, body)["tools"].([]any)
	for _, tl := range tools {
		fn, _ := tl.(map[string]any)["function"].(map[string]any)
		if n, ok := fn["name"].(string); ok {
			names = append(names, n)
		}
	}
	return names
}

// TestToolsDisabled: [tools] disabled removes tools from what the model
// is offered; a project layer disables more, never fewer.
func TestToolsDisabled(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[tools]\ndisabled = [\"run_command\"]\n")
	writeFiles(t, e.workspace, map[string]string{".rein/config.toml": "[tools]\ndisabled = [\"write_file\"]\n"})
	srv := modeltest.NewServer(t, sse(textBody("hi")))
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL, "hello")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	names := requestTools(t, srv.Requests()[0].Body)
	if slices.Contains(names, "run_command") || slices.Contains(names, "write_file") || !slices.Contains(names, "read_file") {
		t.Errorf("tools offered = %v; want read_file but neither run_command nor write_file", names)
	}
}

// TestTablesRejectUnknownKeys: each table refuses a key it does not
// know, with a suggestion, and a bad value with the rule.
func TestTablesRejectUnknownKeys(t *testing.T) {
	for _, tc := range []struct{ table, want string }{
		{"[tools]\ndisable = [\"run_command\"]\n", `unknown key "tools.disable" in [tools] (did you mean "disabled"?)`},
		{"[tools]\ndisabled = [\"run_comand\"]\n", `no built-in tool is called "run_comand" (did you mean "run_command"?)`},
		{"[session]\nstore_delta = true\n", `unknown key "session.store_delta" in [session] (did you mean "store_deltas"?)`},
		{"[session]\nretention = \"30d\"\n", `unknown key "session.retention" in [session]`},
		{"[telemetry]\nevent_logs = false\n", `unknown key "telemetry.event_logs" in [telemetry] (did you mean "event_log"?)`},
		{"[telemetry]\notlp_endpoint = \"localhost:4318\"\n", "must be an http:// or https:// URL"},
		{"[telemetry]\nevent_log = \"no\"\n", "event_log"},
	} {
		e := newEnv(t)
		e.writeUserConfig(t, baseConfig+tc.table)
		res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", "http://127.0.0.1:9", "hello")
		if res.code != 1 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.table, res.code, res.stderr, tc.want)
		}
	}
}

// storedTypes counts the event types stored for the workspace's latest
// session.
func storedTypes(t *testing.T, e *env, state string) map[agent.EventType]int {
	t.Helper()
	ctx := context.Background()
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(state, session.DatabaseFile)})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	latest, err := store.Latest(ctx, e.workspace)
	if err != nil {
		t.Fatal(err)
	}
	out := map[agent.EventType]int{}
	for rec, err := range store.Events(ctx, latest.ID) {
		if err != nil {
			t.Fatal(err)
		}
		out[rec.Event.Type]++
	}
	return out
}

// TestSessionStoreDeltas: [session] store_deltas = true keeps the
// streamed text deltas in the store (dropped by default); a project's
// [session] is ignored with a warning.
func TestSessionStoreDeltas(t *testing.T) {
	for _, keep := range []bool{false, true} {
		e := newEnv(t)
		cfg := baseConfig
		if keep {
			cfg += "[session]\nstore_deltas = true\n"
		}
		e.writeUserConfig(t, cfg)
		writeFiles(t, e.workspace, map[string]string{".rein/config.toml": "[session]\nstore_deltas = false\n"})
		state := filepath.Join(e.home, "state")
		srv := modeltest.NewServer(t, sse(textBody("one ", "two ", "three")))
		res := e.run(t, "run", "--state-dir", state, "-e", srv.URL, "count")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		if !strings.Contains(res.stderr, "[session] ignored") {
			t.Errorf("no warning for the project's [session]:\n%s", res.stderr)
		}
		if got := storedTypes(t, e, state)[agent.EventTextDelta]; (got == 3) != keep || (got == 0) == keep {
			t.Errorf("store_deltas %v: %d text deltas stored", keep, got)
		}
	}
}

// TestTelemetryEventLog: [telemetry] event_log = false writes no JSONL
// event log; the default writes one.
func TestTelemetryEventLog(t *testing.T) {
	for _, on := range []bool{true, false} {
		e := newEnv(t)
		cfg := baseConfig
		if !on {
			cfg += "[telemetry]\nevent_log = false\n"
		}
		e.writeUserConfig(t, cfg)
		state := filepath.Join(e.home, "state")
		srv := modeltest.NewServer(t, sse(textBody("hi")))
		res := e.run(t, "run", "--state-dir", state, "--output-format", "json", "-e", srv.URL, "hello")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		id := requestJSONString(t, res.stdout, "session_id")
		_, err := os.Stat(telemetry.LogPath(state, id))
		if exists := err == nil; exists != on {
			t.Errorf("event_log %v: log file exists = %v (%v)", on, exists, err)
		}
	}
}

func requestJSONString(t *testing.T, body, key string) string {
	t.Helper()
	s, _ := requestJSON(t, []byte(body))[key].(string)
	if s == "" {
		t.Fatalf("no %s in %s", key, body)
	}
	return s
}

// TestTelemetryOTLPEndpoint: [telemetry] otlp_endpoint sends the run's
// traces there; a project's [telemetry] is ignored (warned), so a
// repository cannot redirect them.
func TestTelemetryOTLPEndpoint(t *testing.T) {
	var user, project atomic.Int32
	collector := func(n *atomic.Int32) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/traces" {
				n.Add(1)
			}
			w.WriteHeader(http.StatusOK)
		}))
		t.Cleanup(s.Close)
		return s
	}
	u, p := collector(&user), collector(&project)
	e := newEnv(t)
	e.writeUserConfig(t, baseConfig+"[telemetry]\notlp_endpoint = \""+u.URL+"\"\n")
	writeFiles(t, e.workspace, map[string]string{".rein/config.toml": "[telemetry]\notlp_endpoint = \"" + p.URL + "\"\n"})
	srv := modeltest.NewServer(t, sse(textBody("hi")))
	res := e.run(t, "run", "--state-dir", filepath.Join(e.home, "state"), "-e", srv.URL, "hello")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if user.Load() == 0 || project.Load() != 0 {
		t.Errorf("trace exports: user collector %d, project collector %d; want some and none", user.Load(), project.Load())
	}
	if !strings.Contains(res.stderr, "[telemetry] ignored") {
		t.Errorf("no warning for the project's [telemetry]:\n%s", res.stderr)
	}
}
