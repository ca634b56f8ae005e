package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/workspace"
)

// errNothingToUndo reports a session with no tool call left to undo.
var errNothingToUndo = errors.New("nothing to undo: no tool call of the session changed files (or all were undone)")

// undoCallPrefix marks the workspace changes an undo makes, so they are
// never taken for a tool call's changes.
const undoCallPrefix = "undo:"

// changedCall is one tool call of a session that changed files, read back
// from its file.change events.
type changedCall struct {
	key     string // the call's idempotency key
	tool    string // the tool's name, "" when the call event is missing
	id      string // the model's call id
	changes []agent.FileChange
}

// describe names the call for messages: "the write_file call w1".
func (c changedCall) describe() string {
	if c.tool == "" {
		return "the tool call " + c.key
	}
	return fmt.Sprintf("the %s call %s", c.tool, c.id)
}

// undoableCalls returns the session's tool calls that changed files and
// were not undone yet, oldest first, from every run of the session.
func undoableCalls(ctx context.Context, store *session.SQLite, id string) ([]changedCall, error) {
	// This process's journal may hold events not committed yet.
	if err := store.Flush(ctx, id); err != nil {
		return nil, err
	}
	undone, err := store.Undone(ctx, id)
	if err != nil {
		return nil, err
	}
	type ref struct{ tool, id string }
	refs := map[string]ref{}
	byKey := map[string]*changedCall{}
	var order []string
	for rec, err := range store.Events(ctx, id) {
		if err != nil {
			return nil, err
		}
		ev := rec.Event
		switch {
		case ev.Type == agent.EventToolCall && ev.IdempotencyKey != "" && ev.ToolCall != nil:
			refs[ev.IdempotencyKey] = ref{ev.ToolCall.Name, ev.ToolCall.ID}
		case ev.Type == agent.EventFileChange && ev.FileChange != nil:
			fc := *ev.FileChange
			if undone[fc.CallKey] || fc.CallKey == "" {
				continue
			}
			c, ok := byKey[fc.CallKey]
			if !ok {
				c = &changedCall{key: fc.CallKey}
				byKey[fc.CallKey] = c
				order = append(order, fc.CallKey)
			}
			c.changes = append(c.changes, fc)
		}
	}
	out := make([]changedCall, 0, len(order))
	for _, k := range order {
		c := *byKey[k]
		c.tool, c.id = refs[k].tool, refs[k].id
		out = append(out, c)
	}
	return out, nil
}

// undoneCall is what undoing one call did, per file.
type undoneCall struct {
	call  changedCall
	lines []string
}

// undoCalls reverts the newest n not yet undone tool calls of session id
// in ws, newest first, each call's files all at once or not at all, and
// records each undo in the store. It stops at the first call it cannot
// undo — a file changed since (its content is not what the call left), or
// a before-image that was not kept — naming the file, and returns what it
// undid before.
func undoCalls(ctx context.Context, store *session.SQLite, id string, ws *workspace.Workspace, n int) ([]undoneCall, error) {
	calls, err := undoableCalls(ctx, store, id)
	if err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, errNothingToUndo
	}
	var done []undoneCall
	for i := len(calls) - 1; i >= 0 && len(done) < n; i-- {
		c := calls[i]
		lines, err := undoOneCall(ctx, store, id, ws, c)
		if err != nil {
			return done, err
		}
		if err := store.MarkUndone(ctx, id, c.key); err != nil {
			return done, err
		}
		done = append(done, undoneCall{call: c, lines: lines})
	}
	return done, nil
}

// undoOneCall restores the files of one call in a single workspace
// transaction, its changes newest first.
func undoOneCall(ctx context.Context, store *session.SQLite, id string, ws *workspace.Workspace, c changedCall) ([]string, error) {
	// The images are read before the transaction: it holds the
	// workspace's lock and must be quick.
	images := map[string][]byte{}
	for _, fc := range c.changes {
		if fc.BeforeHash == "" {
			continue
		}
		data, ok, err := store.Image(ctx, id, fc.BeforeHash)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("cannot undo %s: the content %s had before it was not kept (over the %d MiB limit per file or the session's image limit); it was left as it is",
				c.describe(), fc.Path, session.DefaultMaxImageBytes>>20)
		}
		images[fc.BeforeHash] = data
	}
	_, err := ws.Transact(workspace.WithCallID(ctx, undoCallPrefix+c.key), func(tx *workspace.Tx) error {
		for i := len(c.changes) - 1; i >= 0; i-- {
			fc := c.changes[i]
			cur, err := stagedHash(tx, fc.Path)
			if err != nil {
				return err
			}
			if cur != fc.AfterHash {
				return fmt.Errorf("cannot undo %s: %s was changed since (by hand, a command or a later call); it was left as it is", c.describe(), fc.Path)
			}
			if fc.BeforeHash == "" {
				if err := tx.Remove(fc.Path); err != nil {
					return err
				}
				continue
			}
			if err := tx.WriteFile(fc.Path, images[fc.BeforeHash], 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return describeFileUndo(c.changes), nil
}

// stagedHash is the hash of name as the transaction sees it, "" when
// absent.
func stagedHash(tx *workspace.Tx, name string) (string, error) {
	ok, err := tx.Exists(name)
	if err != nil || !ok {
		return "", err
	}
	data, err := tx.ReadFile(name)
	if err != nil {
		return "", err
	}
	return session.ImageHash(data), nil
}

// describeFileUndo says per file what undoing changes (oldest first) did.
func describeFileUndo(changes []agent.FileChange) []string {
	type span struct{ created, deleted bool }
	byPath := map[string]*span{}
	var order []string
	for _, c := range changes {
		sp, ok := byPath[c.Path]
		if !ok {
			sp = &span{created: c.BeforeHash == ""}
			byPath[c.Path] = sp
			order = append(order, c.Path)
		}
		sp.deleted = c.AfterHash == ""
	}
	out := make([]string, 0, len(order))
	for _, p := range order {
		switch sp := byPath[p]; {
		case sp.created && sp.deleted:
			out = append(out, "nothing to restore for "+p+" (the call created and removed it)")
		case sp.created:
			out = append(out, "removed "+p+" (the call created it)")
		case sp.deleted:
			out = append(out, "restored "+p+" (the call deleted it)")
		default:
			out = append(out, "restored "+p)
		}
	}
	return out
}
