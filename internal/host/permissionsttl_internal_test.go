package host

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestPermissionExpiry: an ended grant is left out of list and of the
// policy layer, dropped from the file, and not counted by rm's numbers;
// granting again resets the expiry.
func TestPermissionExpiry(t *testing.T) {
	s, ws := NewPermissionStore(t.TempDir()), t.TempDir()
	now := time.Now().UTC()
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	if err := s.Add(ws,
		Permission{Command: []string{"old"}, Added: now, Expires: &past},
		Permission{Command: []string{"live"}, Added: now, Expires: &future},
		Permission{Tool: "forever", Added: now}); err != nil {
		t.Fatal(err)
	}
	// add prunes what has ended before it adds, so write the ended one
	// back by hand, as a file from an earlier day would hold it.
	d, _ := s.load()
	d.Workspaces[CanonicalDir(ws)] = append([]Permission{{Command: []string{"old"}, Added: now, Expires: &past}}, d.Workspaces[CanonicalDir(ws)]...)
	if err := s.save(d); err != nil {
		t.Fatal(err)
	}
	ps, err := s.List(ws)
	if err != nil || len(ps) != 2 || ps[0].Command[0] != "live" || ps[1].Tool != "forever" {
		t.Fatalf("list = %+v, %v", ps, err)
	}
	raw, _ := os.ReadFile(s.path)
	if strings.Contains(string(raw), `"old"`) {
		t.Errorf("the ended grant is still in the file:\n%s", raw)
	}
	l, ok, err := s.Layer(ws)
	if err != nil || !ok || len(l.Config.Commands) != 1 || l.Config.Commands[0].Prefix[0] != "live" {
		t.Errorf("layer = %+v, %v, %v", l.Config, ok, err)
	}
	if !strings.Contains(ps[0].When(), ", expires ") || strings.Contains(ps[1].When(), "expires") {
		t.Errorf("when: %q, %q", ps[0].When(), ps[1].When())
	}
	if err := s.Add(ws, Permission{Command: []string{"live"}, Added: now}); err != nil {
		t.Fatal(err)
	}
	if ps, _ = s.List(ws); len(ps) != 2 || ps[0].Expires != nil {
		t.Errorf("granting again did not reset the expiry: %+v", ps)
	}
	if p, err := s.Remove(ws, 2); err != nil || p.Tool != "forever" {
		t.Errorf("rm 2 = %+v, %v; want the tool grant", p, err)
	}
}
