package fs

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
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

// grepState accumulates output across files.
type grepState struct {
	sb      strings.Builder
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
	st := &grepState{}
	ctxLines := min(a.Context, maxGrepContext)
	w := newWalker(ws, opts.WalkEntries)
	if !fi.IsDir() {
		// An explicitly named file is searched even if gitignored.
		grepFile(ws, opts, st, re, rel, ctxLines)
	} else {
		err = w.walk(ctx, rel, 0, func(e walkEntry) error {
			if e.entry.IsDir() || !e.entry.Type().IsRegular() {
				return nil
			}
			if a.Glob != "" && !globMatches(a.Glob, e.rel, rel) {
				return nil
			}
			grepFile(ws, opts, st, re, e.rel, ctxLines)
			if st.full {
				return errStopWalk
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return st.render(a.Pattern) + limitedNote(w), nil
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

func grepFile(ws *workspace.Workspace, opts Options, st *grepState, re *regexp.Regexp, rel string, ctxLines int) {
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
			writeGrepLine(&st.sb, rel, j, '-', lines[j])
		}
		writeGrepLine(&st.sb, rel, i, ':', line)
		st.matches++
		lastPrinted = i
		// Trailing context, stopping before the next match (printed by
		// its own iteration).
		for j := i + 1; j <= i+ctxLines && j < len(lines) && !re.MatchString(lines[j]); j++ {
			writeGrepLine(&st.sb, rel, j, '-', lines[j])
			lastPrinted = j
		}
	}
}

func writeGrepLine(sb *strings.Builder, rel string, i int, sep byte, line string) {
	line = strings.TrimSuffix(line, "\r")
	if len(line) > grepLineLength {
		line, _ = tool.Truncate(line, grepLineLength)
		line = strings.ReplaceAll(line, "\n", " ")
	}
	fmt.Fprintf(sb, "%s%c%d%c%s\n", rel, sep, i+1, sep, line)
}

func (st *grepState) render(pattern string) string {
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
