package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reinharness/rein/internal/statefile"
)

// ApprovedStore remembers the project rules a user approved "always for
// this project", by fingerprint. It must live outside the workspace (in
// the user's state directory): a repository must not be able to approve
// its own rules. Implementations are safe for concurrent use.
type ApprovedStore interface {
	// Approved reports whether the rule with this fingerprint was
	// approved for the workspace (a canonical path, as
	// Engine.Workspace returns). It does no I/O.
	Approved(workspace, fingerprint string) bool
	// Approve records an approval; rule is a human-readable copy of the
	// rule for whoever reads the store.
	Approve(workspace, fingerprint, rule string) error
}

// ErrApprovedStore wraps errors reading or writing the approvals file.
var ErrApprovedStore = errors.New("approved-rules store")

// approval is one record of the approvals file.
type approval struct {
	Workspace   string    `json:"workspace"`
	Fingerprint string    `json:"fingerprint"`
	Rule        string    `json:"rule"`
	ApprovedAt  time.Time `json:"approved_at"`
}

type approvalsFile struct {
	Version   int        `json:"version"`
	Approvals []approval `json:"approvals"`
}

// FileApprovedStore keeps approvals in a JSON file, written atomically
// with mode 0600.
type FileApprovedStore struct {
	path string
	mu   sync.Mutex
	set  map[[2]string]bool
	now  func() time.Time
}

// OpenApprovedStore loads the approvals file at path; a missing file is an
// empty store. A corrupt file is an error naming it: approvals are never
// silently dropped.
func OpenApprovedStore(path string) (*FileApprovedStore, error) {
	s := &FileApprovedStore{path: path, set: map[[2]string]bool{}, now: time.Now}
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	for _, a := range f.Approvals {
		s.set[[2]string{a.Workspace, a.Fingerprint}] = true
	}
	return s, nil
}

func (s *FileApprovedStore) load() (approvalsFile, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return approvalsFile{Version: 1}, nil
	}
	if err != nil {
		return approvalsFile{}, fmt.Errorf("%w: %v", ErrApprovedStore, err)
	}
	return decodeApprovals(data, s.path)
}

func decodeApprovals(data []byte, path string) (approvalsFile, error) {
	var f approvalsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return approvalsFile{}, fmt.Errorf("%w: %s is corrupt (%v); fix or delete it", ErrApprovedStore, path, err)
	}
	if f.Version != 1 {
		return approvalsFile{}, fmt.Errorf("%w: %s has version %d, rein reads version 1; upgrade rein or delete the file", ErrApprovedStore, path, f.Version)
	}
	return f, nil
}

// Approved implements ApprovedStore.
func (s *FileApprovedStore) Approved(workspace, fingerprint string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set[[2]string{filepath.Clean(workspace), fingerprint}]
}

// Approve implements ApprovedStore. It re-reads the file before writing,
// so approvals made by another rein process meanwhile are kept.
func (s *FileApprovedStore) Approve(workspace, fingerprint, rule string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := filepath.Clean(workspace)
	f, err := s.load()
	if err != nil {
		return err
	}
	for _, a := range f.Approvals {
		s.set[[2]string{a.Workspace, a.Fingerprint}] = true
	}
	if !s.set[[2]string{ws, fingerprint}] {
		f.Approvals = append(f.Approvals, approval{Workspace: ws, Fingerprint: fingerprint, Rule: rule, ApprovedAt: s.now().UTC()})
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrApprovedStore, err)
	}
	if err := statefile.WriteAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("%w: %v", ErrApprovedStore, err)
	}
	s.set[[2]string{ws, fingerprint}] = true
	return nil
}

// MemoryApprovedStore keeps approvals in memory, for tests and for runs
// without a state directory.
type MemoryApprovedStore struct {
	mu  sync.Mutex
	set map[[2]string]string
}

// NewMemoryApprovedStore returns an empty in-memory store.
func NewMemoryApprovedStore() *MemoryApprovedStore {
	return &MemoryApprovedStore{set: map[[2]string]string{}}
}

// Approved implements ApprovedStore.
func (s *MemoryApprovedStore) Approved(workspace, fingerprint string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.set[[2]string{filepath.Clean(workspace), fingerprint}]
	return ok
}

// Approve implements ApprovedStore.
func (s *MemoryApprovedStore) Approve(workspace, fingerprint, rule string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set[[2]string{filepath.Clean(workspace), fingerprint}] = rule
	return nil
}
