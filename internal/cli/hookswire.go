package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// transcriptsDir is where session transcripts for hooks live in the
// state directory.
const transcriptsDir = "transcripts"

// wireHooks loads the configured hooks and, when any may run, makes them
// the agent's Steering, adds the transcript they read to the agent's
// hooks, and has the approver tell them (Notification) before it asks the
// user. The workspace's hooks run only once trusted; otherwise one
// warning says so. Without a session (no state directory) nothing is
// wired.
func (a *App) wireHooks(cfg *config.Config, h *harness, sr *sessionRun, ac *agent.Config) error {
	if sr == nil || sr.stateDir == "" {
		return nil
	}
	runner, dir, err := a.hookRunner(cfg, h, sr.stateDir)
	if err != nil || runner == nil {
		return err
	}
	log := slog.New(&hookLogHandler{w: a.Stderr})
	ac.Steering, h.steer = runner, runner
	ac.Hooks = append(ac.Hooks, hooks.NewTranscript(dir, log))
	if asksUser(ac.Approver) {
		ac.Approver = &notifyingApprover{inner: ac.Approver, steer: runner, session: sr.ID}
	}
	return nil
}

// hookRunner builds the runner of the hooks that may run in h's
// workspace (the user's, and the workspace's once trusted), nil when none
// may; dir is where their transcripts live.
func (a *App) hookRunner(cfg *config.Config, h *harness, stateDir string) (*hooks.Runner, string, error) {
	ws := h.ws.Dir()
	set, err := host.LoadHooks(cfg, host.CanonicalDir(ws))
	if err != nil {
		return nil, "", err
	}
	a.warnHookConfig(set.Warnings)
	run := set.User
	if len(set.Project.Groups) > 0 {
		store := &host.TrustStore{Path: filepath.Join(stateDir, host.HooksTrustFile)}
		if st := store.Status(set.Project, host.CanonicalDir(ws)); st.Trusted {
			run.Add(set.Project)
		} else {
			a.warnUntrustedHooks(set.Project, st)
		}
	}
	if len(run.Groups) == 0 {
		return nil, "", nil
	}
	log := slog.New(&hookLogHandler{w: a.Stderr})
	dir := filepath.Join(stateDir, transcriptsDir)
	runner, err := hooks.NewRunner(hooks.RunnerConfig{
		Config: run, Workspace: ws, TranscriptDir: dir, Env: a.environ(), Logger: log,
		Confine: hookConfiner(h.ws, a.environ()),
	})
	if err != nil {
		return nil, "", err
	}
	return runner, dir, nil
}

// hookConfiner runs every hook in its own instance of the workspace's
// sandbox (workspace writable, protected paths read-only, hidden paths
// masked) with the secrets of environ scrubbed as for commands, and with
// the session's network unless the user's config sets the hook's own.
// Only a user hook with sandbox = false — checked at load to run nothing
// in the workspace — runs unconfined, with rein's environment.
func hookConfiner(ws *workspace.Workspace, environ []string) func(hooks.Command) (hooks.Confinement, error) {
	if environ == nil {
		environ = os.Environ() // Main's App lists nothing: rein's own
	}
	return func(c hooks.Command) (hooks.Confinement, error) {
		if c.Unconfined {
			return hooks.Confinement{Policy: sandbox.Policy{Mode: sandbox.Off}, Env: environ}, nil
		}
		network := ws.SandboxNetwork()
		if c.Network != nil {
			network = *c.Network
		}
		pol, err := ws.SandboxPolicy(network, "")
		if err != nil {
			return hooks.Confinement{}, err
		}
		env, err := ws.SandboxEnv(environ, true)
		if err != nil {
			return hooks.Confinement{}, err
		}
		return hooks.Confinement{Policy: pol, Env: env}, nil
	}
}

// warnUntrustedHooks says once that the workspace's hooks did not run,
// why, and how to allow them.
func (a *App) warnUntrustedHooks(project hooks.Config, st host.TrustStatus) {
	sources := map[string]bool{}
	for _, g := range project.Groups {
		sources[g.Source] = true
	}
	var names []string
	for s := range sources {
		names = append(names, s)
	}
	sort.Strings(names)
	what := fmt.Sprintf("the workspace defines %d hooks (%s)", project.Len(), pathList(names))
	switch {
	case st.Err != nil:
		fmt.Fprintf(a.Stderr, "rein: warning: %s that were not run: %s\n", what, textclip.FirstLine(st.Err.Error()))
	case st.Known:
		fmt.Fprintf(a.Stderr, "rein: warning: %s that were not run: they or the files they run changed since you trusted them; review them with rein hooks list, then run: rein hooks trust\n", what)
	default:
		fmt.Fprintf(a.Stderr, "rein: warning: %s that were not run; review them with rein hooks list, then run: rein hooks trust\n", what)
	}
}

// asksUser reports whether approver puts questions to a person, so that
// Notification hooks are told before it does.
func asksUser(approver policy.Approver) bool {
	return approver != nil && approver != policy.Never() && approver != policy.Auto()
}

// notifyingApprover runs the Notification hooks before the user is asked
// to approve a call, as Claude Code does when it needs a permission.
type notifyingApprover struct {
	inner   policy.Approver
	steer   agent.Steering
	session func() string
}

// Approve implements policy.Approver.
func (n *notifyingApprover) Approve(ctx context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
	if d.Action == policy.Ask {
		n.steer.Steer(ctx, agent.SteerPoint{
			Event: agent.SteerNotification, SessionID: n.session(),
			Text: "rein needs your permission to use " + hooks.ClaudeName(c.Spec.Name),
		})
	}
	return n.inner.Approve(ctx, c, d)
}

// hookLogHandler prints the hooks' warnings and messages on stderr, one
// escaped line each: they quote what hook commands printed.
type hookLogHandler struct{ w io.Writer }

// Enabled implements slog.Handler: warnings and errors only.
func (h *hookLogHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

// Handle implements slog.Handler.
func (h *hookLogHandler) Handle(_ context.Context, r slog.Record) error {
	msg := strings.TrimPrefix(r.Message, "hooks: ")
	_, err := fmt.Fprintf(h.w, "rein: warning: %s\n", termText(msg, 400))
	return err
}

// WithAttrs implements slog.Handler; attributes are not shown (the
// message names the hook).
func (h *hookLogHandler) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup implements slog.Handler.
func (h *hookLogHandler) WithGroup(string) slog.Handler { return h }
