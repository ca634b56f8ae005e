package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// GlobArgs are glob's arguments.
type GlobArgs struct {
	Pattern string `json:"pattern" jsonschema:"glob pattern such as **/*.go or src/**/*_test.{ts,tsx}; ** crosses directories"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search from, relative to the workspace root (default: the root)"`
}

// Glob returns the glob tool: files whose path (relative to path) matches
// a doublestar pattern, gitignored files and .git left out.
func Glob(ws *workspace.Workspace, opts Options) tool.Tool {
	opts = opts.withDefaults()
	desc := fmt.Sprintf("Find files by name pattern: * matches within a directory, ** across directories, "+
		"{a,b} alternatives, [abc] classes. Returns workspace-relative paths, sorted, at most %d. "+
		".git and gitignored files are skipped; symlinks are not followed.", opts.GlobResults)
	return tool.Func("glob", desc, func(ctx context.Context, a GlobArgs) (string, error) {
		return glob(ctx, ws, opts, a)
	},
		tool.WithAnnotations(readOnly("Find files")),
		tool.WithEffects(tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}),
	)
}

func glob(ctx context.Context, ws *workspace.Workspace, opts Options, a GlobArgs) (string, error) {
	start, pattern, err := globStart(ws, a.Path, a.Pattern)
	if err != nil {
		return "", err
	}
	base, rest := doublestar.SplitPattern(pattern)
	root := start
	if base != "." {
		root = path.Join(start, base)
	}
	fi, err := ws.Stat(root)
	if errors.Is(err, iofs.ErrNotExist) {
		return fmt.Sprintf("No files match %s (%s does not exist).", a.Pattern, root), nil
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		// A pattern without wildcards names one file.
		return root + "\n", nil
	}
	maxDepth := 0 // unlimited when ** appears
	if !strings.Contains(rest, "**") {
		maxDepth = strings.Count(rest, "/") + 1
	}
	w := newSearchWalker(ws, opts.WalkEntries)
	var matches []string
	full := false
	err = w.walk(ctx, root, maxDepth, func(e walkEntry, _ *dirNode) error {
		if e.entry.IsDir() {
			return nil
		}
		rel := strings.TrimPrefix(e.rel, start+"/")
		if start == "." {
			rel = e.rel
		}
		if doublestar.MatchUnvalidated(pattern, rel) {
			if len(matches) >= opts.GlobResults {
				full = true
				return errStopWalk
			}
			matches = append(matches, e.rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return fmt.Sprintf("No files match %s.", a.Pattern) + limitedNote(w.visited, w.limited), nil
	}
	out, cut := capText(strings.Join(matches, "\n")+"\n", opts.OutputBytes)
	if full || cut {
		out += fmt.Sprintf("… [more than %d files match; use a narrower pattern or path]\n", len(matches))
	}
	return out + limitedNote(w.visited, w.limited), nil
}

// globStart validates the pattern and resolves the start directory. An
// absolute pattern inside the workspace is made relative; one reaching
// outside, or using "..", is refused.
func globStart(ws *workspace.Workspace, dir, pattern string) (string, string, error) {
	if pattern == "" {
		return "", "", errors.New("pattern is required")
	}
	if !doublestar.ValidatePattern(pattern) {
		return "", "", fmt.Errorf("invalid glob pattern %q (check unbalanced [ ] or { })", pattern)
	}
	if filepath.IsAbs(pattern) {
		base, rest := doublestar.SplitPattern(pattern)
		rel, err := ws.Rel(base)
		if err != nil {
			return "", "", err
		}
		pattern = path.Join(rel, rest)
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return "", "", fmt.Errorf("%w: %s (glob patterns may not use ..; pass a path inside the workspace instead)", workspace.ErrEscape, pattern)
		}
	}
	start, err := statDir(ws, dir)
	if err != nil {
		return "", "", err
	}
	return start, strings.TrimPrefix(pattern, "./"), nil
}

// limitedNote tells the model that the walk's entry limit cut the search.
func limitedNote(visited int, limited bool) string {
	if !limited {
		return ""
	}
	return fmt.Sprintf("… [the search stopped after visiting %d entries; narrow the path]\n", visited)
}
