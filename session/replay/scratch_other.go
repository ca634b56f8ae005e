//go:build !linux

package replay

import (
	"io/fs"
	"os"
)

// fileID is empty off Linux, where hard links are not looked for.
type fileID struct{}

func hardLinked(fs.FileInfo) (fileID, bool) { return fileID{}, false }

// applyMeta keeps the permission bits and the modification time, which is
// what the platform lets a copy set.
func applyMeta(path string, info fs.FileInfo) error {
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	if err := os.Chmod(path, info.Mode().Perm()); err != nil {
		return err
	}
	return os.Chtimes(path, info.ModTime(), info.ModTime())
}
