package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/telemetry/redact"
)

// journal is the SQLite Journal of one session. It holds a connection of
// its own with its statements prepared, so an append costs one
// transaction and no parsing.
type journal struct {
	s  *SQLite
	id string

	mu     sync.Mutex
	lock   *sessionLock
	conn   *sql.Conn
	insert *sql.Stmt
	update *sql.Stmt
	begin  *sql.Stmt
	end    *sql.Stmt
	// rowAt is when the sessions row was last brought up to date,
	// committedAt when events were last committed.
	rowAt, committedAt time.Time
	pending            []encoded
	// memo spares re-scanning the texts a turn repeats (a result in its
	// tool.result event and in the tool message); reset at each commit.
	memo redact.Memo
	// lastSeq is the sequence number of the last committed event and
	// lastChain its chain link (see chain.go).
	lastSeq   int64
	lastChain []byte
	// checkpointed is the event of the session's newest checkpoint.
	checkpointed int64
	// headFile records the last durable event outside the database;
	// nil when it could not be opened (the head check then has no
	// evidence for this session, nothing else changes).
	headFile *os.File
	// Aggregates of the pending events for the sessions row.
	title    string
	hasTitle bool
	status   string
	usage    model.Usage
	// err is sticky: after a failed commit the record has a hole, and
	// appending on would hide it.
	err    error
	closed bool
}

var _ Journal = (*journal)(nil)

// Journal implements Store. A session has at most one open journal per
// store; a second Journal call for it fails until the first is closed.
func (s *SQLite) Journal(ctx context.Context, id string) (Journal, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	info, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if _, open := s.journals[info.ID]; open {
		s.mu.Unlock()
		return nil, fmt.Errorf("session: %s already has an open journal in this process; close it first", info.ID)
	}
	lock, err := lockSession(s.path, info.ID)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	j := &journal{s: s, id: info.ID, lock: lock, hasTitle: info.Title != ""}
	s.journals[info.ID] = j
	s.mu.Unlock()
	// Read the count again under the lock: a process that held it until
	// a moment ago may have appended since Get.
	if err := j.prepare(ctx); err != nil {
		s.mu.Lock()
		delete(s.journals, info.ID)
		s.mu.Unlock()
		j.release()
		return nil, describe(s.path, "opening the session journal", err)
	}
	return j, nil
}

func (j *journal) prepare(ctx context.Context) error {
	var err error
	if j.conn, err = j.s.db.Conn(ctx); err != nil {
		return err
	}
	err = j.conn.QueryRowContext(ctx, `SELECT seq, chain FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1`, j.id).Scan(&j.lastSeq, &j.lastChain)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if j.lastSeq > 0 && len(j.lastChain) != chainSize {
		return corruptSession(j.s.path, j.id, fmt.Sprintf("its event %d has no chain link", j.lastSeq))
	}
	err = j.conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM checkpoints WHERE session_id = ?`, j.id).Scan(&j.checkpointed)
	if err != nil {
		return err
	}
	if err := j.durable(ctx, true); err != nil {
		return err
	}
	if j.s.storeID != "" {
		j.headFile, _ = os.OpenFile(headPath(j.s.path, j.id), os.O_RDWR|os.O_CREATE, 0o600)
	}
	j.insert, err = j.conn.PrepareContext(ctx, `INSERT INTO events (session_id, seq, type, time, payload, idempotency_key, call_id, chain)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	j.update, err = j.conn.PrepareContext(ctx, `UPDATE sessions SET
			updated = ?,
			input_tokens = input_tokens + ?,
			output_tokens = output_tokens + ?,
			status = CASE WHEN ? = '' THEN status ELSE ? END,
			title = CASE WHEN title = '' THEN ? ELSE title END
		WHERE id = ?`)
	if err != nil {
		return err
	}
	j.begin, err = j.conn.PrepareContext(ctx, `BEGIN IMMEDIATE`)
	if err != nil {
		return err
	}
	j.end, err = j.conn.PrepareContext(ctx, `COMMIT`)
	return err
}

// release frees the journal's statements and connection.
func (j *journal) release() {
	if j.conn != nil {
		j.durable(context.Background(), false) // the connection goes back to the pool
	}
	for _, st := range []*sql.Stmt{j.insert, j.update, j.begin, j.end} {
		if st != nil {
			st.Close()
		}
	}
	if j.conn != nil {
		j.conn.Close()
	}
	if j.headFile != nil {
		j.headFile.Close()
	}
	j.lock.unlock()
}

// SessionID implements Journal.
func (j *journal) SessionID() string { return j.id }

// Append implements agent.Journal. Deltas are dropped unless the store
// keeps them; barrier events (see isBarrier) and full batches are
// committed before Append returns.
func (j *journal) Append(ctx context.Context, ev agent.Event) error {
	if ev.RunID != "" && ev.RunID != j.id {
		return fmt.Errorf("session: an event of run %s was appended to the journal of session %s; give the conversation the session's id", ev.RunID, j.id)
	}
	if isDelta(ev.Type) && !j.s.cfg.StoreDeltas {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usable(); err != nil {
		return err
	}
	e, err := encodeEvent(&j.memo, ev)
	if err != nil {
		return err
	}
	j.pending = append(j.pending, e)
	j.aggregate(ev)
	if isBarrier(ev.Type) || len(j.pending) >= j.s.cfg.BatchSize {
		return j.flushLocked(ctx)
	}
	return nil
}

// aggregate folds ev into the sessions-row updates of the pending batch.
func (j *journal) aggregate(ev agent.Event) {
	if ev.AgentPath != "" && ev.Type != agent.EventUsage {
		// A sub-agent's start, end and prompt are not the session's;
		// its usage is.
		return
	}
	switch ev.Type {
	case agent.EventSessionStarted:
		j.status = StatusRunning
	case agent.EventSessionCompleted:
		if ev.Outcome != nil {
			j.status = string(ev.Outcome.Kind)
		}
	case agent.EventUsage:
		if ev.Usage != nil {
			j.usage.Add(*ev.Usage)
		}
	case agent.EventMessage:
		if t := userText(ev); t != "" && !j.hasTitle && j.title == "" {
			j.title = clipTitle(redact.String(t))
		}
	}
}

func (j *journal) usable() error {
	switch {
	case j.closed:
		return fmt.Errorf("session: the journal of %s: %w", j.id, ErrClosed)
	case j.err != nil:
		return j.err
	}
	return nil
}

// Flush implements Journal.
func (j *journal) Flush(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usable(); err != nil {
		return err
	}
	return j.flushLocked(ctx)
}

// flushLocked commits the pending events in one transaction.
func (j *journal) flushLocked(ctx context.Context) error {
	if len(j.pending) == 0 {
		return nil
	}
	if err := j.commit(ctx); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			// Nothing was committed and the batch is intact: a later
			// flush with a live context can still write it.
			return err
		}
		j.err = j.s.seen(describe(j.s.path, "recording session "+j.id, err))
		return j.err
	}
	j.lastSeq += int64(len(j.pending))
	j.memo.Reset()
	clear(j.pending)
	j.pending = j.pending[:0]
	if j.title != "" {
		j.hasTitle = true
	}
	j.title, j.status, j.usage = "", "", model.Usage{}
	j.checkpoint(ctx)
	return nil
}

// checkpoint writes a checkpoint when CheckpointEvery events were
// committed since the last one. A failure costs only speed — the next
// resume replays more events — so it is not the run's error; the next
// attempt comes CheckpointEvery events later. A store found damaged is
// noted (SQLite.seen).
func (j *journal) checkpoint(ctx context.Context) {
	every := int64(j.s.cfg.CheckpointEvery)
	if every < 0 || j.lastSeq-j.checkpointed < every {
		return
	}
	j.s.seen(j.s.writeCheckpoint(ctx, j.conn, j.id, j.lastSeq, j.lastChain))
	j.checkpointed = j.lastSeq
}

// rowInterval bounds how stale the sessions row's updated time may get
// while events stream in; status, title and usage changes are written at
// once.
const rowInterval = time.Second

// commit writes the pending events in one transaction on the journal's
// own connection. The transaction is driven with plain BEGIN and COMMIT
// statements rather than database/sql's Tx, which would re-prepare the
// statements on every commit.
func (j *journal) commit(ctx context.Context) (err error) {
	if _, err := j.begin.ExecContext(ctx); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// A failed statement may already have ended the transaction;
			// a rollback then fails harmlessly.
			j.conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
		}
	}()
	chain := j.lastChain
	for i, e := range j.pending {
		seq := j.lastSeq + int64(i) + 1
		chain = link(chain, seq, e.typ, e.time, e.payload)
		if _, err := j.insert.ExecContext(ctx, j.id, seq, e.typ, e.time, e.payload, nullable(e.idem), nullable(e.callID), chain); err != nil {
			if isConstraint(err) {
				return j.conflict(ctx)
			}
			return err
		}
	}
	now := j.s.cfg.Now()
	row := j.status != "" || j.title != "" || j.usage != (model.Usage{}) || now.Sub(j.rowAt) >= rowInterval
	if row {
		res, err := j.update.ExecContext(ctx, now.UnixNano(), j.usage.InputTokens, j.usage.OutputTokens,
			j.status, j.status, j.title, j.id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return j.conflict(ctx)
		}
	}
	if _, err := j.end.ExecContext(ctx); err != nil {
		return err
	}
	j.lastChain = chain
	j.writeHead(head{seq: j.lastSeq + int64(len(j.pending)), chain: chain})
	j.committedAt = now
	if row {
		j.rowAt = now
	}
	return nil
}

// durable puts the journal's connection at synchronous=FULL (on) or back
// at the store's setting (off). Every journal commit is durable: a
// tool.call is journaled before its tool runs, so the tool's effect may
// exist only if the record survives a power cut or an OS crash, and the
// head written after each commit (writeHead) must never claim more than
// the disk holds.
func (j *journal) durable(ctx context.Context, on bool) error {
	mode := "FULL"
	if !on && j.s.cfg.Sync != SyncFull || j.s.cfg.Sync == SyncUnsafeBulk {
		mode = "NORMAL"
	}
	_, err := j.conn.ExecContext(ctx, `PRAGMA synchronous = `+mode)
	return err
}

// writeHead records h as the session's last durable event (see chain.go).
// It is one write of a fixed-length line at offset 0, never fsynced: a
// head older than the database is no false alarm, and one the disk lost
// or tore fails its CRC and is ignored. A failed write only weakens the
// check, so it is not an error of the run.
func (j *journal) writeHead(h head) {
	if j.headFile != nil && j.s.cfg.Sync != SyncUnsafeBulk {
		j.headFile.WriteAt(headLine(j.s.storeID, h), 0)
	}
}

// conflict explains why the session row did not match: it was deleted, or
// another journal appended to it.
func (j *journal) conflict(ctx context.Context) error {
	var rows int
	if err := j.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, j.id).Scan(&rows); err != nil {
		return err
	}
	if rows == 0 {
		return fmt.Errorf("%w: session %s was deleted while its run was recording", ErrNotFound, j.id)
	}
	var events int64
	if err := j.conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?`, j.id).Scan(&events); err != nil {
		return err
	}
	return fmt.Errorf("%w: session %s has %d events but this run wrote %d; another rein is using it — let that run finish, then resume or fork", ErrConcurrentWriter, j.id, events, j.lastSeq)
}

// Close implements Journal: it commits what is pending and releases the
// journal. It is idempotent.
func (j *journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	var err error
	if j.err == nil {
		err = j.flushLocked(context.Background())
	}
	if err == nil && j.err == nil && j.committedAt.After(j.rowAt) {
		// Bring the row's updated time up to the last event, so that
		// --continue picks the session used last.
		_, err = j.update.ExecContext(context.Background(), j.committedAt.UnixNano(), 0, 0, "", "", "", j.id)
		err = describe(j.s.path, "recording session "+j.id, err)
	}
	j.closed = true
	j.release()
	j.s.mu.Lock()
	delete(j.s.journals, j.id)
	j.s.mu.Unlock()
	return err
}
