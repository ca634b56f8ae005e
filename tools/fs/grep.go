package fs

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// GrepArgs are grep's arguments.
type GrepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"regular expression (RE2 syntax, as in Go and ripgrep) to search for"`
	Path       string `json:"path,omitempty" jsonschema:"file or directory to search, relative to the workspace root (default: the root)"`
	Glob       string `json:"glob,omitempty" jsonschema:"only search files matching this glob, e.g. *.go or src/**/*.ts (a pattern without / matches file names)"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"match case-insensitively"`
	Context    int    `json:"context,omitempty" jsonschema:"lines of context to show before and after each match (at most 10)"`
}

// Grep returns the grep tool: RE2 search over text files, .gitignore
// respected, .git and binary files skipped, results as path:line:text.
func Grep(ws *workspace.Workspace, opts Options) tool.Tool {
	opts = opts.withDefaults()
	desc := fmt.Sprintf("Search file contents with a regular expression (RE2 syntax). Results are \"path:line:text\" "+
		"(context lines use \"path-line-text\", groups are separated by \"--\"). Skips .git, gitignored and binary files. "+
		"At most %d matching lines; narrow path or glob for more.", opts.GrepMatches)
	return tool.Func("grep", desc, func(ctx context.Context, a GrepArgs) (string, error) {
		return grep(ctx, ws, opts, a)
	},
		tool.WithAnnotations(readOnly("Search files")),
		tool.WithEffects(tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}),
	)
}

// grepState accumulates output across files: the pieces of the files'
// results, in order, copied once into the answer at the end — growing one
// buffer for megabytes of matches would allocate several times their
// size.
type grepState struct {
	parts   [][]byte
	size    int // of the parts
	matches int
	files   int
	full    bool
	skipped int // files over the read cap
}

func grep(ctx context.Context, ws *workspace.Workspace, opts Options, a GrepArgs) (string, error) {
	if a.Pattern == "" {
		return "", errors.New("pattern is required")
	}
	if a.Context < 0 {
		return "", errors.New("context must not be negative")
	}
	// Multi-line mode: ^ and $ anchor at line boundaries.
	expr := "(?m)" + a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	m, err := newLineMatcher(expr)
	if err != nil {
		return "", fmt.Errorf("invalid regular expression: %w", err)
	}
	if a.Glob != "" && !doublestar.ValidatePattern(a.Glob) {
		return "", fmt.Errorf("invalid glob %q", a.Glob)
	}
	rel, err := ws.Rel(a.Path)
	if err != nil {
		return "", err
	}
	fi, err := ws.Stat(rel)
	if err != nil {
		return "", err
	}
	st := &grepState{}
	ctxLines := min(a.Context, maxGrepContext)
	s := &grepSearch{ws: ws, opts: opts, m: m, ctxLines: ctxLines}
	if !fi.IsDir() {
		// An explicitly named file is searched even if gitignored.
		g := s.worker()
		defer g.release()
		st.merge(g.searchFile(rel), opts, ctxLines)
		return st.render(a.Pattern, ""), nil
	}
	w := newSearchWalker(ws, opts.WalkEntries)
	if err := s.tree(ctx, w, st, rel, a.Glob); err != nil {
		return "", err
	}
	return st.render(a.Pattern, limitedNote(w.visited, w.limited)), nil
}

// globMatches applies grep's glob filter: a pattern without "/" matches
// the file name, one with "/" the path relative to the search root.
func globMatches(glob, rel, root string) bool {
	if !strings.Contains(glob, "/") {
		return doublestar.MatchUnvalidated(glob, path.Base(rel))
	}
	sub := rel
	if root != "." {
		sub = strings.TrimPrefix(rel, root+"/")
	}
	return doublestar.MatchUnvalidated(glob, sub)
}

// merge adds one file's blocks in walk order, stopping at the caps
// exactly where a file-by-file search would: before the first block that
// finds the match cap reached or the output at its byte cap.
func (st *grepState) merge(r fileResult, opts Options, ctxLines int) {
	if r.skipped {
		st.skipped++
		return
	}
	taken := 0 // r.out[:taken] is in
	defer func() {
		if taken > 0 {
			st.add(r.out[:taken])
		}
	}()
	for k := range r.marks {
		if st.matches >= opts.GrepMatches || st.size+taken >= opts.OutputBytes {
			st.full = true
			return
		}
		if k == 0 {
			st.files++
			if ctxLines > 0 && st.matches > 0 {
				st.add(groupSeparator) // between files' groups
			}
		}
		taken = len(r.out)
		if k+1 < len(r.marks) {
			taken = r.marks[k+1]
		}
		st.matches++
	}
	if r.more {
		// The worker stopped rendering because the next block could not
		// be taken: the cap check before it fails.
		st.full = true
	}
}

var groupSeparator = []byte("--\n")

func (st *grepState) add(b []byte) {
	st.parts = append(st.parts, b)
	st.size += len(b)
}

// render is the answer, ending with note.
func (st *grepState) render(pattern, note string) string {
	if st.matches == 0 {
		s := fmt.Sprintf("No matches for %s.", pattern)
		if st.skipped > 0 {
			s += fmt.Sprintf(" (%d file(s) over the read limit were skipped.)", st.skipped)
		}
		return s + "\n" + note
	}
	var notes string
	if st.full {
		notes += fmt.Sprintf("… [output capped at %d matching lines in %d file(s); narrow the pattern, path or glob]\n", st.matches, st.files)
	}
	if st.skipped > 0 {
		notes += fmt.Sprintf("… [%d file(s) over the read limit were not searched]\n", st.skipped)
	}
	var sb strings.Builder
	sb.Grow(st.size + len(notes) + len(note))
	for _, p := range st.parts {
		sb.Write(p)
	}
	sb.WriteString(notes)
	sb.WriteString(note)
	return sb.String()
}
