// Package tools assembles rein's built-in toolsets. Coding is the coding
// agent's: the file tools (tools/fs), run_command (tools/exec) and the
// read-only git tools (tools/git), all confined to one workspace.
package tools

import (
	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/tools/exec"
	"github.com/reinharness/rein/tools/fs"
	"github.com/reinharness/rein/tools/git"
	"github.com/reinharness/rein/workspace"
)

// Options tunes the coding toolset; the zero value uses each package's
// defaults.
type Options struct {
	FS   fs.Options   // the file tools
	Exec exec.Options // run_command
	Git  git.Options  // git_status and git_diff
}

// Coding returns every coding tool over ws: read_file, list_dir, glob,
// grep, write_file, edit_file, apply_patch, run_command, git_status and
// git_diff. Which of them may run, and when, is the policy's decision (each
// tool declares its effects); the workspace confines what they touch.
func Coding(ws *workspace.Workspace, opts Options) []tool.Tool {
	out := fs.ReadTools(ws, opts.FS)
	out = append(out, git.Tools(ws, opts.Git)...)
	out = append(out, fs.WriteTools(ws, opts.FS)...)
	return append(out, exec.RunCommand(ws, opts.Exec))
}
