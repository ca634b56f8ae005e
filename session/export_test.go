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
