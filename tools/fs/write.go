package fs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// WriteFileArgs are write_file's arguments.
type WriteFileArgs struct {
	Path    string `json:"path" jsonschema:"file to create or overwrite, relative to the workspace root"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

// WriteFile returns the write_file tool: create or replace a whole file,
// creating parent directories inside the workspace.
func WriteFile(ws *workspace.Workspace, opts Options) tool.Tool {
	desc := "Create a file or replace its whole content. Parent directories are created as needed. " +
		"Prefer edit_file or apply_patch for changes to existing files: they are shorter and safer. " +
		"An existing file keeps its permissions."
	return tool.Func("write_file", desc, func(ctx context.Context, a WriteFileArgs) (string, error) {
		if a.Path == "" {
			return "", errors.New("path is required")
		}
		if err := opts.refuseMounted(a.Path); err != nil {
			return "", err
		}
		c, err := ws.WriteFile(changeCtx(ctx), a.Path, []byte(a.Content))
		if err != nil {
			return "", err
		}
		if c.Path == "" {
			return fmt.Sprintf("%s already has this content; nothing changed", a.Path), nil
		}
		verb := "Updated"
		if c.Kind() == "create" {
			verb = "Created"
		}
		return fmt.Sprintf("%s %s (%d lines, %d bytes)", verb, c.Path, countLines(a.Content), len(a.Content)), nil
	},
		tool.WithAnnotations(mutating("Write file", true)),
		tool.WithEffects(tool.Effects{WritesFiles: true, PathArgs: []string{"path"}}),
	)
}

// countLines counts lines the way an editor shows them.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
