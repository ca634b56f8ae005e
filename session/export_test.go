package session

import "context"

// DeleteRow deletes a session row directly, as another process could,
// for tests of the journal's conflict detection.
func DeleteRow(s *SQLite, id string) error {
	_, err := s.db.ExecContext(context.Background(), `DELETE FROM sessions WHERE id = ?`, id)
	return err
}

// Exec runs a statement on the store's database, for tests that set up
// states the API never produces (a newer schema version).
func Exec(s *SQLite, query string, args ...any) error {
	_, err := s.db.ExecContext(context.Background(), query, args...)
	return err
}

// Rebuild decodes stored payloads as Load does and folds them into a
// Snapshot, for the fuzz target of the decoder and the rebuild.
func Rebuild(payloads [][]byte) (*Snapshot, error) {
	b := newRebuilder(Info{ID: "fuzz"})
	for i, p := range payloads {
		ev, err := decodeState(p)
		if err != nil {
			return nil, corruptEvent("fuzz.db", "fuzz", int64(i+1), err)
		}
		b.add(ev)
	}
	return b.finish(), nil
}

// QueryInt reads one integer from the store's database, for tests.
func QueryInt(s *SQLite, query string, dst *int) error {
	return s.db.QueryRowContext(context.Background(), query).Scan(dst)
}
