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
	"fmt"
	"os"
	"strings"

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
	// Mounts serve read-only files from outside the workspace under a
	// path prefix (rein's skill:// files): read_file reads a path with a
	// mount's prefix through the mount, never the workspace, and
	// write_file and edit_file refuse such paths.
	Mounts []Mount
}

// Mount is a read-only tree read_file serves under Prefix.
type Mount struct {
	// Prefix starts every path of the mount ("skill://").
	Prefix string
	// Open opens path (with its prefix) for reading. It must confine the
	// path itself: the workspace's confinement does not apply.
	Open func(path string) (*os.File, error)
}

// mountOf returns the mount serving path, or nil.
func (o Options) mountOf(path string) *Mount {
	for i := range o.Mounts {
		if strings.HasPrefix(path, o.Mounts[i].Prefix) {
			return &o.Mounts[i]
		}
	}
	return nil
}

// refuseMounted is the error of a write tool given a mounted path.
func (o Options) refuseMounted(path string) error {
	if m := o.mountOf(path); m != nil {
		return fmt.Errorf("%s is read-only: files under %s cannot be changed", path, m.Prefix)
	}
	return nil
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
