package fs

// The grep and glob tools as they were before the search engine: a
// sequential walk, each file read whole and split into lines. Kept as the
// reference the engine is compared with (grep_oracle_test.go's tests and
// fuzz target); do not optimise it.

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// oracleGrepState accumulates output across files.
type oracleGrepState struct {
	sb      strings.Builder
	matches int
	files   int
	full    bool
	skipped int // files over the read cap
}

func oracleGrep(ctx context.Context, ws *workspace.Workspace, opts Options, a GrepArgs) (string, error) {
	if a.Pattern == "" {
		return "", errors.New("pattern is required")
	}
	if a.Context < 0 {
		return "", errors.New("context must not be negative")
	}
	// Multi-line mode: ^ and $ anchor at line boundaries both in the
	// whole-file pre-check and per line.
	expr := "(?m)" + a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
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
	st := &oracleGrepState{}
	ctxLines := min(a.Context, maxGrepContext)
	w := newWalker(ws, opts.WalkEntries)
	if !fi.IsDir() {
		// An explicitly named file is searched even if gitignored.
		oracleGrepFile(ws, opts, st, re, rel, ctxLines)
	} else {
		err = w.walk(ctx, rel, 0, func(e walkEntry) error {
			if e.entry.IsDir() || !e.entry.Type().IsRegular() {
				return nil
			}
			if a.Glob != "" && !oracleGlobMatches(a.Glob, e.rel, rel) {
				return nil
			}
			oracleGrepFile(ws, opts, st, re, e.rel, ctxLines)
			if st.full {
				return errStopWalk
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return st.render(a.Pattern) + limitedNote(w.visited, w.limited), nil
}

// globMatches applies grep's glob filter: a pattern without "/" matches
// the file name, one with "/" the path relative to the search root.
func oracleGlobMatches(glob, rel, root string) bool {
	if !strings.Contains(glob, "/") {
		return doublestar.MatchUnvalidated(glob, path.Base(rel))
	}
	sub := rel
	if root != "." {
		sub = strings.TrimPrefix(rel, root+"/")
	}
	return doublestar.MatchUnvalidated(glob, sub)
}

func oracleGrepFile(ws *workspace.Workspace, opts Options, st *oracleGrepState, re *regexp.Regexp, rel string, ctxLines int) {
	b, err := ws.ReadFile(rel)
	if err != nil {
		if errors.Is(err, workspace.ErrTooLarge) {
			st.skipped++
		}
		return
	}
	if workspace.IsBinary(b) {
		return
	}
	text := string(b)
	if !re.MatchString(text) {
		return // most files: one pass, no line splitting
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	lastPrinted := -1
	matchedFile := false
	for i, line := range lines {
		if !re.MatchString(line) {
			continue
		}
		if st.matches >= opts.GrepMatches || st.sb.Len() >= opts.OutputBytes {
			st.full = true
			return
		}
		if !matchedFile {
			matchedFile = true
			st.files++
		}
		from := max(i-ctxLines, lastPrinted+1)
		if ctxLines > 0 && lastPrinted >= 0 && from > lastPrinted+1 {
			st.sb.WriteString("--\n")
		} else if ctxLines > 0 && lastPrinted < 0 && st.matches > 0 {
			st.sb.WriteString("--\n")
		}
		for j := from; j < i; j++ {
			oracleWriteGrepLine(&st.sb, rel, j, '-', lines[j])
		}
		oracleWriteGrepLine(&st.sb, rel, i, ':', line)
		st.matches++
		lastPrinted = i
		// Trailing context, stopping before the next match (printed by
		// its own iteration).
		for j := i + 1; j <= i+ctxLines && j < len(lines) && !re.MatchString(lines[j]); j++ {
			oracleWriteGrepLine(&st.sb, rel, j, '-', lines[j])
			lastPrinted = j
		}
	}
}

func oracleWriteGrepLine(sb *strings.Builder, rel string, i int, sep byte, line string) {
	line = strings.TrimSuffix(line, "\r")
	if len(line) > grepLineLength {
		line, _ = tool.Truncate(line, grepLineLength)
		line = strings.ReplaceAll(line, "\n", " ")
	}
	fmt.Fprintf(sb, "%s%c%d%c%s\n", rel, sep, i+1, sep, line)
}

func (st *oracleGrepState) render(pattern string) string {
	if st.matches == 0 {
		s := fmt.Sprintf("No matches for %s.", pattern)
		if st.skipped > 0 {
			s += fmt.Sprintf(" (%d file(s) over the read limit were skipped.)", st.skipped)
		}
		return s + "\n"
	}
	out := st.sb.String()
	if st.full {
		out += fmt.Sprintf("… [output capped at %d matching lines in %d file(s); narrow the pattern, path or glob]\n", st.matches, st.files)
	}
	if st.skipped > 0 {
		out += fmt.Sprintf("… [%d file(s) over the read limit were not searched]\n", st.skipped)
	}
	return out
}

func oracleGlob(ctx context.Context, ws *workspace.Workspace, opts Options, a GlobArgs) (string, error) {
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
	w := newWalker(ws, opts.WalkEntries)
	var matches []string
	full := false
	err = w.walk(ctx, root, maxDepth, func(e walkEntry) error {
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
