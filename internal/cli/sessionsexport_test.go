package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestSessionsExport: `rein sessions export ID` prints every event of a
// healthy session as a JSON line (the stream-json shape), with the
// model's terminal controls escaped, and exits 0.
func TestSessionsExport(t *testing.T) {
	e := newEnv(t)
	stateDir := filepath.Join(e.home, "state")
	hostile := "done \u009b31m\u202eevil"
	srv := modeltest.NewServer(t, sse(textBody(hostile)))
	p := e.start(t, "run", "--state-dir", stateDir, "-e", srv.URL, "--output-format", "json", "hello")
	p.stdin.Close()
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("rein run exited %d: %s", code, p.stderr)
	}
	var out struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(p.stdout.String()), &out); err != nil {
		t.Fatal(err)
	}
	x := e.start(t, "sessions", "export", out.SessionID[:8], "--state-dir", stateDir)
	x.stdin.Close()
	if code := x.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("export exited %d: %s", code, x.stderr)
	}
	lines := strings.Split(strings.TrimSpace(x.stdout.String()), "\n")
	types := []string{}
	sawText := false
	for _, l := range lines {
		if strings.ContainsAny(l, "\u009b\u202e") {
			t.Errorf("a raw terminal control in %q", l)
		}
		var ev struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if ev.SessionID != out.SessionID {
			t.Errorf("line %q: session_id %q, want %q", l, ev.SessionID, out.SessionID)
		}
		types = append(types, ev.Type)
		sawText = sawText || strings.Contains(l, `done \u009b31m\u202eevil`)
	}
	if len(types) < 3 || types[0] != "session.started" || types[len(types)-1] != "session.completed" || !sawText {
		t.Errorf("exported %v (answer escaped and present: %v)", types, sawText)
	}
}
