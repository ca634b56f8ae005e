// Package statefile reads and writes the small JSON files rein keeps in
// its state directory (trust stores, approvals): written whole through a
// temporary file and a rename, so a crash leaves the old file or the new
// one, never half of either, and readable only by their owner.
package statefile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteAtomic writes data to path with perm, creating the directory
// (mode 0700) when missing. The data reaches the disk (fsync) before the
// rename makes it visible.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteJSON writes v as indented JSON with a final newline (mode 0600).
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteAtomic(path, append(data, '\n'), 0o600)
}

// ErrCorrupt wraps the decoding error of a file that exists but is not
// the JSON its reader expects.
var ErrCorrupt = errors.New("not a valid state file")

// ReadJSON decodes the file at path into v. A missing file is not an
// error: found is false and v is untouched.
func ReadJSON(path string, v any) (found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, errors.Join(ErrCorrupt, err)
	}
	return true, nil
}
