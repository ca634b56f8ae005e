// Package git provides the read-only git tools of the coding toolset:
// git_status and git_diff.
//
// rein runs git itself, with a fixed argument list and without a shell, so
// the tools only read. A repository's own configuration is model-writable
// (.git/config lies inside the workspace), and git can be configured to run
// programs on status and diff — clean/smudge filters, fsmonitor, external
// diff and textconv drivers, hooks when the index is refreshed — so every
// such setting is neutralised on each call; otherwise a "read-only" tool
// would be a way around the command policy.
//
// The tools read only a repository inside the workspace: before each call
// the git directory is resolved as git would find it (a .git directory, a
// .git file's gitdir, a symlink, a worktree's commondir, alternates) and
// the call is refused unless all of it lies inside the workspace. git then
// runs with that directory and the workspace as its work tree pinned
// (GIT_DIR, GIT_WORK_TREE), so neither the environment nor core.worktree
// can point it elsewhere.
package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

// Defaults for Options fields left zero.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 48 << 10
)

// Options tunes the git tools. The zero value uses the defaults.
type Options struct {
	// Git is the git binary (default: "git" looked up in PATH).
	Git string
	// Timeout bounds one git run (DefaultTimeout).
	Timeout time.Duration
	// MaxOutput caps the output shown (DefaultMaxOutput).
	MaxOutput int
}

func (o Options) withDefaults() Options {
	if o.Git == "" {
		o.Git = "git"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	return o
}

// Tools returns git_status and git_diff over ws.
func Tools(ws *workspace.Workspace, opts Options) []tool.Tool {
	return []tool.Tool{Status(ws, opts), Diff(ws, opts)}
}

// safeConfig is applied to every git run, on top of the filter overrides.
// Settings that only change what git reads (the user's excludes and
// attributes files) are left alone; settings that can run a program or
// write are switched off.
var safeConfig = [][2]string{
	{"core.fsmonitor", "false"},         // fsmonitor may name a hook program
	{"core.hooksPath", os.DevNull},      // no hook runs, even on an index refresh
	{"core.pager", "cat"},               // with --no-pager
	{"diff.external", ""},               // with --no-ext-diff
	{"safe.bareRepository", "explicit"}, // a bare repo planted in the tree is not picked up
	{"submodule.recurse", "false"},      // submodules have configs of their own
	{"core.untrackedCache", "false"},    // status must not rewrite the index
	{"color.ui", "false"},
	{"core.quotePath", "false"}, // show UTF-8 names as they are
	{"diff.noprefix", "false"},  // keep a/ b/ so the diff applies with apply_patch
	{"diff.mnemonicPrefix", "false"},
}

// runner runs git in the workspace.
type runner struct {
	ws   *workspace.Workspace
	opts Options
}

// run executes git with args after neutralising configuration that could
// run programs, and returns stdout. ctx bounds it.
func (r runner) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	repo, err := findRepository(r.ws.Dir())
	if err != nil {
		return "", err
	}
	filters, err := r.filterDrivers(ctx, repo)
	if err != nil {
		return "", err
	}
	cfg := append([][2]string(nil), safeConfig...)
	for _, name := range filters {
		for _, k := range []string{"clean", "smudge", "process"} {
			cfg = append(cfg, [2]string{"filter." + name + "." + k, ""})
		}
		cfg = append(cfg, [2]string{"filter." + name + ".required", "false"})
	}
	return r.exec(ctx, repo, cfg, args...)
}

// filterDrivers lists the filter driver names configured at any level
// (includes followed), so each can be switched off.
func (r runner) filterDrivers(ctx context.Context, repo string) ([]string, error) {
	out, err := r.exec(ctx, repo, safeConfig, "config", "--null", "--list")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for _, entry := range strings.Split(out, "\x00") {
		key, _, _ := strings.Cut(entry, "\n")
		rest, ok := strings.CutPrefix(key, "filter.")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(rest, '.')
		if i <= 0 {
			continue
		}
		if name := rest[:i]; !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

// exec runs one git command on the git directory repo with the workspace
// as its work tree. Configuration goes through GIT_CONFIG_COUNT and
// friends rather than -c, so names containing "=" stay intact.
func (r runner) exec(ctx context.Context, repo string, cfg [][2]string, args ...string) (string, error) {
	argv := append([]string{"--no-pager", "--no-optional-locks", "--literal-pathspecs"}, args...)
	cmd := exec.CommandContext(ctx, r.opts.Git, argv...)
	cmd.Dir = r.ws.Dir()
	cmd.Env = append(gitEnv(cfg), "GIT_DIR="+repo, "GIT_WORK_TREE="+r.ws.Dir())
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("git %s did not finish in %s", args[0], r.opts.Timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(strings.ToLower(msg), "not a git repository") {
			return "", errNotARepository
		}
		if msg == "" {
			msg = err.Error()
		}
		first, _, _ := strings.Cut(msg, "\n")
		return "", fmt.Errorf("git %s failed: %s", args[0], first)
	}
	return stdout.String(), nil
}

// gitEnv is the scrubbed environment without any inherited GIT_* variable
// (GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR, GIT_INDEX_FILE,
// GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_CONFIG*,
// GIT_EXEC_PATH, GIT_EXTERNAL_DIFF and the like would redirect or extend
// git), plus the configuration overrides.
func gitEnv(cfg [][2]string) []string {
	var env []string
	for _, kv := range workspace.ScrubEnv(os.Environ(), nil) {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C",
		"GIT_CONFIG_COUNT="+strconv.Itoa(len(cfg)))
	for i, kv := range cfg {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return env
}

var readOnly = func() tool.Annotations {
	t, f := true, false
	return tool.Annotations{ReadOnlyHint: &t, DestructiveHint: &f, IdempotentHint: &t, OpenWorldHint: &f}
}

// StatusArgs are git_status's (empty) arguments.
type StatusArgs struct{}

// Status returns the git_status tool.
func Status(ws *workspace.Workspace, opts Options) tool.Tool {
	r := runner{ws, opts.withDefaults()}
	a := readOnly()
	a.Title = "Git status"
	return tool.Func("git_status", "Show the git branch and the changed, staged and untracked files of the workspace "+
		"(git status --short --branch: XY codes, ?? untracked). Read-only.",
		func(ctx context.Context, _ StatusArgs) (string, error) {
			out, err := r.run(ctx, "status", "--short", "--branch", "--ignore-submodules=all", "--", ".")
			if err != nil {
				return "", err
			}
			if strings.Count(out, "\n") <= 1 {
				out += "(working tree clean)\n"
			}
			return capOutput(out, r.opts.MaxOutput, "git_status"), nil
		},
		tool.WithAnnotations(a),
		tool.WithEffects(tool.Effects{ReadsFiles: true}),
	)
}

// DiffArgs are git_diff's arguments.
type DiffArgs struct {
	Path   string `json:"path,omitempty" jsonschema:"limit the diff to this file or directory (workspace-relative)"`
	Staged bool   `json:"staged,omitempty" jsonschema:"show staged changes (git diff --cached) instead of unstaged ones"`
}

// Diff returns the git_diff tool.
func Diff(ws *workspace.Workspace, opts Options) tool.Tool {
	r := runner{ws, opts.withDefaults()}
	a := readOnly()
	a.Title = "Git diff"
	return tool.Func("git_diff", "Show uncommitted changes as a unified diff: unstaged by default, staged with "+
		"staged=true; optionally limited to a path. Read-only.",
		func(ctx context.Context, in DiffArgs) (string, error) {
			spec, err := ws.Rel(in.Path)
			if err != nil {
				return "", err
			}
			// --relative: paths relative to the workspace, like every
			// other tool's, even when the repository root lies above it.
			args := []string{"diff", "--relative", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=all"}
			if in.Staged {
				args = append(args, "--cached")
			}
			out, err := r.run(ctx, append(args, "--", spec)...)
			if err != nil {
				return "", err
			}
			if out == "" {
				kind := "unstaged"
				if in.Staged {
					kind = "staged"
				}
				return fmt.Sprintf("No %s changes.", kind), nil
			}
			return capOutput(out, r.opts.MaxOutput, "git_diff"), nil
		},
		tool.WithAnnotations(a),
		tool.WithEffects(tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}),
	)
}

func capOutput(s string, max int, name string) string {
	if len(s) <= max {
		return s
	}
	cut, _ := tool.Truncate(s, max)
	hint := "pass path to narrow it"
	if name == "git_status" {
		hint = "run git_status in a smaller workspace or use git_diff with a path"
	}
	return cut + fmt.Sprintf("… [%s output was %d bytes; %s]\n", name, len(s), hint)
}
