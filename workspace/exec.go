package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinharness/rein/workspace/sandbox"
)

// ExecOptions describes one command run.
type ExecOptions struct {
	// Command is a bash script, run as `bash -c Command`.
	Command string
	// Dir is the workspace-relative working directory ("" for the root).
	Dir string
	// Timeout bounds the run (default Options.ExecTimeout). On expiry the
	// whole process group gets SIGTERM, then SIGKILL after the grace period.
	Timeout time.Duration
	// MaxOutput caps the output kept, split between head and tail
	// (default Options.ExecMaxOutput).
	MaxOutput int
	// Env holds extra NAME=value entries, added after scrubbing: the
	// caller's explicit choice is not second-guessed.
	Env []string
	// OnOutput, when set, sees the combined output as it is written, one
	// chunk per read of the pipe, in order, from the goroutine that
	// captures it — before the command ends, so a front end can show a
	// live tail. p is valid only during the call (the capture buffer is
	// reused): copy what you keep. The callback must return quickly: while
	// it runs the pipe is not drained and the command may block on a full
	// pipe. It sees everything written, not only what MaxOutput keeps; the
	// capture and its cap are unchanged.
	OnOutput func(p []byte)
}

// ExecResult is the outcome of a command that ran.
type ExecResult struct {
	// ExitCode is the exit status, or -1 when a signal ended the command.
	ExitCode int
	// Signal names the signal that ended the command ("" otherwise).
	Signal string
	// Output is stdout and stderr interleaved as written, capped with the
	// head and tail kept and a marker between them.
	Output string
	// Truncated reports that output was dropped; OutputBytes is the total.
	Truncated   bool
	OutputBytes int64
	// TimedOut reports that the timeout killed the command.
	TimedOut bool
	// Duration is the wall time from start to the last process's end.
	Duration time.Duration
	// Sandboxed reports that the sandbox confined the command, with
	// namespaces and Landlock or Landlock alone (see Isolation).
	Sandboxed bool
	// Isolation names the sandbox layers that applied (the
	// sandbox.Isolation* values: "namespaces+landlock", "landlock", …).
	Isolation string
	// Warning is set (once per workspace) when the sandbox was wanted but
	// unavailable and the command ran without it.
	Warning string
	// Limit names the sandbox resource limit the command hit
	// (sandbox.LimitMemory, …; "" for none) and LimitValue its value as
	// configured ("2 GiB", "1,024 processes").
	Limit      sandbox.Limit
	LimitValue string
}

// Exec runs a command with bash in the workspace. The command runs in its
// own process group with stdin from /dev/null, a scrubbed environment (see
// ScrubEnv) and TMPDIR set to a private directory removed on Close; under
// the sandbox it may write only the workspace (except the protected
// paths), that directory and Options.SandboxWritable, cannot read the
// hidden paths, has no network unless Options.SandboxNetwork, and sees no
// process outside its own PID namespace. When the command ends, times out
// or ctx is cancelled, every process left in its group (grandchildren
// included) is killed, and with namespaces the whole PID namespace with
// it: nothing it started outlives the call.
//
// A command that ran returns a result and a nil error whatever its exit
// status. Exec fails when the command could not start (bad directory,
// sandbox required but unavailable) and, with the partial result, when ctx
// was cancelled.
func (w *Workspace) Exec(ctx context.Context, o ExecOptions) (ExecResult, error) {
	if err := w.checkOpen(); err != nil {
		return ExecResult{}, err
	}
	if o.Command == "" {
		return ExecResult{}, fmt.Errorf("empty command")
	}
	dir, err := w.execDir(o.Dir)
	if err != nil {
		return ExecResult{}, err
	}
	tmp, err := w.privateTemp()
	if err != nil {
		return ExecResult{}, err
	}
	pol, err := w.SandboxPolicy(w.opts.SandboxNetwork, dir)
	if err != nil {
		return ExecResult{}, err
	}
	launch, err := sandbox.Prepare(pol, []string{"bash", "-c", o.Command})
	if err != nil {
		return ExecResult{}, fmt.Errorf("run command: %w", err)
	}
	env := ScrubEnv(os.Environ(), w.opts.EnvAllow)
	env = append(env,
		"TMPDIR="+tmp, "PWD="+dir,
		// Nothing can answer a prompt or page output: fail fast instead.
		"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
		// The policy decided the command as written: bash must not source
		// a start-up file (BASH_ENV, ENV) or resolve cd through CDPATH.
		"BASH_ENV=", "ENV=", "CDPATH=",
	)
	env = append(env, o.Env...)
	if launch.Sandboxed {
		env = append(env, w.sandboxCaches(env, tmp)...)
	}

	timeout := o.Timeout
	if timeout <= 0 {
		timeout = w.opts.ExecTimeout
	}
	maxOut := o.MaxOutput
	if maxOut <= 0 {
		maxOut = w.opts.ExecMaxOutput
	}
	before, seq := w.beforeExec()
	defer func() { w.afterExec(callIDOrNew(ctx), before, seq) }()
	res, err := runProcess(ctx, process{
		launch: launch, dir: dir, env: env,
		timeout: timeout, maxOutput: maxOut, grace: w.opts.ExecKillGrace,
		onOutput: o.OnOutput, track: w.processTracker(),
	})
	res.Sandboxed = launch.Sandboxed
	res.Isolation = launch.Isolation
	if removed := sandbox.Sweep(launch.Watch); len(removed) > 0 {
		var rel []string
		for _, p := range removed {
			if r, err := filepath.Rel(w.dir, p); err == nil {
				p = r
			}
			rel = append(rel, p)
		}
		msg := fmt.Sprintf("removed %s: commands may not create protected paths", strings.Join(rel, ", "))
		res.Output += "\nrein: " + msg + "\n"
		w.opts.Logger.Warn("rein: " + msg)
	}
	if launch.Warning != "" {
		w.warnOnce.Do(func() {
			res.Warning = launch.Warning
			w.opts.Logger.Warn("rein: " + launch.Warning)
		})
	}
	return res, err
}

// execDir confines the working directory to the workspace and returns its
// absolute path.
func (w *Workspace) execDir(name string) (string, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return "", err
	}
	// Stat through the root: a symlinked directory pointing outside fails.
	fi, err := w.root.Stat(rel)
	if err != nil {
		return "", w.wrap("working directory", name, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("working directory %s: not a directory", name)
	}
	canon, err := w.resolve(name, rel)
	if err != nil {
		return "", err
	}
	return filepath.Join(w.dir, filepath.FromSlash(canon)), nil
}

// privateTemp creates the workspace's temporary directory on first use.
func (w *Workspace) privateTemp() (string, error) {
	w.tmpOnce.Do(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.closed {
			w.tmpErr = ErrClosed
			return
		}
		w.tmpDir, w.tmpErr = os.MkdirTemp("", "rein-tmp-")
		if w.tmpErr == nil {
			w.tmpErr = os.Chmod(w.tmpDir, 0o700)
		}
	})
	if w.tmpErr != nil {
		return "", fmt.Errorf("create private temporary directory: %w", w.tmpErr)
	}
	if _, err := os.Stat(w.tmpDir); err != nil {
		// Something removed it (a command may rm -rf $TMPDIR): recreate.
		if err := os.Mkdir(w.tmpDir, 0o700); err != nil && !os.IsExist(err) {
			return "", fmt.Errorf("recreate private temporary directory: %w", err)
		}
	}
	return w.tmpDir, nil
}

// TempDir returns the private temporary directory commands get as TMPDIR,
// creating it if needed.
func (w *Workspace) TempDir() (string, error) { return w.privateTemp() }

// sandboxCaches points the tool caches at the workspace's persistent
// caches (Options.SandboxCaches) when the sandbox would forbid writing
// where they are, and the build caches at the private temporary
// directory when the persistent ones are off: without either `go build`
// fails to open its cache under ~/.cache. A cache the user made writable
// ([sandbox] writable) is kept. The host's own caches are never made
// writable by default because a poisoned build cache would run code
// outside the sandbox later. It returns the variables to add to env.
func (w *Workspace) sandboxCaches(env []string, tmp string) []string {
	get := func(key string) string { return lastEnv(env, key) }
	writable := func(p string) bool {
		for _, dir := range append([]string{w.dir, tmp}, w.opts.SandboxWritable...) {
			if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	caches := w.opts.SandboxCaches
	place := func(name, tmpName string) string {
		if d, ok := caches.Var(name); ok {
			return d
		}
		return filepath.Join(tmp, tmpName)
	}
	xdg := get("XDG_CACHE_HOME")
	if xdg == "" {
		if home := get("HOME"); home != "" {
			xdg = filepath.Join(home, ".cache")
		}
	}
	var out []string
	switch gocache := get("GOCACHE"); {
	case gocache == "off":
	case gocache == "" && xdg != "" && writable(filepath.Join(xdg, "go-build")):
		// Pin Go's default before XDG_CACHE_HOME may move below.
		out = append(out, "GOCACHE="+filepath.Join(xdg, "go-build"))
	case gocache == "" || !writable(gocache):
		out = append(out, "GOCACHE="+place("GOCACHE", "go-build"))
	}
	if xdg == "" || !writable(xdg) {
		out = append(out, "XDG_CACHE_HOME="+place("XDG_CACHE_HOME", "cache"))
	}
	// These have a persistent place only; without one the tool fails
	// to download or falls back on its own (npm: see SandboxEnv).
	for _, name := range []string{"GOMODCACHE", "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME"} {
		if d, ok := caches.Var(name); ok && !writable(get(name)) {
			out = append(out, name+"="+d)
		}
	}
	return out
}
