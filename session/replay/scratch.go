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
// returns it with a function that removes it. The copy is at
// TMP/rein-replay-N/<base name of src>, so a command that prints the name
// of its working directory sees the same name.
//
// The copy keeps what a read-only command shows of the tree, so that `ls
// -la`, `stat` or `find -newer` print the same on replay: regular files
// with their content, directories and symbolic links (as links, not
// followed); the full mode (setuid, setgid and sticky bits too), access
// and modification times (of links too), the owner where the user may set
// it, and hard links between files of the tree. What no copy can keep —
// inode numbers, change and birth times, directory sizes, the parent
// directory — is the comparison's to mask. Other file types (sockets,
// devices, pipes) are left out. The copy is of the workspace as it is
// now, not as it was when the session ran.
func Scratch(ctx context.Context, src string) (dir string, cleanup func(), err error) {
	fi, err := os.Stat(src)
	if err != nil {
		return "", nil, fmt.Errorf("replay: the workspace %s: %w", src, err)
	}
	if !fi.IsDir() {
		return "", nil, fmt.Errorf("replay: the workspace %s is not a directory", src)
	}
	parent, err := os.MkdirTemp("", "rein-replay-")
	if err != nil {
		return "", nil, fmt.Errorf("replay: creating a scratch directory: %w", err)
	}
	cleanup = func() { removeTree(parent) }
	dir = filepath.Join(parent, scratchName(src))
	if err := os.Mkdir(dir, 0o700); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("replay: creating a scratch directory: %w", err)
	}
	if err := CopyTree(ctx, src, dir); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// scratchName is the base name of the workspace, or "workspace" for a
// root that has none.
func scratchName(src string) string {
	base := filepath.Base(filepath.Clean(src))
	if base == "." || base == string(filepath.Separator) || base == "" {
		return "workspace"
	}
	return base
}

// removeTree removes dir even where the copy reproduced a directory
// without write permission.
func removeTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// CopyTree copies the tree at src into the existing directory dst and
// gives the copies the metadata of the originals (see Scratch); dst itself
// gets src's.
func CopyTree(ctx context.Context, src, dst string) error {
	c := &treeCopy{links: map[fileID]string{}}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
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
		return c.entry(path, filepath.Join(dst, rel), d, rel == ".")
	})
	if err != nil {
		return err
	}
	// Directories last, deepest first: creating their entries changed
	// their times, and a read-only mode would have refused the entries.
	for i := len(c.dirs) - 1; i >= 0; i-- {
		if err := applyMeta(c.dirs[i].target, c.dirs[i].info); err != nil {
			return fmt.Errorf("replay: copying the workspace: %w", err)
		}
	}
	return nil
}

// treeCopy is the state of one CopyTree.
type treeCopy struct {
	// links maps a file with more than one link to its first copy.
	links map[fileID]string
	// dirs are the directories copied, in walk order.
	dirs []pendingDir
}

type pendingDir struct {
	target string
	info   fs.FileInfo
}

// entry copies one walked entry; root is the tree's top, which exists.
func (c *treeCopy) entry(path, target string, d fs.DirEntry, root bool) error {
	info, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("replay: copying the workspace: %w", err)
	}
	switch t := d.Type(); {
	case d.IsDir():
		c.dirs = append(c.dirs, pendingDir{target, info})
		if root {
			return nil
		}
		return os.Mkdir(target, 0o700)
	case t&fs.ModeSymlink != 0:
		link, err := os.Readlink(path)
		if err != nil {
			return err
		}
		if err := os.Symlink(link, target); err != nil {
			return err
		}
		return applyMeta(target, info)
	case t.IsRegular():
		if id, ok := hardLinked(info); ok {
			if first, seen := c.links[id]; seen {
				return os.Link(first, target)
			}
			c.links[id] = target
		}
		if err := copyFile(path, target); err != nil {
			return err
		}
		return applyMeta(target, info)
	}
	return nil // sockets, devices, pipes: not workspace content
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("replay: copying the workspace: %w", err)
	}
	defer in.Close()
	// Owner-writable while it is written; applyMeta sets the real mode.
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("replay: copying the workspace: %w", err)
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("replay: copying %s: %w", src, err)
	}
	return nil
}
