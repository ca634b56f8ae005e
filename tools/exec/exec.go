// Package exec provides the run_command tool: a bash command run in the
// workspace through workspace.Exec — its own process group killed on
// timeout or cancellation, output capped with head and tail kept, a
// scrubbed environment and, on Linux, the Landlock sandbox.
package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// Defaults for Options fields left zero.
const (
	DefaultTimeout    = 2 * time.Minute
	DefaultMaxTimeout = 10 * time.Minute
	DefaultMaxOutput  = 32 << 10
)

// Options tunes run_command. The zero value uses the defaults.
type Options struct {
	// Timeout applies when the call gives no timeout_s (DefaultTimeout).
	Timeout time.Duration
	// MaxTimeout is the most a call may ask for (DefaultMaxTimeout).
	MaxTimeout time.Duration
	// MaxOutput caps the output kept, head and tail (DefaultMaxOutput).
	MaxOutput int
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.Timeout > o.MaxTimeout {
		o.Timeout = o.MaxTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	return o
}

// RunCommandArgs are run_command's arguments.
type RunCommandArgs struct {
	Command  string `json:"command" jsonschema:"bash command line to run in the workspace"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"seconds before the command and everything it started are killed"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"working directory relative to the workspace root (default: the root)"`
}

// Outcome is run_command's structured result (the tool result's
// Structured JSON); the fields mirror workspace.ExecResult.
type Outcome struct {
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
	Output     string `json:"output"`
	Truncated  bool   `json:"truncated"`
	TimedOut   bool   `json:"timed_out"`
	DurationMS int64  `json:"duration_ms"`
	Sandboxed  bool   `json:"sandboxed"`
	// Limit names the sandbox resource limit the command hit
	// ("memory", "processes", "cpu_time", "file_size"; empty for none).
	Limit string `json:"limit,omitempty"`
}

// RunCommand returns the run_command tool over ws.
func RunCommand(ws *workspace.Workspace, opts Options) tool.Tool {
	opts = opts.withDefaults()
	desc := fmt.Sprintf("Run a bash command in the workspace and return its exit code and output (stdout and stderr "+
		"interleaved; long output keeps its beginning and end). Stdin is empty: nothing can prompt. The command "+
		"and everything it starts are killed after timeout_s seconds (default %d, at most %d), and background jobs "+
		"do not outlive it. A non-zero exit code is reported, not treated as a failure. Secrets are removed from "+
		"the environment; TMPDIR is a private directory. Commands may be sandboxed so that they can write only inside the "+
		"workspace and TMPDIR, with limits on processes, memory, CPU time and file size; the result says when one stopped "+
		"the command.", int(opts.Timeout.Seconds()), int(opts.MaxTimeout.Seconds()))
	t := true
	return tool.Func("run_command", desc, func(ctx context.Context, a RunCommandArgs) (*tool.Result, error) {
		return runCommand(ctx, ws, opts, a)
	},
		tool.WithAnnotations(tool.Annotations{Title: "Run command", ReadOnlyHint: new(bool), DestructiveHint: &t, OpenWorldHint: &t}),
		tool.WithEffects(tool.Effects{Exec: true, CommandArg: "command", DirArg: "cwd", PathArgs: []string{"cwd"}, Network: true}),
		// The harness's own timeout must not cut the call before ours has
		// killed the process group and collected the output.
		tool.WithTimeout(opts.MaxTimeout+30*time.Second),
	)
}

func runCommand(ctx context.Context, ws *workspace.Workspace, opts Options, a RunCommandArgs) (*tool.Result, error) {
	if strings.TrimSpace(a.Command) == "" {
		return nil, errors.New("command is empty")
	}
	if a.TimeoutS < 0 {
		return nil, errors.New("timeout_s must not be negative")
	}
	timeout := opts.Timeout
	if a.TimeoutS > 0 {
		timeout = min(time.Duration(a.TimeoutS)*time.Second, opts.MaxTimeout)
	}
	// The command's own file writes are journaled under the call's key,
	// as the file tools' are, so diff and undo name the call.
	if key := tool.IdempotencyKey(ctx); key != "" {
		ctx = workspace.WithCallID(ctx, key)
	}
	res, err := ws.Exec(ctx, workspace.ExecOptions{
		Command: a.Command, Dir: a.Cwd, Timeout: timeout, MaxOutput: opts.MaxOutput,
		OnOutput: liveLines(ctx),
	})
	if err != nil && res.Duration == 0 {
		return nil, err // it never ran: bad cwd, sandbox required but missing
	}
	out := Outcome{
		ExitCode: res.ExitCode, Signal: res.Signal, Output: res.Output, Truncated: res.Truncated,
		TimedOut: res.TimedOut, DurationMS: res.Duration.Milliseconds(), Sandboxed: res.Sandboxed,
		Limit: string(res.Limit),
	}
	structured, _ := json.Marshal(out)
	r := &tool.Result{Content: render(out, res, timeout, err), Structured: structured, Truncated: res.Truncated}
	// A non-zero exit is information the model acts on, not a tool
	// failure; a command killed by timeout or cancellation is.
	r.IsError = res.TimedOut || err != nil
	return r, nil
}

// maxProgress bounds one progress report: a watcher shows a tail of the
// output, never all of it.
const maxProgress = 4 << 10

// liveLines returns the OnOutput callback that reports the command's
// output through tool.ReportProgress as it comes: whole lines only (a
// partial line waits for its end, unless it grows past maxProgress), at
// most the last maxProgress bytes of each chunk, cut at a line start when
// one is there. The workspace calls it from one goroutine, so pending
// needs no lock.
func liveLines(ctx context.Context) func([]byte) {
	var pending []byte
	return func(p []byte) {
		pending = append(pending, p...)
		var text []byte
		if i := bytes.LastIndexByte(pending, '\n'); i >= 0 {
			text, pending = pending[:i+1], append([]byte(nil), pending[i+1:]...)
		} else if len(pending) > maxProgress {
			text, pending = pending, nil
		} else {
			return
		}
		if len(text) > maxProgress {
			text = text[len(text)-maxProgress:]
			if i := bytes.IndexByte(text, '\n'); i >= 0 && i < len(text)-1 {
				text = text[i+1:]
			}
		}
		tool.ReportProgress(ctx, string(text))
	}
}

// render puts the status first, so that any later cut of the result still
// shows how the command ended.
func render(o Outcome, res workspace.ExecResult, timeout time.Duration, err error) string {
	var sb strings.Builder
	dur := time.Duration(o.DurationMS) * time.Millisecond
	switch {
	case o.TimedOut:
		fmt.Fprintf(&sb, "timed out after %s: the command and every process it started were killed\n", timeout)
	case err != nil:
		fmt.Fprintf(&sb, "interrupted after %s: %v\n", dur, err)
	case o.Signal != "":
		fmt.Fprintf(&sb, "killed by signal %s after %s\n", o.Signal, dur)
	default:
		fmt.Fprintf(&sb, "exit code %d (%s)\n", o.ExitCode, dur.Round(time.Millisecond))
	}
	if res.Limit != "" {
		sb.WriteString(limitLine(res) + "\n")
	}
	if res.Warning != "" {
		sb.WriteString("warning: " + res.Warning + "\n")
	}
	if o.Truncated {
		fmt.Fprintf(&sb, "output: %d bytes, truncated (beginning and end kept)\n", res.OutputBytes)
	}
	if o.Output == "" {
		sb.WriteString("(no output)\n")
	} else {
		sb.WriteString(o.Output)
		if !strings.HasSuffix(o.Output, "\n") {
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// limitLine says which sandbox limit the command ran into and how to
// raise it. A fork that failed at the process cap may not have stopped
// the command, so that one "was hit" rather than "stopped" it.
func limitLine(res workspace.ExecResult) string {
	what := map[sandbox.Limit]string{
		sandbox.LimitMemory:    "memory limit",
		sandbox.LimitProcesses: "process limit",
		sandbox.LimitCPUTime:   "per-process CPU time limit",
		sandbox.LimitFileSize:  "file size limit",
		sandbox.LimitOpenFiles: "open files limit",
	}[res.Limit]
	verb := "stopped: hit"
	if res.Limit == sandbox.LimitProcesses {
		verb = "a process could not start: hit"
	}
	return fmt.Sprintf("%s the sandbox's %s (%s); raise [sandbox] limits.%s", verb, what, res.LimitValue, res.Limit)
}
