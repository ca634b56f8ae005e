package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/memory"
)

// memoryInput handles chat's memory lines: "#text" saves a note (asking
// for the scope with one key — w or u — on a terminal; the workspace
// otherwise), the answer to that question, and /memory. It reports
// whether it consumed line.
func (s *chatSession) memoryInput(ctx context.Context, line string) bool {
	if s.memPending != "" {
		text := s.memPending
		s.memPending = ""
		switch strings.ToLower(line) {
		case "", "w":
			s.saveMemory(ctx, text, memory.ScopeWorkspace)
		case "u":
			s.saveMemory(ctx, text, memory.ScopeUser)
		default:
			fmt.Fprintln(s.app.Stderr, "(not saved)")
		}
		return true
	}
	switch {
	case strings.HasPrefix(line, "#"):
		text := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if s.mem == nil {
			fmt.Fprintln(s.app.Stderr, "rein: memory is off (--no-memory or [memory] enabled = false)")
		} else if text == "" {
			fmt.Fprintln(s.app.Stderr, "rein: #TEXT saves TEXT to memory")
		} else if s.interactive {
			s.memPending = text
			fmt.Fprintln(s.app.Stderr, "save to memory: w = this workspace (Enter), u = user (every workspace), anything else cancels")
		} else {
			s.saveMemory(ctx, text, memory.ScopeWorkspace)
		}
		return true
	case line == "/memory" || strings.HasPrefix(line, "/memory ") || strings.HasPrefix(line, "/memory\t"):
		s.memoryCommand(ctx, strings.TrimSpace(strings.TrimPrefix(line, "/memory")))
		return true
	}
	return false
}

func (s *chatSession) saveMemory(ctx context.Context, text string, scope memory.Scope) {
	e, err := s.mem.store.Put(ctx, memory.Entry{Scope: scope, Workspace: s.mem.workspace, Text: text,
		Source: memory.Source{Kind: memory.SourceUser, SessionID: s.conv.ID()}})
	if err != nil {
		fmt.Fprintf(s.app.Stderr, "rein: %s\n", termsafe.Line(err.Error()))
		return
	}
	fmt.Fprintf(s.app.Stderr, "saved %s to %s memory (seen from the next session on; /memory lists)\n", e.ID, e.Scope)
}

// memoryCommand is /memory [search Q | rm ID | edit ID TEXT].
func (s *chatSession) memoryCommand(ctx context.Context, arg string) {
	w := termsafe.NewWriter(s.app.Stderr)
	if s.mem == nil {
		fmt.Fprintln(w, "rein: memory is off (--no-memory or [memory] enabled = false)")
		return
	}
	verb, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	var err error
	switch verb {
	case "":
		var es []memory.Entry
		if es, err = s.mem.store.List(ctx, memory.Filter{Workspace: s.mem.workspace}); err == nil {
			printMemories(w, es)
		}
	case "search":
		var hits []memory.Hit
		if hits, err = s.mem.store.Search(ctx, rest, memory.Filter{Workspace: s.mem.workspace}); err == nil {
			es := make([]memory.Entry, len(hits))
			for i, h := range hits {
				es[i] = h.Entry
			}
			printMemories(w, es)
		}
	case "rm":
		if err = s.visibleMemory(ctx, rest); err == nil {
			if err = s.mem.store.Delete(ctx, rest); err == nil {
				fmt.Fprintf(w, "removed %s\n", rest)
			}
		}
	case "edit":
		id, text, _ := strings.Cut(rest, " ")
		if err = s.visibleMemory(ctx, id); err == nil {
			if _, err = s.mem.store.Put(ctx, memory.Entry{ID: id, Text: text, Source: memory.Source{Kind: memory.SourceUser, SessionID: s.conv.ID()}}); err == nil {
				fmt.Fprintf(w, "updated %s\n", id)
			}
		}
	default:
		fmt.Fprintln(w, "rein: /memory takes nothing, search QUERY, rm ID or edit ID TEXT")
		return
	}
	if err != nil {
		fmt.Fprintf(w, "rein: %s\n", termsafe.Line(err.Error()))
	}
}

// visibleMemory refuses ids of another workspace's memories.
func (s *chatSession) visibleMemory(ctx context.Context, id string) error {
	e, err := s.mem.store.Get(ctx, id)
	if err == nil && !e.VisibleIn(s.mem.workspace) {
		err = memory.ErrNotFound
	}
	return err
}

func printMemories(w interface{ Write([]byte) (int, error) }, es []memory.Entry) {
	if len(es) == 0 {
		fmt.Fprintln(w, "(no memories here yet: #TEXT saves one)")
		return
	}
	for _, e := range es {
		fmt.Fprintln(w, termsafe.Line(memory.IndexLine(e, 160)))
	}
}
