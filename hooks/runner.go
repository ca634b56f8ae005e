package hooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/workspace/sandbox"
)

// RunnerConfig configures a Runner.
type RunnerConfig struct {
	// Config holds the hooks to run: the caller leaves out those the
	// user has not trusted.
	Config Config
	// Workspace is the hooks' working directory, their cwd input and
	// their CLAUDE_PROJECT_DIR and REIN_PROJECT_DIR. Required.
	Workspace string
	// TranscriptDir is where Transcript writes the session's transcript;
	// hooks receive its path. "" gives them an empty transcript_path.
	TranscriptDir string
	// Env is the hooks' environment before the project variables are
	// added; nil means rein's own.
	Env []string
	// Shell runs each command with -c; "" means bash, or sh where there
	// is no bash.
	Shell string
	// MaxOutput caps what is kept of each hook's stdout and stderr
	// (default DefaultMaxOutput).
	MaxOutput int
	// Confine says how each hook's process is confined: the sandbox
	// policy it runs under and its environment (before the project
	// variables are added). Every hook starts through sandbox.Prepare
	// and Launch.Apply; nil runs each under sandbox mode Off with Env —
	// a library caller's choice, never rein's (the CLI confines every
	// hook but the user's own sandbox = false ones). Called from the
	// goroutines running hooks: it must be safe for concurrent use.
	Confine func(Command) (Confinement, error)
	// Logger receives a warning for every hook that failed, hung or
	// printed what rein could not use, and the messages hooks address to
	// the user (systemMessage); nil discards them.
	Logger *slog.Logger
}

// Confinement is how one hook runs: Policy (sandbox mode Off for none)
// and the environment Env ("NAME=value" entries).
type Confinement struct {
	Policy sandbox.Policy
	Env    []string
}

// Runner runs hooks at the loop's steering points. It implements
// agent.Steering and is safe for concurrent use.
type Runner struct {
	cfg RunnerConfig
	env []string
	log *slog.Logger
	// warnOnce shows the sandbox's warning (what is not confined) once.
	warnOnce sync.Once
}

// NewRunner checks cfg and returns a Runner.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	if cfg.Workspace == "" {
		return nil, errors.New("hooks: RunnerConfig.Workspace is required")
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.Shell == "" {
		cfg.Shell = "bash"
		if _, err := exec.LookPath("bash"); err != nil {
			cfg.Shell = "sh"
		}
	}
	for i := range cfg.Config.Groups {
		g := &cfg.Config.Groups[i]
		if err := g.compile(); err != nil {
			return nil, fmt.Errorf("hooks: %s: %w", g.Source, err)
		}
	}
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	env = withEnv(env, "CLAUDE_PROJECT_DIR", cfg.Workspace)
	env = withEnv(env, "REIN_PROJECT_DIR", cfg.Workspace)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{cfg: cfg, env: env, log: log}, nil
}

// withEnv sets name=value in env, replacing earlier values.
func withEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// selected is one hook chosen to run at a point.
type selected struct {
	cmd    Command
	layer  Layer
	source string
}

// hooksFor returns the hooks that run at p: those of every group of p's
// event whose matcher matches, each command once (a command configured in
// several layers counts as the user's when the user configured it).
func (r *Runner) hooksFor(p agent.SteerPoint) []selected {
	names := subject(p)
	var out []selected
	index := map[string]int{}
	for i := range r.cfg.Config.Groups {
		g := &r.cfg.Config.Groups[i]
		if g.Event != p.Event || (names != nil && !g.Matches(names...)) {
			continue
		}
		for _, c := range g.Hooks {
			if j, ok := index[c.Command]; ok {
				if g.Layer == LayerUser {
					out[j].layer, out[j].source = LayerUser, g.Source
				}
				continue
			}
			index[c.Command] = len(out)
			out = append(out, selected{cmd: c, layer: g.Layer, source: g.Source})
		}
	}
	return out
}

// Steer runs the hooks configured for p, in parallel, and merges what
// they say. It never fails: a hook that cannot start, fails, hangs past
// its timeout or prints what rein cannot use is a warning in the log.
func (r *Runner) Steer(ctx context.Context, p agent.SteerPoint) agent.SteerVerdict {
	hooks := r.hooksFor(p)
	if len(hooks) == 0 {
		return agent.SteerVerdict{}
	}
	stdin, err := r.buildInput(p)
	if err != nil {
		r.log.Warn("hooks: cannot encode the hook input; hooks not run", "event", p.Event, "error", err)
		return agent.SteerVerdict{}
	}
	outcomes := make([]outcome, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := r.run(ctx, h.cmd, stdin)
			outcomes[i] = interpret(p.Event, h, res)
		}()
	}
	wg.Wait()
	for _, o := range outcomes {
		r.report(p, o)
	}
	return r.merge(p, outcomes)
}

// run runs one hook, confined as RunnerConfig.Confine says.
func (r *Runner) run(ctx context.Context, c Command, stdin []byte) execResult {
	conf := Confinement{Policy: sandbox.Policy{Mode: sandbox.Off}}
	env := r.env
	if r.cfg.Confine != nil {
		var err error
		if conf, err = r.cfg.Confine(c); err != nil {
			return execResult{exitCode: -1, startErr: err}
		}
		env = withEnv(withEnv(conf.Env, "CLAUDE_PROJECT_DIR", r.cfg.Workspace), "REIN_PROJECT_DIR", r.cfg.Workspace)
	}
	conf.Policy.Dir = r.cfg.Workspace
	launch, err := sandbox.Prepare(conf.Policy, []string{r.cfg.Shell, "-c", c.Command})
	if err != nil {
		return execResult{exitCode: -1, startErr: err}
	}
	// After the hook has ended: whatever it left in its cgroup is killed
	// and the cgroup removed.
	defer launch.Release(nil)
	if launch.Warning != "" {
		r.warnOnce.Do(func() { r.log.Warn("hooks: " + launch.Warning) })
	}
	res := runHook(ctx, execSpec{
		launch: launch, dir: r.cfg.Workspace, env: env,
		stdin: stdin, timeout: c.Timeout, maxOutput: r.cfg.MaxOutput,
	})
	if removed := sandbox.Sweep(launch.Watch); len(removed) > 0 {
		r.log.Warn("hooks: removed " + strings.Join(removed, ", ") + ": hooks may not create protected paths")
	}
	return res
}

// report logs what one hook said to the user and what went wrong with
// it. Messages name the event and the command, so a handler that shows
// only the message still says which hook it was.
func (r *Runner) report(p agent.SteerPoint, o outcome) {
	attrs := []any{"event", p.Event, "command", clip(o.hook.cmd.Command), "layer", o.hook.layer, "source", o.hook.source}
	who := fmt.Sprintf("%s hook %q", p.Event, clip(o.hook.cmd.Command))
	for _, w := range o.warnings {
		r.log.Warn(who+" "+w, attrs...)
	}
	for _, m := range o.messages {
		r.log.Warn(who+" says: "+clip(textclip.OneLine(m)), attrs...)
	}
}

// transcriptPath is the transcript hooks are told about for a session.
func (r *Runner) transcriptPath(sessionID string) string {
	if r.cfg.TranscriptDir == "" || sessionID == "" {
		return ""
	}
	return TranscriptPath(r.cfg.TranscriptDir, sessionID)
}

// TranscriptPath is where Transcript writes the session's transcript in
// dir: <dir>/<session-id>.jsonl, the id reduced to safe characters.
func TranscriptPath(dir, sessionID string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			return r
		}
		return '_'
	}, sessionID)
	safe = strings.TrimLeft(safe, ".")
	if safe == "" {
		safe = "session"
	}
	return filepath.Join(dir, safe+".jsonl")
}
