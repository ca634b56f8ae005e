package fs

import (
	"fmt"
	"io"
	"os"

	"github.com/reinharness/rein/workspace"
)

// joinRel names an entry of the directory rel ("." for the root).
func joinRel(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// readAll reads a file whose size was size when it was opened into buf
// (grown as needed, returned for reuse even on error), with the
// workspace's read cap: there is one byte of room past the size, so a
// file that grew is read on, and one over limit fails with
// workspace.ErrTooLarge. Once size bytes are in, the read stops: a read
// for the end-of-file marker would cost a system call per file, for a
// file that changes while it is searched.
func readAll(read func([]byte) (int, error), buf []byte, size, limit int64, name string) ([]byte, error) {
	if want := int(size) + 1; cap(buf) < want {
		buf = make([]byte, want)
	}
	buf = buf[:cap(buf)]
	n := 0
	for {
		if n == len(buf) {
			if int64(n) > limit {
				break
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := read(buf[n:])
		n += m
		if err == io.EOF || err == nil && m == 0 {
			break
		}
		if err != nil {
			return buf[:0], err
		}
		if size > 0 && int64(n) == size {
			break
		}
	}
	if int64(n) > limit {
		return buf[:0], fmt.Errorf("%w: %s is over the %d-byte read limit", workspace.ErrTooLarge, name, limit)
	}
	return buf[:n], nil
}

// readOpenFile reads an opened file as workspace.ReadFile would: regular
// files only, with the read cap.
func readOpenFile(f *os.File, name string, buf []byte, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return buf, err
	}
	if !fi.Mode().IsRegular() {
		return buf, fmt.Errorf("%s is not a regular file", name)
	}
	if fi.Size() > limit {
		return buf, fmt.Errorf("%w: %s is %d bytes", workspace.ErrTooLarge, name, fi.Size())
	}
	return readAll(f.Read, buf, fi.Size(), limit, name)
}
