package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// EditFileArgs are edit_file's arguments.
type EditFileArgs struct {
	Path       string `json:"path" jsonschema:"file to edit, relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"exact text to replace, including whitespace and indentation; must occur exactly once unless replace_all is set"`
	NewString  string `json:"new_string" jsonschema:"text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

// maxEditDiff caps the diff shown after an edit.
const maxEditDiff = 4 << 10

// EditFile returns the edit_file tool: replace an exact string that occurs
// once (or everywhere with replace_all). A miss shows the closest lines.
func EditFile(ws *workspace.Workspace, opts Options) tool.Tool {
	desc := "Replace text in a file. old_string must match the file exactly (whitespace and indentation included) " +
		"and occur exactly once, unless replace_all is true; include enough surrounding lines to make it unique. " +
		"If it is not found, the closest lines in the file are shown. Returns a diff of the change."
	return tool.Func("edit_file", desc, func(ctx context.Context, a EditFileArgs) (string, error) {
		if err := opts.refuseMounted(a.Path); err != nil {
			return "", err
		}
		return editFile(ctx, ws, a)
	},
		tool.WithAnnotations(mutating("Edit file", false)),
		tool.WithEffects(tool.Effects{ReadsFiles: true, WritesFiles: true, PathArgs: []string{"path"}}),
	)
}

func editFile(ctx context.Context, ws *workspace.Workspace, a EditFileArgs) (string, error) {
	switch {
	case a.Path == "":
		return "", errors.New("path is required")
	case a.OldString == "":
		return "", errors.New("old_string is empty; use write_file to create a file or replace all of it")
	case a.OldString == a.NewString:
		return "", errors.New("old_string and new_string are identical; nothing to change")
	}
	var before, after string
	var n int
	cs, err := ws.Transact(changeCtx(ctx), func(tx *workspace.Tx) error {
		b, err := tx.ReadFile(a.Path)
		if errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("%s does not exist; use write_file to create it", a.Path)
		}
		if err != nil {
			return err
		}
		if workspace.IsBinary(b) {
			return fmt.Errorf("%w: %s; edit_file only edits text", workspace.ErrBinary, a.Path)
		}
		before = string(b)
		old, repl := a.OldString, a.NewString
		n = strings.Count(before, old)
		if n == 0 && strings.Contains(before, "\r\n") && !strings.Contains(old, "\r") {
			// A CRLF file edited with LF text: match and write CRLF.
			old, repl = toCRLF(old), toCRLF(repl)
			n = strings.Count(before, old)
		}
		switch {
		case n == 0:
			return errors.New(notFound(a.Path, before, a.OldString))
		case n > 1 && !a.ReplaceAll:
			return fmt.Errorf("old_string occurs %d times in %s (at lines %s); include more surrounding context to make it unique, or set replace_all to change every occurrence",
				n, a.Path, matchLines(before, old, 10))
		}
		after = strings.Replace(before, old, repl, -1)
		return tx.WriteFile(a.Path, []byte(after), 0)
	})
	if err != nil {
		return "", err
	}
	name := a.Path
	if len(cs) > 0 {
		name = cs[0].Path
	}
	word := "occurrence"
	if n != 1 {
		word += "s"
	}
	d, _ := capText(workspace.UnifiedDiff("a/"+name, "b/"+name, []byte(before), []byte(after)), maxEditDiff)
	return fmt.Sprintf("Edited %s: replaced %d %s.\n%s", name, n, word, d), nil
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// matchLines lists the 1-based line numbers where old starts, at most max.
func matchLines(content, old string, max int) string {
	var nums []string
	off := 0
	for len(nums) < max {
		i := strings.Index(content[off:], old)
		if i < 0 {
			break
		}
		pos := off + i
		nums = append(nums, fmt.Sprint(strings.Count(content[:pos], "\n")+1))
		off = pos + max1(len(old))
	}
	s := strings.Join(nums, ", ")
	if total := strings.Count(content, old); total > len(nums) {
		s += fmt.Sprintf(" and %d more", total-len(nums))
	}
	return s
}

func max1(n int) int { return max(n, 1) }
