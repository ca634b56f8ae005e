// Package memory is rein's long-term memory: short notes the user and the
// agent keep across sessions, in two scopes — user (every workspace) and
// workspace (keyed by the canonical workspace path) — searchable, capped
// and redacted before they are stored.
//
// A Store keeps entries; SQLite (sqlite.go) is the implementation rein
// uses, with FTS5 full-text search when the SQLite build has it and a
// plain term scorer otherwise. memorytest holds the conformance suite any
// Store must pass. Ranking is a seam (Ranker): the store finds candidates,
// a Ranker orders them, so an embedding model can reorder by similarity
// without a new store (see docs/memory.md).
//
// Memories are notes, not instructions: text that came from a tool result
// is marked SourceTool, and Index renders entries escaped so that no
// entry can forge a section of the system prompt.
package memory

import (
	"context"
	"errors"
	"time"
)

// Scope says where an entry is visible.
type Scope string

const (
	// ScopeUser entries are visible in every workspace.
	ScopeUser Scope = "user"
	// ScopeWorkspace entries are visible only in their workspace.
	ScopeWorkspace Scope = "workspace"
)

// SourceKind says who wrote an entry.
type SourceKind string

const (
	// SourceUser is the user (chat's #, rein memory import/edit).
	SourceUser SourceKind = "user"
	// SourceAgent is the model, through the remember tool.
	SourceAgent SourceKind = "agent"
	// SourceTool is the model writing text that came from a tool result
	// of the same session (a web page, a repository file): possibly
	// hostile, always shown marked.
	SourceTool SourceKind = "tool-derived"
)

// Source is an entry's provenance.
type Source struct {
	Kind      SourceKind `json:"kind"`
	SessionID string     `json:"session_id,omitempty"`
}

// Entry is one memory.
type Entry struct {
	ID    string `json:"id"`
	Scope Scope  `json:"scope"`
	// Workspace is the canonical workspace path of a workspace-scoped
	// entry; empty for user-scoped ones.
	Workspace string    `json:"workspace,omitempty"`
	Text      string    `json:"text"`
	Tags      []string  `json:"tags,omitempty"`
	Source    Source    `json:"source"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
}

// VisibleIn reports whether e may be shown in workspace: user entries
// everywhere, workspace entries only in their own workspace.
func (e Entry) VisibleIn(workspace string) bool {
	return e.Scope == ScopeUser || e.Scope == ScopeWorkspace && e.Workspace == workspace && workspace != ""
}

// Filter selects entries for List and Search. Workspace is the workspace
// the caller is in: its entries and the user's are visible, no other
// workspace's. Scope narrows to one scope ("" means both). AllWorkspaces
// lifts the workspace restriction (rein memory list --all, export).
type Filter struct {
	Scope         Scope
	Workspace     string
	AllWorkspaces bool
	// Limit caps the entries returned; 0 means DefaultLimit.
	Limit int
}

// Hit is an entry found by Search with its relevance (higher is better;
// comparable only within one result list).
type Hit struct {
	Entry
	Score float64 `json:"score"`
}

// Store keeps memories. Implementations must be safe for concurrent use
// by goroutines; SQLite is also safe across processes.
type Store interface {
	// Put stores e. An empty ID creates a new entry (ID, Created and
	// Updated are set); an existing ID replaces that entry's text, tags
	// and source, keeping Created and its scope and workspace. Text and
	// tags are redacted (Prepare) before anything is written. Errors:
	// ErrInvalid, ErrTooLarge, ErrFull, ErrNotFound (unknown ID).
	Put(ctx context.Context, e Entry) (Entry, error)
	// Get returns the entry with id, in any workspace, or ErrNotFound.
	// Callers acting for one workspace check Entry.VisibleIn.
	Get(ctx context.Context, id string) (Entry, error)
	// Delete removes the entry with id, or returns ErrNotFound.
	Delete(ctx context.Context, id string) error
	// List returns the entries f selects, most recently updated first.
	List(ctx context.Context, f Filter) ([]Entry, error)
	// Search returns the entries f selects that match query (see
	// ParseQuery), best first. An empty query matches nothing.
	Search(ctx context.Context, query string, f Filter) ([]Hit, error)
	// Close releases the store.
	Close() error
}

// Errors. Every error a Store returns wraps one of these where it applies.
var (
	ErrNotFound = errors.New("memory: no such entry")
	ErrInvalid  = errors.New("memory: invalid entry")
	ErrTooLarge = errors.New("memory: entry too large")
	ErrFull     = errors.New("memory: store full")
)

// Limits and defaults.
const (
	// DefaultMaxEntryBytes caps one entry's text: a memory is a note.
	DefaultMaxEntryBytes = 2 << 10
	// DefaultMaxTotalBytes caps the whole store (text and tags).
	DefaultMaxTotalBytes = 4 << 20
	// MaxTags and MaxTagBytes cap an entry's tags.
	MaxTags     = 16
	MaxTagBytes = 64
	// DefaultLimit is List's and Search's result count when Filter.Limit
	// is 0; MaxLimit caps any Limit.
	DefaultLimit = 50
	MaxLimit     = 1000
)
