package session

import (
	"fmt"
	"hash/crc32"
	"os"
	"strings"
)

// The clean-shutdown marker, <database>.clean, records the database file
// as the last store to close it left it: size, modification and change
// times and inode (fileKey). The last connection to close a WAL database
// checkpoints it and deletes the WAL, so a shutdown was clean when the
// marker matches the file and there is no WAL. Anything else — a crash or
// power cut (a WAL is left), another program writing the file (its times
// change), another rein using it now — makes Open run the full checks.
// The marker never needs removing: any write to the database makes it
// stale.

// markerPath is the clean-shutdown marker of the database at path.
func markerPath(path string) string { return path + ".clean" }

// markerLine is the marker's content for the database at path now.
func markerLine(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	body := "rein-clean 1 " + fileKey(fi)
	return fmt.Sprintf("%s %08x\n", body, crc32.ChecksumIEEE([]byte(body))), nil
}

// wasClean reports whether the database at path was left by a clean
// shutdown and not touched since.
func wasClean(path string) bool {
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 || err != nil && !os.IsNotExist(err) {
		return false
	}
	want, err := markerLine(path)
	if err != nil {
		return false
	}
	got, err := os.ReadFile(markerPath(path))
	return err == nil && string(got) == want
}

// markClean writes the marker after the store closed its database. A
// WAL still there means another process has the database open: it will
// write the marker when it closes, and until then the file is not clean.
// Failing to write the marker only costs the next start the full checks.
func markClean(path string) {
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		return
	}
	line, err := markerLine(path)
	if err != nil {
		return
	}
	tmp := markerPath(path) + ".tmp-" + strings.TrimPrefix(NewID(), "s")
	if err := os.WriteFile(tmp, []byte(line), 0o600); err != nil {
		os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, markerPath(path)); err != nil {
		os.Remove(tmp)
	}
}
