package cli

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "90m": 90 * time.Minute, "1h30m": 90 * time.Minute} {
		if got, err := parseTTL(in); err != nil || got != want {
			t.Errorf("parseTTL(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "-1d", "7x", "30s", "400d", "1e9d", "7 d", "99999999999999999999d"} {
		if _, err := parseTTL(in); err == nil {
			t.Errorf("parseTTL(%q) accepted", in)
		}
	}
}

// TestPermissionExpiry: an ended grant is left out of list and of the
// policy layer, dropped from the file, and not counted by rm's numbers;
// granting again resets the expiry.
func TestPermissionExpiry(t *testing.T) {
	s, ws := newPermissionStore(t.TempDir()), t.TempDir()
	now := time.Now().UTC()
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	if err := s.add(ws,
		permission{Command: []string{"old"}, Added: now, Expires: &past},
		permission{Command: []string{"live"}, Added: now, Expires: &future},
		permission{Tool: "forever", Added: now}); err != nil {
		t.Fatal(err)
	}
	// add prunes what has ended before it adds, so write the ended one
	// back by hand, as a file from an earlier day would hold it.
	d, _ := s.load()
	d.Workspaces[canonicalDir(ws)] = append([]permission{{Command: []string{"old"}, Added: now, Expires: &past}}, d.Workspaces[canonicalDir(ws)]...)
	if err := s.save(d); err != nil {
		t.Fatal(err)
	}
	ps, err := s.list(ws)
	if err != nil || len(ps) != 2 || ps[0].Command[0] != "live" || ps[1].Tool != "forever" {
		t.Fatalf("list = %+v, %v", ps, err)
	}
	raw, _ := os.ReadFile(s.path)
	if strings.Contains(string(raw), `"old"`) {
		t.Errorf("the ended grant is still in the file:\n%s", raw)
	}
	l, ok, err := s.layer(ws)
	if err != nil || !ok || len(l.Config.Commands) != 1 || l.Config.Commands[0].Prefix[0] != "live" {
		t.Errorf("layer = %+v, %v, %v", l.Config, ok, err)
	}
	if !strings.Contains(ps[0].when(), ", expires ") || strings.Contains(ps[1].when(), "expires") {
		t.Errorf("when: %q, %q", ps[0].when(), ps[1].when())
	}
	if err := s.add(ws, permission{Command: []string{"live"}, Added: now}); err != nil {
		t.Fatal(err)
	}
	if ps, _ = s.list(ws); len(ps) != 2 || ps[0].Expires != nil {
		t.Errorf("granting again did not reset the expiry: %+v", ps)
	}
	if p, err := s.remove(ws, 2); err != nil || p.Tool != "forever" {
		t.Errorf("rm 2 = %+v, %v; want the tool grant", p, err)
	}
}
