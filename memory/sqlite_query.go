package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// entryCols are an entry's columns on the alias e, in scanEntry's order.
const entryCols = `e.id, e.scope, e.workspace, e.text, e.tags, e.source_kind, e.session_id, e.created, e.updated`

const selectEntry = `SELECT ` + entryCols + ` FROM entries e`

type rowScanner interface{ Scan(dest ...any) error }

func scanEntry(r rowScanner, extra ...any) (Entry, error) {
	var (
		e                Entry
		scope, kind, tag string
		created, updated int64
	)
	err := r.Scan(append([]any{&e.ID, &scope, &e.Workspace, &e.Text, &tag, &kind, &e.Source.SessionID, &created, &updated}, extra...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, ErrNotFound
	}
	if err != nil {
		return Entry{}, fmt.Errorf("memory: reading: %w", err)
	}
	e.Scope, e.Source.Kind, e.Tags = Scope(scope), SourceKind(kind), SplitTags(tag)
	e.Created, e.Updated = time.UnixMicro(created).UTC(), time.UnixMicro(updated).UTC()
	return e, nil
}

// where returns the SQL condition (on table alias e) and arguments that
// select f's entries, and tag filters.
func where(f Filter, tags []string) (string, []any) {
	var conds []string
	var args []any
	if !f.AllWorkspaces {
		conds = append(conds, `(e.scope = 'user' OR (e.scope = 'workspace' AND e.workspace = ? AND e.workspace != ''))`)
		args = append(args, f.Workspace)
	}
	if f.Scope != "" {
		conds = append(conds, `e.scope = ?`)
		args = append(args, string(f.Scope))
	}
	for _, t := range tags {
		conds = append(conds, `instr(e.tags, ?) > 0`)
		args = append(args, JoinTags([]string{t}))
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

func limitOf(f Filter) int {
	switch {
	case f.Limit <= 0:
		return DefaultLimit
	case f.Limit > MaxLimit:
		return MaxLimit
	}
	return f.Limit
}

// List implements Store.
func (s *SQLite) List(ctx context.Context, f Filter) ([]Entry, error) {
	cond, args := where(f, nil)
	rows, err := s.db.QueryContext(ctx, selectEntry+` WHERE `+cond+` ORDER BY e.updated DESC, e.id LIMIT ?`, append(args, limitOf(f))...)
	if err != nil {
		return nil, fmt.Errorf("memory: listing: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Search implements Store.
func (s *SQLite) Search(ctx context.Context, query string, f Filter) ([]Hit, error) {
	q := ParseQuery(query)
	if q.Empty() {
		return nil, nil
	}
	if len(q.Terms) == 0 { // tags only: newest first
		return s.tagged(ctx, q.Tags, f)
	}
	if s.fts {
		return s.searchFTS(ctx, q, f)
	}
	return s.searchPlain(ctx, q, f)
}

func (s *SQLite) tagged(ctx context.Context, tags []string, f Filter) ([]Hit, error) {
	cond, args := where(f, tags)
	rows, err := s.db.QueryContext(ctx, selectEntry+` WHERE `+cond+` ORDER BY e.updated DESC LIMIT ?`, append(args, limitOf(f))...)
	if err != nil {
		return nil, fmt.Errorf("memory: searching: %w", err)
	}
	return collect(rows, false)
}

func (s *SQLite) searchFTS(ctx context.Context, q Query, f Filter) ([]Hit, error) {
	cond, args := where(f, q.Tags)
	// FTS5's rank (bm25) is computed once per match in the CTE; entries
	// is then reached by its primary key.
	query := `WITH m AS (SELECT id, rank FROM entries_fts WHERE entries_fts MATCH ?) SELECT ` + entryCols +
		`, -m.rank FROM m JOIN entries e ON e.id = m.id WHERE ` + cond + ` ORDER BY m.rank, e.updated DESC LIMIT ?`
	rows, err := s.db.QueryContext(ctx, query, append(append([]any{q.FTS5()}, args...), limitOf(f))...)
	if err != nil {
		return nil, fmt.Errorf("memory: searching: %w", err)
	}
	return collect(rows, true)
}

// searchPlain scores every selected entry in Go: the store is capped
// (DefaultMaxTotalBytes), so this stays a few milliseconds.
func (s *SQLite) searchPlain(ctx context.Context, q Query, f Filter) ([]Hit, error) {
	cond, args := where(f, q.Tags)
	rows, err := s.db.QueryContext(ctx, selectEntry+` WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("memory: searching: %w", err)
	}
	all, err := collect(rows, false)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	for _, h := range all {
		if h.Score = q.Score(h.Text + " " + strings.Join(h.Tags, " ")); h.Score > 0 {
			hits = append(hits, h)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Updated.After(hits[j].Updated)
	})
	return hits[:min(len(hits), limitOf(f))], nil
}

func collect(rows *sql.Rows, scored bool) ([]Hit, error) {
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		var err error
		if scored {
			h.Entry, err = scanEntry(rows, &h.Score)
		} else {
			h.Entry, err = scanEntry(rows)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

func stringsJoin(tags []string) string { return strings.Join(tags, " ") }
