package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
)

// diff is /diff: the session's file changes as one unified diff on
// stdout (it is data the user may keep), or a note on stderr when there
// are none.
func (s *chatSession) diff(ctx context.Context) {
	// From the session's journal, so earlier runs of a resumed session
	// count, and the calls are the ones /undo would revert.
	d, err := sessionDiff(ctx, s.sr.store, s.sr.ID(), s.ws.Dir())
	if err != nil {
		fmt.Fprintf(s.app.Stderr, "rein: /diff: %s\n", termsafe.Line(err.Error()))
		return
	}
	if d == "" {
		fmt.Fprintln(s.app.Stderr, "(no file changes in this session)")
		return
	}
	if !strings.HasSuffix(d, "\n") {
		d += "\n"
	}
	io.WriteString(s.app.Stdout, termsafe.Text(s.ex.scrub(d)))
}

// undo is /undo [N]: it reverts the changes of the newest N (default 1)
// tool calls of the session that changed files and were not undone yet —
// from this chat or any earlier run of the session, through the
// before-images the session store keeps — reports what it restored, and
// arranges for the model to be told with the next message, so it does not
// build on edits that are gone.
func (s *chatSession) undo(ctx context.Context, arg string) {
	errw := s.app.Stderr
	n, err := undoCount(arg)
	if err != nil {
		fmt.Fprintf(errw, "rein: /undo %s\n", termsafe.Line(err.Error()))
		return
	}
	done, err := undoCalls(ctx, s.sr.store, s.sr.ID(), s.ws, n)
	if errors.Is(err, errNothingToUndo) {
		fmt.Fprintln(errw, "(nothing to undo: no tool call changed files in this session)")
		return
	}
	var notes []string
	for _, d := range done {
		call := d.call.describe()
		fmt.Fprintf(errw, "undid %s of %s:\n", plural(len(d.call.changes), "change"), termsafe.Line(s.ex.scrub(call)))
		for _, l := range d.lines {
			fmt.Fprintf(errw, "  %s\n", termsafe.Line(s.ex.scrub(l)))
		}
		notes = append(notes, fmt.Sprintf("%s (%s)", call, strings.Join(d.lines, "; ")))
	}
	if len(notes) > 0 {
		s.note = fmt.Sprintf("[Note from rein: the user undid the file changes of %s. Those files are back to their earlier state; read them again before changing them.]",
			strings.Join(notes, " and "))
	}
	if err != nil {
		fmt.Fprintf(errw, "rein: /undo stopped: %s\n", termsafe.Line(s.ex.scrub(textclip.FirstLine(err.Error()))))
	}
}

// undoCount parses the N of /undo N and rein undo N: a positive count of
// tool calls, 1 when absent.
func undoCount(arg string) (int, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > maxUndoCalls {
		return 0, fmt.Errorf("takes the number of tool calls to undo, 1 to %d (got %q)", maxUndoCalls, arg)
	}
	return n, nil
}

// maxUndoCalls bounds one undo.
const maxUndoCalls = 10000

// plural formats n and a noun with an English plural.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
