package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// ListDirArgs are list_dir's arguments.
type ListDirArgs struct {
	Path  string `json:"path,omitempty" jsonschema:"directory to list, relative to the workspace root (default: the root)"`
	Depth int    `json:"depth,omitempty" jsonschema:"how many levels to descend (default 2, at most 10)"`
}

// ListDir returns the list_dir tool: a directory tree, directories marked
// with a trailing "/", symlinks shown with their target (never followed),
// .git and gitignored entries left out.
func ListDir(ws *workspace.Workspace, opts Options) tool.Tool {
	opts = opts.withDefaults()
	desc := fmt.Sprintf("List a directory as an indented tree (directories end in \"/\", files show their size). "+
		"Descends %d levels by default (depth, at most %d). .git and gitignored entries are left out; "+
		"symlinks are shown with their target but not followed. At most %d entries.", DefaultListDepth, maxListDepth, opts.ListEntries)
	return tool.Func("list_dir", desc, func(ctx context.Context, a ListDirArgs) (string, error) {
		return listDir(ctx, ws, opts, a)
	},
		tool.WithAnnotations(readOnly("List directory")),
		tool.WithEffects(tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}),
	)
}

func listDir(ctx context.Context, ws *workspace.Workspace, opts Options, a ListDirArgs) (string, error) {
	if a.Depth < 0 {
		return "", errors.New("depth must not be negative")
	}
	depth := a.Depth
	if depth == 0 {
		depth = DefaultListDepth
	}
	depth = min(depth, maxListDepth)
	start, err := statDir(ws, a.Path)
	if err != nil {
		return "", err
	}
	w := newWalker(ws, opts.WalkEntries)
	var sb strings.Builder
	header := start + "/"
	if start == "." {
		header = "./"
	}
	sb.WriteString(header + "\n")
	n, full := 0, false
	err = w.walk(ctx, start, depth, func(e walkEntry) error {
		if n >= opts.ListEntries || sb.Len() >= opts.OutputBytes {
			full = true
			return errStopWalk
		}
		n++
		indent := strings.Repeat("  ", e.depth)
		name := e.entry.Name()
		switch {
		case e.entry.Type()&iofs.ModeSymlink != 0:
			target, _ := ws.Readlink(e.rel)
			fmt.Fprintf(&sb, "%s%s -> %s\n", indent, name, target)
		case e.entry.IsDir():
			fmt.Fprintf(&sb, "%s%s/\n", indent, name)
		default:
			size := ""
			if fi, err := e.entry.Info(); err == nil {
				size = " (" + humanSize(fi.Size()) + ")"
			}
			fmt.Fprintf(&sb, "%s%s%s\n", indent, name, size)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	switch {
	case full || w.limited:
		fmt.Fprintf(&sb, "… [listing stopped after %d entries; list a subdirectory or lower depth to see the rest]\n", n)
	case n == 0:
		sb.WriteString("(empty)\n")
	}
	return sb.String(), nil
}

// humanSize renders a byte count compactly (512 B, 1.5 KiB, 3.2 MiB).
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
