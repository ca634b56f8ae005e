package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/internal/statefile"
	"github.com/reinharness/rein/policy"
)

// permissionsFile is the store, in the state directory, of what the user
// allowed "always for this project" in chat's approval dialog. It is kept
// outside the repository, keyed by the workspace's canonical path: a
// repository cannot grant itself permissions, and granting one does not
// change a file others check out.
const permissionsFile = "permissions.json"

// Permission is one grant: a tool, or one exact command (argv).
type Permission struct {
	Tool    string    `json:"tool,omitempty"`
	Command []string  `json:"command,omitempty"`
	Added   time.Time `json:"added"`
	// Expires ends the grant (rein permissions add --ttl); nil keeps it
	// until revoked, as the dialog's "always" does. An expired grant is
	// ignored and pruned from the file at the next read.
	Expires *time.Time `json:"expires,omitempty"`
	// Deny makes the entry a refusal instead of a grant: the editor's
	// "always reject" (rein acp). A refusal is the strictest rule of the
	// layer, so it wins over a grant of the same call.
	Deny bool `json:"deny,omitempty"`
}

// expired reports whether the grant has ended by now.
func (p Permission) expired(now time.Time) bool {
	return p.Expires != nil && !now.Before(*p.Expires)
}

// When is the grant's date, and its expiry when it has one, for lists.
func (p Permission) When() string {
	s := p.Added.Format("2006-01-02")
	if p.Expires != nil {
		s += ", expires " + p.Expires.UTC().Format("2006-01-02 15:04 UTC")
	}
	return s
}

// pruneExpired drops the ended grants from d; it reports whether any
// were.
func pruneExpired(d *permissionsData, now time.Time) bool {
	pruned := false
	for key, list := range d.Workspaces {
		live := slices.DeleteFunc(slices.Clone(list), func(p Permission) bool { return p.expired(now) })
		if len(live) == len(list) {
			continue
		}
		pruned = true
		if len(live) == 0 {
			delete(d.Workspaces, key)
		} else {
			d.Workspaces[key] = live
		}
	}
	return pruned
}

// Describe is the grant as /permissions and rein permissions list show it.
func (p Permission) Describe() string {
	what := "tool " + p.Tool
	if len(p.Command) > 0 {
		what = "command " + strings.Join(p.Command, " ") + " (exactly)"
	}
	if p.Deny {
		return "refused: " + what
	}
	return what
}

type permissionsData struct {
	Version    int                     `json:"version"`
	Workspaces map[string][]Permission `json:"workspaces"`
}

// PermissionStore reads and writes the permissions file. It is safe for
// concurrent use; every change re-reads the file, so grants made by
// another rein meanwhile are kept.
type PermissionStore struct {
	path string
	mu   sync.Mutex
}

func NewPermissionStore(state string) *PermissionStore {
	if state == "" {
		return nil
	}
	return &PermissionStore{path: filepath.Join(state, permissionsFile)}
}

func (s *PermissionStore) load() (permissionsData, error) {
	d := permissionsData{Version: 1, Workspaces: map[string][]Permission{}}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return d, fmt.Errorf("%s is corrupt (%v); fix or delete it", s.path, err)
	}
	if d.Version != 1 {
		return d, fmt.Errorf("%s has version %d, rein reads version 1", s.path, d.Version)
	}
	if d.Workspaces == nil {
		d.Workspaces = map[string][]Permission{}
	}
	return d, nil
}

func (s *PermissionStore) save(d permissionsData) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return statefile.WriteAtomic(s.path, append(data, '\n'), 0o600)
}

// List returns the grants of workspace ws.
func (s *PermissionStore) List(ws string) ([]Permission, error) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	if err != nil {
		return nil, err
	}
	if pruneExpired(&d, time.Now()) {
		// Ended grants are already ignored; removing them from the file
		// is housekeeping, so a read-only state directory is no error.
		_ = s.save(d)
	}
	return d.Workspaces[CanonicalDir(ws)], nil
}

// Add records grants for ws, skipping ones it holds already.
func (s *PermissionStore) Add(ws string, ps ...Permission) error {
	if s == nil {
		return errors.New("no state directory to keep permissions in")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	if err != nil {
		return err
	}
	pruneExpired(&d, time.Now())
	key := CanonicalDir(ws)
	for _, p := range ps {
		i := slices.IndexFunc(d.Workspaces[key], func(q Permission) bool { return q.Tool == p.Tool && slices.Equal(q.Command, p.Command) })
		if i < 0 {
			d.Workspaces[key] = append(d.Workspaces[key], p)
			continue
		}
		// Granting again sets the expiry anew: the user's latest word.
		d.Workspaces[key][i].Expires = p.Expires
	}
	return s.save(d)
}

// Remove revokes grant n (1-based, as listed) of ws and returns it.
func (s *PermissionStore) Remove(ws string, n int) (Permission, error) {
	if s == nil {
		return Permission{}, errors.New("no state directory")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	if err != nil {
		return Permission{}, err
	}
	// Numbered as list shows them: without the ended grants.
	pruneExpired(&d, time.Now())
	key := CanonicalDir(ws)
	list := d.Workspaces[key]
	if n < 1 || n > len(list) {
		return Permission{}, fmt.Errorf("no permission %d (this workspace has %d)", n, len(list))
	}
	p := list[n-1]
	d.Workspaces[key] = slices.Delete(list, n-1, n)
	if len(d.Workspaces[key]) == 0 {
		delete(d.Workspaces, key)
	}
	return p, s.save(d)
}

// Layer is the policy layer of ws's grants: user-level allow rules, as
// trusted as the user's own configuration (the file is the user's, in
// the state directory). ok is false when there are none.
func (s *PermissionStore) Layer(ws string) (policy.Layer, bool, error) {
	ps, err := s.List(ws)
	if err != nil || len(ps) == 0 {
		return policy.Layer{}, false, err
	}
	var c policy.Config
	for _, p := range ps {
		action, reason := "allow", "allowed always for this project (rein permissions)"
		if p.Deny {
			action, reason = "deny", "refused always for this project by the user (rein permissions)"
		}
		if len(p.Command) > 0 {
			c.Commands = append(c.Commands, policy.CommandRule{Prefix: p.Command, Exact: true, Action: action, Reason: reason})
		} else if p.Tool != "" {
			c.Tools = append(c.Tools, policy.ToolRule{Name: p.Tool, Action: action, Reason: reason})
		}
	}
	return policy.Layer{Kind: policy.LayerUser, Source: s.path, Config: c}, true, nil
}
