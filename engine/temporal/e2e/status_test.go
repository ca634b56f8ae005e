package e2e

import (
	"encoding/json"
	"strings"
	"time"
)

// sessionStatus is `rein status --format json`.
type sessionStatus struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Pending []struct {
		CallID string          `json:"call_id"`
		Tool   string          `json:"tool"`
		Args   json.RawMessage `json:"args"`
		Reason string          `json:"reason"`
	} `json:"pending"`
	Outcome *struct {
		Outcome string `json:"outcome"` // the outcome kind: complete, failed, …
		Text    string `json:"text"`
		Reason  string `json:"reason"`
	} `json:"outcome"`
	Events   int      `json:"events"`
	Children []string `json:"children"`
}

// client is a home and directory to run the client commands (submit,
// status, approve, cancel) from.
type reinClient struct {
	c   *cluster
	h   *home
	dir string
	// diag, when set, adds to the message of a failed wait (e.g. the
	// events a follower printed).
	diag func() string
}

func (c *cluster) newClient(dir string) *reinClient {
	return &reinClient{c: c, h: c.newHome("client", workerConfig), dir: dir}
}

// cmd runs `rein SUB --temporal … ARGS` to completion.
func (rc *reinClient) cmd(sub string, timeout time.Duration, args ...string) run {
	rc.c.t.Helper()
	return rc.c.rein(rc.h, rc.dir, timeout, append(append([]string{sub}, rc.c.temporalFlags()...), args...)...)
}

// submit starts a session without following it and returns its id.
func (rc *reinClient) submit(args ...string) string {
	t := rc.c.t
	t.Helper()
	r := rc.cmd("submit", 60*time.Second, args...)
	if r.code != 0 {
		t.Fatalf("rein submit exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	ls := lines(r.stdout)
	if len(ls) == 0 {
		t.Fatalf("rein submit printed no session id; stderr:\n%s", r.stderr)
	}
	return strings.TrimSpace(ls[0])
}

// status runs `rein status --format json ID`.
func (rc *reinClient) status(id string) sessionStatus {
	t := rc.c.t
	t.Helper()
	r := rc.cmd("status", 30*time.Second, "--format", "json", id)
	if r.code != 0 {
		t.Fatalf("rein status %s exited %d\nstdout:\n%s\nstderr:\n%s", id, r.code, r.stdout, r.stderr)
	}
	var s sessionStatus
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("rein status --format json is not JSON (%v):\n%s", err, r.stdout)
	}
	return s
}

// waitState polls `rein status` until the state is want, failing the
// test when the session reaches another final state or d passes.
func (rc *reinClient) waitState(id, want string, d time.Duration) sessionStatus {
	t := rc.c.t
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := rc.status(id)
		if s.State == want {
			return s
		}
		switch s.State {
		case "completed", "failed", "cancelled", "terminated":
			t.Fatalf("session %s is %s (outcome %+v), want %s%s", id, s.State, s.Outcome, want, rc.diagnosis())
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s still %q after %s, want %q%s", id, s.State, d, want, rc.diagnosis())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// follow starts `rein submit --follow --format stream-json ARGS` and
// returns the process and the session id, its first line of output.
func (rc *reinClient) follow(args ...string) (*proc, string) {
	t := rc.c.t
	t.Helper()
	p := rc.c.start("rein submit --follow", rc.h, rc.dir, append(append(append([]string{"submit"}, rc.c.temporalFlags()...), "--follow", "--format", "stream-json"), args...)...)
	var id string
	waitFor(t, "the session id on rein submit's stdout", 60*time.Second, func() bool {
		if first, _, ok := strings.Cut(p.stdout.String(), "\n"); ok {
			id = strings.TrimSpace(first)
			return true
		}
		if p.exited() {
			t.Fatalf("rein submit exited %d before printing the session id\nstderr:\n%s", p.exitCode, p.stderr)
		}
		return false
	})
	return p, id
}

func (rc *reinClient) diagnosis() string {
	if rc.diag == nil {
		return ""
	}
	return "\n" + rc.diag()
}
