// Package session persists agent runs so that a conversation survives the
// process: every event of a run is appended to a per-session journal in a
// SQLite database, and a session can be listed, resumed, forked, replayed
// and deleted.
//
// # Durability
//
// A session is an append-only sequence of agent events. The agent appends
// a tool.call event before the tool runs and its tool.result after; the
// Journal commits a tool.call (and every message, result, decision and
// closing event) before Append returns, batching only the high-volume
// events in between. So after a crash at any point:
//
//   - no committed event is lost;
//   - a call whose result was committed is never run again: Resume hands
//     the model its recorded result;
//   - a call whose tool.call was committed but whose result was not is
//     reported to the model as interrupted, not silently re-run.
//
// Every journal commit is durable: it runs with synchronous=FULL, so the
// WAL is on the disk when Append returns and a power loss or kernel crash
// cannot take a tool.call away from a tool that then ran. After each
// commit the journal writes the session's head (its last event's number
// and chain link) beside the database, and Open refuses a store whose
// sessions end short of their heads or whose events do not verify
// (chain.go, check.go): a damaged file is never resumed with a shorter
// history, and never written to. The other writes (creating, forking,
// deleting sessions) are synchronous=NORMAL unless Config.Sync is
// SyncFull.
//
// # Checkpoints
//
// Every Config.CheckpointEvery events the journal also stores a
// checkpoint: the state Load rebuilds, as of its last event, with that
// event's chain link and a digest (checkpoint.go). Load starts from the
// newest checkpoint whose digest verifies and whose link is the one its
// event carries, and replays only the events after it, verifying their
// chain from that link; a checkpoint that fails a check is ignored and
// every event replayed. The events stay the record: Events, export and
// replay read them all, and Open's checks after an unclean shutdown
// verify every chain as before.
//
// # Secrets
//
// Events are redacted (package telemetry/redact) before they are encoded:
// registered secret values and secret-shaped text never reach the file.
// A resumed conversation is therefore the stored one exactly, with
// [REDACTED] where a secret was.
package session

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// Errors callers can test for with errors.Is. The messages of the errors
// returned wrap them with the database path and the fix.
var (
	// ErrNotFound: no session has the given id (or id prefix).
	ErrNotFound = errors.New("session not found")
	// ErrAmbiguous: an id prefix matches more than one session.
	ErrAmbiguous = errors.New("session id prefix is ambiguous")
	// ErrCorrupt: the database file is not a database, is damaged, or is
	// a SQLite database that is not a rein session store. It was not
	// modified.
	ErrCorrupt = errors.New("session database is unreadable")
	// ErrNewerSchema: the database was written by a newer rein. It was not
	// modified.
	ErrNewerSchema = errors.New("session database is from a newer rein")
	// ErrLocked: another process held the database for longer than the
	// busy timeout.
	ErrLocked = errors.New("session database is locked")
	// ErrConcurrentWriter: another journal appended to the same session
	// since this one last wrote; appending on would interleave two runs.
	ErrConcurrentWriter = errors.New("session is being written by another process")
	// ErrClosed: the store or journal was closed.
	ErrClosed = errors.New("session store is closed")
)

// Status values of a session. A finished run stores its agent.OutcomeKind
// ("complete", "step_limit", "failed", …) as the status.
const (
	// StatusNew: created, no run started yet.
	StatusNew = "new"
	// StatusRunning: a run started and has not recorded its end. Either
	// it is running now or its process died; Resume handles both the same.
	StatusRunning = "running"
)

// Info describes a session.
type Info struct {
	ID string `json:"id"`
	// Workspace is the absolute workspace directory the session ran in.
	Workspace string    `json:"workspace"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// Title is the first user prompt, redacted and cut to TitleMax bytes.
	Title string `json:"title"`
	Model string `json:"model,omitempty"`
	// Parent is the session this one was forked from, "" if none.
	Parent string `json:"parent,omitempty"`
	// Status is StatusNew, StatusRunning or the OutcomeKind of the last
	// finished run.
	Status string `json:"status"`
	// Events counts the stored events.
	Events int64 `json:"events"`
	// Usage sums the token usage of every model call recorded.
	Usage model.Usage `json:"usage"`
}

// TitleMax bounds Info.Title in bytes.
const TitleMax = 120

// Filter selects sessions for List. The zero Filter lists every session,
// newest first, up to DefaultListLimit.
type Filter struct {
	// Workspace, when set, keeps only sessions of that directory.
	Workspace string
	// Limit caps the result; 0 means DefaultListLimit, negative means
	// no limit.
	Limit int
}

// DefaultListLimit is the number of sessions List returns by default.
const DefaultListLimit = 50

// Record is one stored event with its position in the session.
type Record struct {
	// Seq numbers the session's events from 1, without gaps.
	Seq   int64
	Event agent.Event
}

// Snapshot is a session rebuilt from its journal: the conversation as the
// agent last recorded it and the state of every tool call.
type Snapshot struct {
	Info Info
	// Messages is the conversation: every message event, in order.
	Messages []model.Message
	// Finished lists the ids of calls whose result was recorded, in
	// order of their results; an id a server reused appears once per
	// call.
	Finished []string
	// InFlight lists the calls that were journaled as started (tool.call)
	// without a recorded result: they may have run, partly or fully.
	InFlight []model.ToolCall
	// Unanswered lists, in order, the calls of the last assistant message
	// that have no result in the conversation: those in flight, those
	// whose result was recorded but whose tool message was not, and those
	// never started. Resume answers all of them.
	Unanswered []model.ToolCall
	// Results holds the recorded results of Unanswered calls that have
	// one, by call id.
	Results map[string]model.ToolResult
	// Denied holds the ids of Unanswered calls the policy denied: they
	// never ran.
	Denied map[string]bool
	// Started holds the ids of the last assistant message's calls that
	// were journaled as started (tool.call). Like Results and Denied it
	// is keyed by the provider's id, which is unique within one message
	// but not across a session (see rebuilder).
	Started map[string]bool
	// Summaries holds, in order, the compactions that carried a new
	// summary: a Summarize strategy restores them so a resumed session
	// sends what it sent before, without summarizing again.
	Summaries []agent.CompactionInfo
	// Plan is the model's plan as the last plan.updated event left it
	// (nil for none); Resume gives it back to the conversation.
	Plan []agent.PlanItem
	// Children holds, by the id of the root's task call that started
	// them, the tool calls sub-agents (at any depth) finished under that
	// call, in order; Resume summarises them for an interrupted task
	// call so the model knows what already ran.
	Children map[string][]ChildCall
	// LastSeq is the sequence number of the last stored event.
	LastSeq int64
}

// ChildCall is a tool call a sub-agent made, with its result if one was
// recorded.
type ChildCall struct {
	AgentPath string
	Call      model.ToolCall
	Result    *model.ToolResult
}

// Store keeps sessions. Implementations are safe for concurrent use by
// multiple goroutines; the SQLite store is also safe for use by multiple
// processes at once (they serialise on the database's write lock, waiting
// up to the busy timeout). Two journals must not append to one session at
// the same time: the second one to write gets ErrConcurrentWriter.
type Store interface {
	// Create records a new session. info.ID may be empty (a fresh id is
	// minted); info.Workspace is required. It returns the stored Info.
	Create(ctx context.Context, info Info) (Info, error)
	// Get returns a session's Info. id may be a unique prefix.
	Get(ctx context.Context, id string) (Info, error)
	// List returns sessions across workspaces, most recently updated
	// first.
	List(ctx context.Context, f Filter) ([]Info, error)
	// Latest returns the most recently updated session of workspace, or
	// ErrNotFound.
	Latest(ctx context.Context, workspace string) (Info, error)
	// Journal opens the session's journal for appending. Close it when
	// the run is over.
	Journal(ctx context.Context, id string) (Journal, error)
	// Load rebuilds a session from its journal.
	Load(ctx context.Context, id string) (*Snapshot, error)
	// Events yields a session's stored events in order.
	Events(ctx context.Context, id string) iter.Seq2[Record, error]
	// Fork copies a session, events included, into a new session whose
	// Parent is id and whose title says it is a fork ("fork of ID8:
	// title"), and returns the new id.
	Fork(ctx context.Context, id string) (string, error)
	// Delete removes a session and its events.
	Delete(ctx context.Context, id string) error
	// Close releases the store. Journals must be closed first.
	Close() error
}

// Journal is an agent.Journal bound to one session. Append commits every
// event the resume logic depends on before it returns and batches the
// rest (see the package documentation). Flush commits the batch; Close
// flushes and releases the journal. A Journal is safe for concurrent use.
type Journal interface {
	agent.Journal
	// SessionID returns the id of the session the journal appends to.
	SessionID() string
	Flush(ctx context.Context) error
	Close() error
}
