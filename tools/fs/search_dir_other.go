//go:build !linux

package fs

import (
	iofs "io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/reinharness/rein/workspace"
)

// dirHandle is an open directory of a search walk: an os.Root of its own,
// opened from its parent's, so listing it and opening its files cost one
// lookup rather than one per path component, under os.Root's confinement.
type dirHandle struct {
	root *os.Root
}

func openStartDir(ws *workspace.Workspace, rel string) (*dirHandle, error) {
	base, err := os.OpenRoot(ws.Dir())
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return &dirHandle{root: base}, nil
	}
	defer base.Close()
	r, err := base.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return &dirHandle{root: r}, nil
}

func (h *dirHandle) openDir(name string) (*dirHandle, error) {
	r, err := h.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &dirHandle{root: r}, nil
}

func (h *dirHandle) close() { h.root.Close() }

func (h *dirHandle) readDir() ([]iofs.DirEntry, error) {
	d, err := h.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b iofs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

func (h *dirHandle) readFile(name string, buf []byte, limit int64) ([]byte, error) {
	f, err := h.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	return readOpenFile(f, name, buf, limit)
}
