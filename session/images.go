package session

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// Default caps on the before-images a session keeps for undo.
const (
	DefaultMaxImageBytes        = 8 << 20   // 8 MiB per file
	DefaultMaxSessionImageBytes = 256 << 20 // 256 MiB per session
)

// ImageHash returns the key an image is stored under: the hex SHA-256 of
// its content, as the workspace journal and file.change events record it.
func ImageHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// PutImage keeps data, the content a file had before a tool call changed
// it, so that the change can be undone in a later process. Images are
// content addressed (stored once whatever the number of sessions and
// changes that refer to them) and capped: an image over MaxImageBytes, or
// one that would take the session over MaxSessionImageBytes, is not kept
// and PutImage reports false. The bytes are stored as they are: undo must
// restore the file exactly, so before-images are not redacted (they are
// the user's own files, already on this disk, and the store is private
// to the user, mode 0600 under a 0700 directory).
func (s *SQLite) PutImage(ctx context.Context, sessionID string, data []byte) (kept bool, err error) {
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	if int64(len(data)) > s.cfg.MaxImageBytes {
		return false, nil
	}
	hash := ImageHash(data)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var have int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM images WHERE session_id = ? AND hash = ?`, sessionID, hash).Scan(&have)
		if err != nil || have > 0 {
			kept = err == nil
			return err
		}
		var used int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(size), 0) FROM images WHERE session_id = ?`, sessionID).Scan(&used); err != nil {
			return err
		}
		if used+int64(len(data)) > s.cfg.MaxSessionImageBytes {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)`, hash, data); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO images (session_id, hash, size) VALUES (?, ?, ?)`, sessionID, hash, len(data)); err != nil {
			return err
		}
		kept = true
		return nil
	})
	if err != nil {
		return false, describe(s.path, "keeping a before-image", err)
	}
	return kept, nil
}

// Image returns the before-image with the given hash that session
// sessionID kept, and false when it kept none (the file was too large, or
// the change predates the store's images).
func (s *SQLite) Image(ctx context.Context, sessionID, hash string) ([]byte, bool, error) {
	if err := s.checkOpen(); err != nil {
		return nil, false, err
	}
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT b.data FROM images i JOIN blobs b ON b.hash = i.hash
		WHERE i.session_id = ? AND i.hash = ?`, sessionID, hash).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, describe(s.path, "reading a before-image", err)
	}
	// The hash is the key: a damaged row must not be written back into
	// the user's file.
	if ImageHash(data) != hash {
		return nil, false, fmt.Errorf("%w: the before-image %s… does not match its hash", ErrCorrupt, hash[:min(12, len(hash))])
	}
	return data, true, nil
}

// MarkUndone records that the changes of the tool call with idempotency
// key callKey were undone, so the next undo reaches further back.
func (s *SQLite) MarkUndone(ctx context.Context, sessionID, callKey string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO undone (session_id, call_key, time) VALUES (?, ?, ?)`,
			sessionID, callKey, s.cfg.Now().UnixNano())
		return err
	})
	if err != nil {
		return describe(s.path, "recording an undo", err)
	}
	return nil
}

// Undone returns the idempotency keys of the tool calls of session
// sessionID whose changes were undone.
func (s *SQLite) Undone(ctx context.Context, sessionID string) (map[string]bool, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT call_key FROM undone WHERE session_id = ?`, sessionID)
	if err != nil {
		return nil, describe(s.path, "reading undone calls", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, describe(s.path, "reading undone calls", err)
		}
		out[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, describe(s.path, "reading undone calls", err)
	}
	return out, nil
}

// forkImages gives a fork the parent's images and undo records.
func forkImages(ctx context.Context, tx *sql.Tx, from, to string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO images (session_id, hash, size) SELECT ?, hash, size FROM images WHERE session_id = ?`, to, from); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO undone (session_id, call_key, time) SELECT ?, call_key, time FROM undone WHERE session_id = ?`, to, from)
	return err
}

// deleteImages drops a deleted session's images and undo records, and the
// blobs no other session refers to.
func deleteImages(ctx context.Context, tx *sql.Tx, id string) error {
	for _, q := range []string{
		`DELETE FROM images WHERE session_id = ?`,
		`DELETE FROM undone WHERE session_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM images WHERE images.hash = blobs.hash)`)
	return err
}
