package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Scratch copies the workspace src into a new temporary directory and
// returns it with a function that removes it. The copy keeps regular
// files (with their permission bits), directories and symbolic links (as
// links, not followed); other file types are left out. The copy is of
// the workspace as it is now, not as it was when the session ran.
func Scratch(ctx context.Context, src string) (dir string, cleanup func(), err error) {
	fi, err := os.Stat(src)
	if err != nil {
		return "", nil, fmt.Errorf("replay: the workspace %s: %w", src, err)
	}
	if !fi.IsDir() {
		return "", nil, fmt.Errorf("replay: the workspace %s is not a directory", src)
	}
	dir, err = os.MkdirTemp("", "rein-replay-")
	if err != nil {
		return "", nil, fmt.Errorf("replay: creating a scratch directory: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := CopyTree(ctx, src, dir); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// CopyTree copies the tree at src into the existing directory dst.
func CopyTree(ctx context.Context, src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("replay: copying the workspace: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case d.IsDir():
			if rel == "." {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.Mkdir(target, info.Mode().Perm()|0o700)
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case t.IsRegular():
			return copyFile(path, target)
		}
		return nil // sockets, devices, pipes: not workspace content
	})
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("replay: copying the workspace: %w", err)
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return fmt.Errorf("replay: copying the workspace: %w", err)
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("replay: copying %s: %w", src, err)
	}
	return nil
}
