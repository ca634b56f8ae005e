package workspace

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"unicode/utf8"
)

// Stat returns file information for name, following symlinks that stay
// inside the workspace.
func (w *Workspace) Stat(name string) (fs.FileInfo, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Stat(rel)
	return fi, w.wrap("stat", name, err)
}

// Lstat returns file information for name without following a final
// symlink.
func (w *Workspace) Lstat(name string) (fs.FileInfo, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Lstat(rel)
	return fi, w.wrap("lstat", name, err)
}

// ReadDir lists a directory, sorted by name. Entries are not followed: a
// symlink is reported as a symlink.
func (w *Workspace) ReadDir(name string) ([]fs.DirEntry, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(w.root.FS(), rel)
	return entries, w.wrap("read directory", name, err)
}

// Readlink returns the target of the symlink name (which itself must be
// inside the workspace; the target may point anywhere and is not followed).
func (w *Workspace) Readlink(name string) (string, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return "", err
	}
	target, err := w.root.Readlink(rel)
	return target, w.wrap("readlink", name, err)
}

// ReadFile reads a regular file whole. Files over the read cap fail with
// ErrTooLarge; devices, FIFOs and sockets are refused so a read can never
// block or stream forever.
func (w *Workspace) ReadFile(name string) ([]byte, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return nil, err
	}
	return w.readRel(name, rel, w.opts.MaxReadBytes)
}

// ReadText reads a file like ReadFile and fails with ErrBinary when it
// does not look like text (see IsBinary).
func (w *Workspace) ReadText(name string) (string, error) {
	b, err := w.ReadFile(name)
	if err != nil {
		return "", err
	}
	if IsBinary(b) {
		return "", fmt.Errorf("%w: %s (%d bytes); only text files can be read this way", ErrBinary, name, len(b))
	}
	return string(b), nil
}

// OpenFile opens a regular file for streaming reads (grep, hashing). The
// caller closes it.
func (w *Workspace) OpenFile(name string) (*os.File, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return nil, err
	}
	return w.openRegular(name, rel)
}

func (w *Workspace) openRegular(name, rel string) (*os.File, error) {
	// O_NONBLOCK keeps a FIFO from blocking the open; it has no effect on
	// regular files, which are the only ones we go on to read.
	f, err := w.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, w.wrap("open", name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, w.wrap("stat", name, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("read %s: is a directory; use list_dir to see its entries", name)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("read %s: not a regular file (%s)", name, fi.Mode().Type())
	}
	return f, nil
}

func (w *Workspace) readRel(name, rel string, limit int64) ([]byte, error) {
	f, err := w.openRegular(name, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, w.wrap("stat", name, err)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the %d-byte read limit", ErrTooLarge, name, fi.Size(), limit)
	}
	// Read one byte past the limit: a file that grew since Stat must not
	// slip through.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, w.wrap("read", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s is over the %d-byte read limit", ErrTooLarge, name, limit)
	}
	return b, nil
}

// IsBinary reports whether b looks like binary data: a NUL byte or invalid
// UTF-8 in the first 8 KiB. A multi-byte character cut by the 8 KiB window
// does not count as invalid.
func IsBinary(b []byte) bool {
	if len(b) > binarySniffBytes {
		b = b[:binarySniffBytes]
		// Drop a trailing partial rune the window may have cut.
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
			r, size := utf8.DecodeLastRune(b)
			if r != utf8.RuneError || size != 1 {
				break
			}
			b = b[:len(b)-1]
		}
	}
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return !utf8.Valid(b)
}
