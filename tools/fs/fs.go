// Package fs provides the file tools of the coding toolset — read_file,
// write_file, edit_file, apply_patch, list_dir, glob and grep — over a
// workspace.Workspace, so every path they touch is confined to the
// workspace and every change is journaled.
//
// The tools' names and arguments are a public contract: models are
// prompted with them and sessions record them.
package fs

import (
	"context"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// Defaults for Options fields left zero.
const (
	DefaultReadLines     = 2000
	DefaultLineLength    = 2000
	DefaultGrepMatches   = 200
	DefaultListEntries   = 1000
	DefaultGlobResults   = 1000
	DefaultOutputBytes   = 48 << 10
	DefaultWalkEntries   = 200_000
	DefaultListDepth     = 2
	maxListDepth         = 10
	grepLineLength       = 400
	maxGrepContext       = 10
	editCandidateWindows = 200_000
)

// Options tunes the file tools. The zero value uses the defaults.
type Options struct {
	// ReadLines is read_file's default line limit (DefaultReadLines).
	ReadLines int
	// LineLength cuts longer lines in read_file output (DefaultLineLength).
	LineLength int
	// GrepMatches caps grep's matching lines (DefaultGrepMatches).
	GrepMatches int
	// ListEntries caps list_dir's entries (DefaultListEntries).
	ListEntries int
	// GlobResults caps glob's paths (DefaultGlobResults).
	GlobResults int
	// OutputBytes caps any one result's text (DefaultOutputBytes), below
	// the harness's own result cap so the tool's notice survives.
	OutputBytes int
	// WalkEntries bounds how many entries one grep, glob or list_dir may
	// visit (DefaultWalkEntries), so a huge tree cannot stall a turn.
	WalkEntries int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.ReadLines, DefaultReadLines)
	def(&o.LineLength, DefaultLineLength)
	def(&o.GrepMatches, DefaultGrepMatches)
	def(&o.ListEntries, DefaultListEntries)
	def(&o.GlobResults, DefaultGlobResults)
	def(&o.OutputBytes, DefaultOutputBytes)
	def(&o.WalkEntries, DefaultWalkEntries)
	return o
}

// Tools returns all file tools over ws: read_file, write_file, edit_file,
// apply_patch, list_dir, glob and grep.
func Tools(ws *workspace.Workspace, opts Options) []tool.Tool {
	return append(ReadTools(ws, opts), WriteTools(ws, opts)...)
}

// ReadTools returns the tools that only read: read_file, list_dir, glob
// and grep.
func ReadTools(ws *workspace.Workspace, opts Options) []tool.Tool {
	opts = opts.withDefaults()
	return []tool.Tool{ReadFile(ws, opts), ListDir(ws, opts), Glob(ws, opts), Grep(ws, opts)}
}

// WriteTools returns the tools that change files: write_file, edit_file
// and apply_patch.
func WriteTools(ws *workspace.Workspace, opts Options) []tool.Tool {
	opts = opts.withDefaults()
	return []tool.Tool{WriteFile(ws, opts), EditFile(ws, opts), ApplyPatch(ws, opts)}
}

// Annotation values shared by the tools.
var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

func readOnly(title string) tool.Annotations {
	return tool.Annotations{Title: title, ReadOnlyHint: yes, DestructiveHint: no, IdempotentHint: yes, OpenWorldHint: no}
}

func mutating(title string, idempotent bool) tool.Annotations {
	idem := no
	if idempotent {
		idem = yes
	}
	// Destructive: they overwrite content (the journal can undo it, but a
	// client seeing only the hint cannot know that).
	return tool.Annotations{Title: title, ReadOnlyHint: no, DestructiveHint: yes, IdempotentHint: idem, OpenWorldHint: no}
}

// changeCtx tags workspace changes with the agent's id for this call, so
// the journal can say which tool call made each change.
func changeCtx(ctx context.Context) context.Context {
	if id := tool.IdempotencyKey(ctx); id != "" {
		return workspace.WithCallID(ctx, id)
	}
	return ctx
}

// capText cuts s to max bytes on a line boundary when it can, returning
// whether it cut.
func capText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := s[:max]
	for i := len(cut) - 1; i > max/2; i-- {
		if cut[i] == '\n' {
			return cut[:i+1], true
		}
	}
	t, _ := tool.Truncate(s, max)
	return t, true
}
