package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/workspace"
)

// fileNet is what a session did to one file overall: the hash before its
// first change and after its last ("" for absent).
type fileNet struct {
	path          string
	before, after string
}

// sessionNet returns, per file in order of first change, the net change of
// the session's tool calls that are not undone, from every run of the
// session: the same calls /undo and `rein undo` would revert.
func sessionNet(ctx context.Context, store *session.SQLite, id string) ([]fileNet, error) {
	calls, err := undoableCalls(ctx, store, id)
	if err != nil {
		return nil, err
	}
	byPath := map[string]*fileNet{}
	var order []string
	for _, c := range calls {
		for _, fc := range c.changes {
			if n, ok := byPath[fc.Path]; ok {
				n.after = fc.AfterHash
				continue
			}
			byPath[fc.Path] = &fileNet{path: fc.Path, before: fc.BeforeHash, after: fc.AfterHash}
			order = append(order, fc.Path)
		}
	}
	out := make([]fileNet, 0, len(order))
	for _, p := range order {
		if n := byPath[p]; n.before != n.after {
			out = append(out, *n)
		}
	}
	return out, nil
}

// sessionDiff is the session's net change as a git-style unified diff.
// Contents come from the images the store kept (before-images, and the
// after-images of calls) or, for the last state, from the workspace at
// root when the file still has it; a state neither has is named by its
// hash instead of shown.
func sessionDiff(ctx context.Context, store *session.SQLite, id, root string) (string, error) {
	nets, err := sessionNet(ctx, store, id)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, n := range nets {
		if err := writeNetDiff(ctx, &sb, store, id, root, n); err != nil {
			return "", err
		}
	}
	return sb.String(), nil
}

func writeNetDiff(ctx context.Context, sb *strings.Builder, store *session.SQLite, id, root string, n fileNet) error {
	p := n.path
	fmt.Fprintf(sb, "diff --git a/%s b/%s\n", p, p)
	oldName, newName := "a/"+p, "b/"+p
	switch {
	case n.before == "":
		fmt.Fprintf(sb, "new file mode %s\n", fileMode(root, p))
		oldName = "/dev/null"
	case n.after == "":
		sb.WriteString("deleted file mode 100644\n")
		newName = "/dev/null"
	}
	before, okB, err := contentOf(ctx, store, id, root, p, n.before)
	if err != nil {
		return err
	}
	after, okA, err := contentOf(ctx, store, id, root, p, n.after)
	if err != nil {
		return err
	}
	switch {
	case !okB || !okA:
		fmt.Fprintf(sb, "Files %s and %s differ (contents not kept: %s, %s)\n", oldName, newName, hashNote(n.before, okB), hashNote(n.after, okA))
	case workspace.IsBinary(before) || workspace.IsBinary(after):
		fmt.Fprintf(sb, "Binary files %s and %s differ\n", oldName, newName)
	default:
		sb.WriteString(workspace.UnifiedDiff(oldName, newName, before, after))
	}
	return nil
}

// contentOf returns the content with the given hash: empty for "" (an
// absent file), else the store's image, else the workspace's file when it
// still has that content.
func contentOf(ctx context.Context, store *session.SQLite, id, root, p, hash string) ([]byte, bool, error) {
	if hash == "" {
		return nil, true, nil
	}
	data, ok, err := store.Image(ctx, id, hash)
	if err != nil || ok {
		return data, ok, err
	}
	data, err = readConfined(root, p)
	if err == nil && session.ImageHash(data) == hash {
		return data, true, nil
	}
	return nil, false, nil
}

// readConfined reads the workspace file p (a journal path, relative to
// root) without following links out of the workspace.
func readConfined(root, p string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(filepath.FromSlash(p))
}

func hashNote(hash string, ok bool) string {
	switch {
	case hash == "":
		return "absent"
	case ok:
		return "kept"
	}
	return "sha256:" + hash[:min(12, len(hash))] + "…"
}

// fileMode is git's mode of the workspace file p as it is now.
func fileMode(root, p string) string {
	r, err := os.OpenRoot(root)
	if err != nil {
		return "100644"
	}
	defer r.Close()
	fi, err := r.Lstat(filepath.FromSlash(p))
	if err != nil || fi.Mode()&fs.ModeType != 0 || fi.Mode()&0o111 == 0 {
		return "100644"
	}
	return "100755"
}

// diffStat summarises a unified diff as git diff --stat does: per file
// the lines added and removed, then the totals.
func diffStat(diff string) string {
	type count struct {
		path     string
		add, del int
		binary   bool
	}
	var files []*count
	inHunk := false // "--- "/"+++ " are headers only before the first @@
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git a/"):
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "diff --git a/"), " b/")
			files = append(files, &count{path: name})
			inHunk = false
		case len(files) == 0:
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk && (strings.HasPrefix(l, "Binary files ") || strings.HasPrefix(l, "Files ")):
			files[len(files)-1].binary = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			files[len(files)-1].add++
		case strings.HasPrefix(l, "-"):
			files[len(files)-1].del++
		}
	}
	width := 0
	for _, f := range files {
		width = max(width, len(f.path))
	}
	var sb strings.Builder
	adds, dels := 0, 0
	for _, f := range files {
		if f.binary {
			fmt.Fprintf(&sb, " %-*s | Bin\n", width, f.path)
			continue
		}
		adds, dels = adds+f.add, dels+f.del
		fmt.Fprintf(&sb, " %-*s | %d %s%s\n", width, f.path, f.add+f.del, strings.Repeat("+", min(f.add, 40)), strings.Repeat("-", min(f.del, 40)))
	}
	fmt.Fprintf(&sb, " %s changed, %s(+), %s(-)\n", plural(len(files), "file"), plural(adds, "insertion"), plural(dels, "deletion"))
	return sb.String()
}

// errNoChanges reports a session whose tool calls changed no file (or
// whose changes were all undone).
var errNoChanges = errors.New("no file changes in this session (or all were undone)")
