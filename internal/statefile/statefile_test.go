package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "store.json")
	var v map[string]int
	if found, err := ReadJSON(path, &v); found || err != nil || v != nil {
		t.Fatalf("missing file: found %v err %v v %v", found, err, v)
	}
	if err := WriteJSON(path, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, %v; want 0600", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", di.Mode())
	}
	if found, err := ReadJSON(path, &v); !found || err != nil || v["a"] != 1 {
		t.Fatalf("read back: found %v err %v v %v", found, err, v)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.json")
	os.WriteFile(path, []byte("{not json"), 0o600)
	var v map[string]int
	found, err := ReadJSON(path, &v)
	if !found || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("found %v err %v, want ErrCorrupt", found, err)
	}
}

func TestWriteIntoMissingParentFails(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	if err := WriteAtomic(filepath.Join(blocker, "x.json"), []byte("{}"), 0o600); err == nil {
		t.Fatal("writing under a regular file succeeded")
	}
}
