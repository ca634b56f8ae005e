package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/reinharness/rein/internal/acp"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/tool"
	toolsfs "github.com/reinharness/rein/tools/fs"
)

// The editor's buffers (fs.readTextFile / fs.writeTextFile). rein keeps
// reading and writing the files itself — in its sandbox, under its policy,
// journaled for undo and diff — and the editor is consulted beside it:
// read_file shows an open buffer's unsaved text instead of the disk's, and
// a change a tool made is written through the editor too, so it lands in
// the buffer.

// clientFSTimeout bounds one fs request to the editor.
const clientFSTimeout = 10 * time.Second

// acpReadFile is read_file reading the editor's buffer. The workspace tool
// runs first, so the path is confined, a missing or binary file is refused
// exactly as without an editor, and the policy sees the same spec.
type acpReadFile struct {
	inner tool.Tool
	sess  *acpSession
}

func (t *acpReadFile) Spec() tool.Spec { return t.inner.Spec() }

func (t *acpReadFile) Call(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	res, err := t.inner.Call(ctx, args)
	if err != nil || res == nil || res.IsError {
		return res, err
	}
	var a toolsfs.ReadFileArgs
	if json.Unmarshal(args, &a) != nil || strings.HasPrefix(a.Path, "skill://") {
		return res, nil
	}
	ctx, cancel := context.WithTimeout(ctx, clientFSTimeout)
	defer cancel()
	var out acp.ReadTextFileResult
	if err := t.sess.srv.conn.Call(ctx, acp.MethodReadTextFile, acp.ReadTextFileParams{SessionID: t.sess.id, Path: t.sess.tc.abs(a.Path)}, &out); err != nil {
		return res, nil // the disk's text is still the file's
	}
	return &tool.Result{Content: numberLines(a, out.Content)}, nil
}

// numberLines renders text as read_file does: numbered lines from the
// offset, at most limit, long lines cut, a footer when lines remain.
func numberLines(a toolsfs.ReadFileArgs, text string) string {
	if text == "" {
		return fmt.Sprintf("(%s is empty)", a.Path)
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	first, limit := max(a.Offset, 1), a.Limit
	if limit == 0 {
		limit = toolsfs.DefaultReadLines
	}
	if first > len(lines) {
		return fmt.Sprintf("offset %d is past the end of %s, which has %d lines", a.Offset, a.Path, len(lines))
	}
	var sb strings.Builder
	last := min(first+limit-1, len(lines))
	for i := first; i <= last; i++ {
		line := strings.TrimRight(lines[i-1], "\r\n")
		if len(line) > toolsfs.DefaultLineLength {
			line, _ = tool.Truncate(line, toolsfs.DefaultLineLength)
			line = strings.ReplaceAll(line, "\n", " ")
		}
		fmt.Fprintf(&sb, "%6d\t%s\n", i, line)
	}
	if first > 1 || last < len(lines) {
		next := ""
		if last < len(lines) {
			next = fmt.Sprintf("; pass offset %d to read more", last+1)
		}
		fmt.Fprintf(&sb, "… [showing lines %d-%d of %d%s]\n", first, last, len(lines), next)
	}
	return sb.String()
}

// useClientFS wires the editor's file methods into the session's tools.
func (sess *acpSession) useClientFS(fs acp.FSCapabilities) {
	sess.writeThrough = fs.WriteTextFile
	if !fs.ReadTextFile {
		return
	}
	if t, ok := sess.h.tools.Get("read_file"); ok {
		sess.h.tools.Remove("read_file")
		if err := sess.h.tools.Add(&acpReadFile{inner: t, sess: sess}); err != nil {
			sess.h.tools.Add(t) // reading the disk beats not reading
		}
	}
}

// writeThroughClient writes the files a call changed through the editor,
// after rein wrote and journaled them; a deleted file has no text to send.
func (sess *acpSession) writeThroughClient(diffs []acp.ToolCallContent) {
	if !sess.writeThrough {
		return
	}
	for _, d := range diffs {
		if d.NewText == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(sess.srv.base, clientFSTimeout)
		err := sess.srv.conn.Call(ctx, acp.MethodWriteTextFile, acp.WriteTextFileParams{SessionID: sess.id, Path: d.Path, Content: *d.NewText}, nil)
		cancel()
		if err != nil {
			fmt.Fprintf(sess.srv.a.Stderr, "rein: warning: the editor did not take the new %s: %s\n", d.Path, textclip.FirstLine(err.Error()))
		}
	}
}
