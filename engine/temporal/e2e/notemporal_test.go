package e2e

import (
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// trap is a loopback listener that records every connection made to it.
type trap struct {
	ln    net.Listener
	mu    sync.Mutex
	conns int
}

func newTrap(t testing.TB, addr string) *trap {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil
	}
	tr := &trap{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			tr.mu.Lock()
			tr.conns++
			tr.mu.Unlock()
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return tr
}

func (tr *trap) count() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.conns
}

// TestNoTemporalWithoutFlag: without --temporal or [temporal], `rein run`
// answers from the model and connects to no Temporal frontend — neither
// the default port 7233 nor one named by the SDK's TEMPORAL_ADDRESS
// variable — and the Temporal commands refuse to start without an
// address, with exit 2 and a line naming --temporal (or, for a rein
// installed without rein-temporal, naming that binary).
func TestNoTemporalWithoutFlag(t *testing.T) {
	m := newFakeModel(t)
	m.script("plain", fixed(textStep("no temporal here")))
	root := t.TempDir()
	h := makeHome(t, root+"/home", m.URL, "")
	ws := root + "/ws"
	mkdir(t, ws)

	envTrap := newTrap(t, "127.0.0.1:0")
	traps := map[string]*trap{"TEMPORAL_ADDRESS": envTrap}
	if def := newTrap(t, "127.0.0.1:7233"); def != nil {
		traps["the default port 7233"] = def
	} else {
		t.Log("127.0.0.1:7233 is in use: only the TEMPORAL_ADDRESS trap is checked")
	}
	h.env = append(h.env, "TEMPORAL_ADDRESS="+envTrap.ln.Addr().String(), "TEMPORAL_NAMESPACE=trap")

	r := reinRun(t, h, ws, 60*time.Second, "run", "--output-format", "stream-json", "e2e:plain say something")
	if r.code != 0 {
		t.Fatalf("rein run exited %d\nstderr:\n%s", r.code, r.stderr)
	}
	if f := final(parseEvents(t, lines(r.stdout))); f == nil || f.Outcome.Text != "no temporal here" {
		t.Errorf("rein run's last event = %+v, want the model's answer", f)
	}
	time.Sleep(200 * time.Millisecond) // a late dial would still land
	for what, tr := range traps {
		if n := tr.count(); n != 0 {
			t.Errorf("rein run connected %d times to %s", n, what)
		}
	}

	// Without an address the Temporal commands are usage errors.
	bare := makeHome(t, root+"/bare", m.URL, "")
	for _, args := range [][]string{
		{"worker"},
		{"submit", "hello"},
		{"status", "ses_x"},
		{"cancel", "ses_x"},
		{"approve", "ses_x", "call_1", "allow"},
	} {
		r := reinRun(t, bare, ws, 30*time.Second, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "--temporal") {
			t.Errorf("rein %s: exit %d stderr %q, want exit 2 and a line naming --temporal", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	for what, tr := range traps {
		if n := tr.count(); n != 0 {
			t.Errorf("the commands without an address connected %d times to %s", n, what)
		}
	}

	// rein alone, without rein-temporal beside it or on PATH, says where
	// the Temporal commands live.
	alone := filepath.Join(root, "alone", "rein")
	mkdir(t, filepath.Dir(alone))
	copyBinary(t, reinBinary(t), alone)
	bare.env = append(bare.env[:len(bare.env):len(bare.env)], "PATH=/usr/bin:/bin")
	p := startProcBinary(t, "rein alone worker", alone, bare, ws, 30*time.Second, "worker", "--temporal", "127.0.0.1:1")
	const install = "go install -C engine/temporal ./cmd/rein-temporal"
	if code := p.wait(t, 30*time.Second); code != 2 || !strings.Contains(p.stderr.String(), install) {
		t.Errorf("rein worker without rein-temporal: exit %d stderr %q, want exit 2 naming %q", code, p.stderr, install)
	}
}
