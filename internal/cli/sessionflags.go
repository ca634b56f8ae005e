package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/procreg"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model/provider"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/telemetry"
	"github.com/reinharness/rein/telemetry/redact"
	"github.com/reinharness/rein/workspace"
)

// EnvDebug turns on debug logging: the session's event log then keeps
// tool arguments and results in full (they are cut to 1 KB otherwise), and
// exported trace contents too when they are opted in.
const EnvDebug = "REIN_DEBUG"

// telemetryShutdown bounds the final flush of traces at exit: an
// unreachable collector may cost a run's exit this much, never more.
const telemetryShutdown = 3 * time.Second

// sweepTimeout bounds the start-up sweep of leftover temporary files.
const sweepTimeout = 2 * time.Second

// sessionFlags choose the session a run or chat records into. Without
// them every run starts a new session.
type sessionFlags struct {
	fs   *pflag.FlagSet
	id   string
	cont bool
	fork bool
	// pick is -r/--resume without an ID: the user picks the session
	// (see resolvePick) before it is opened.
	pick bool
}

func (f *sessionFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.id, "session", "", "resume the stored session ID (or a unique prefix of it); see rein sessions list")
	fs.BoolVarP(&f.cont, "continue", "c", false, "resume the latest session of this workspace")
	f.registerResume(fs)
	fs.BoolVar(&f.fork, "fork", false, "with --session or --continue: continue a copy, leaving the original as it is")
}

// validate checks the combinations.
func (f *sessionFlags) validate() error {
	switch {
	case f.id != "" && f.cont, f.pick && (f.id != "" || f.cont), f.fs != nil && f.fs.Changed("session") && f.fs.Changed("resume"):
		return usagef("--session, --resume and --continue each choose the session to resume; give one")
	case f.fork && f.id == "" && !f.cont && !f.pick:
		return usagef("--fork copies the session chosen by --session ID or --continue; give one of them")
	case f.fs != nil && f.fs.Changed("session") && strings.TrimSpace(f.id) == "":
		return usagef("--session needs a session id; rein sessions list shows them")
	}
	return nil
}

// resuming reports whether the flags choose an existing session.
func (f *sessionFlags) resuming() bool { return f.id != "" || f.cont || f.pick }

// sessionRun is the durable record of a run or chat: the conversation to
// run on, and itself as the agent's Journal and Hook — it forwards to the
// current session's journal, event log and tracer, so that chat's /clear
// can start a new session under the same agent.
//
// Wire it as agent.Config{Journal: sr, Hooks: []agent.Hook{sr}} and run
// on sr.Conversation(); call close when done.
type sessionRun struct {
	app       *App
	store     *session.SQLite
	stateDir  string
	workspace string
	model     string
	debug     bool
	// noEventLog is [telemetry] event_log = false: no JSONL event log.
	noEventLog bool
	tracer     *telemetry.Tracer
	tracing    *telemetry.Tracing

	mu      sync.Mutex
	id      string
	conv    *agent.Conversation
	journal session.Journal
	log     *telemetry.Log
	resumed *session.Resumed
	// logWarned is set once a failing event log was reported.
	logWarned bool
	// ws is the workspace whose changes are recorded, seenSeq the last
	// change already recorded.
	ws      *workspace.Workspace
	seenSeq int64
	// fresh marks a session this process created; appended is set once
	// anything was journaled into the current session. A fresh session
	// left without an event (a chat opened and closed, a /clear right
	// after another) is deleted when it is detached: it holds nothing to
	// resume and would only clutter rein sessions list.
	fresh, appended bool
	// procs records the processes of running calls; swept is what its
	// sweep at start killed of stopped reins (see procsweep.go).
	procs *procreg.Registry
	swept []procreg.Record
}

var (
	_ agent.Journal = (*sessionRun)(nil)
	_ agent.Hook    = (*sessionRun)(nil)
)

// openSession opens the session store under the state directory and
// prepares the session the flags choose: a new one, the one given by
// --session, the latest of the workspace (--continue), or a fork of
// either. A resumed session's interrupted tool calls are answered (see
// session.Resume) and listed on stderr. Secrets known from the
// configuration and the environment are registered for redaction first.
func (a *App) openSession(ctx context.Context, f *sessionFlags, stateDirFlag string, cfg *config.Config, workspace string) (*sessionRun, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	registerSecrets(cfg, a.Getenv, a.environ())
	dir := host.StateDir(stateDirFlag, a.Getenv)
	if dir == "" {
		return nil, errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir")
	}
	ss, err := host.LoadSessionSettings(cfg)
	if err != nil {
		return nil, err
	}
	ts, err := host.LoadTelemetrySettings(cfg)
	if err != nil {
		return nil, err
	}
	for _, w := range append(ss.Warnings, ts.Warnings...) {
		fmt.Fprintf(a.Stderr, "rein: warning: %s\n", textclip.FirstLine(w))
	}
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(dir, session.DatabaseFile), StoreDeltas: ss.StoreDeltas})
	if err != nil {
		return nil, err
	}
	sr := &sessionRun{
		app: a, store: store, stateDir: dir, workspace: workspace, model: cfg.Model.Model,
		debug: truthy(a.Getenv(EnvDebug)), noEventLog: !ts.EventLog,
	}
	if err := sr.setupTracing(ctx, cfg, ts.OtlpGetenv(a.Getenv)); err != nil {
		store.Close()
		return nil, err
	}
	sr.openProcesses()
	if err := sr.choose(ctx, f); err != nil {
		sr.close()
		return nil, err
	}
	return sr, nil
}

// choose opens the session the flags name, or a new one.
func (sr *sessionRun) choose(ctx context.Context, f *sessionFlags) error {
	if !f.resuming() {
		sr.reportSwept("")
		return sr.startNew(ctx)
	}
	id := f.id
	if f.cont {
		latest, err := sr.store.Latest(ctx, sr.workspace)
		if err != nil {
			return err
		}
		id = latest.ID
	}
	recorded := id // the session its calls' processes were recorded under
	if f.fork {
		forked, err := sr.store.Fork(ctx, id)
		if err != nil {
			return err
		}
		id = forked
	}
	res, err := session.Resume(ctx, sr.store, id, nil)
	if err != nil {
		return err
	}
	if err := sr.attach(res.Conversation, res.Journal); err != nil {
		return err
	}
	sr.resumed = res
	if ws := res.Snapshot.Info.Workspace; ws != sr.workspace {
		fmt.Fprintf(sr.app.Stderr, "rein: warning: session %s was recorded in %s; it continues in %s\n", res.Conversation.ID(), ws, sr.workspace)
	}
	sr.reportInterrupted(res, recorded)
	return nil
}

// startNew creates a fresh session and makes it current.
func (sr *sessionRun) startNew(ctx context.Context) error {
	info, j, err := createSession(ctx, sr.store, session.Info{Workspace: sr.workspace, Model: sr.model})
	if err != nil {
		return err
	}
	if err := sr.attach(agent.NewConversation(info.ID), j); err != nil {
		return errors.Join(err, j.Close(), sr.store.Delete(context.WithoutCancel(ctx), info.ID))
	}
	sr.mu.Lock()
	sr.fresh, sr.appended = true, false
	sr.mu.Unlock()
	return nil
}

// sessionCreator is what createSession needs of a store.
type sessionCreator interface {
	Create(ctx context.Context, info session.Info) (session.Info, error)
	Journal(ctx context.Context, id string) (session.Journal, error)
	Delete(ctx context.Context, id string) error
}

// createSession creates a session and opens its journal. When the journal
// cannot be opened the session is deleted again: one nobody can write to
// would stay listed, empty, for good.
func createSession(ctx context.Context, st sessionCreator, info session.Info) (session.Info, session.Journal, error) {
	info, err := st.Create(ctx, info)
	if err != nil {
		return info, nil, err
	}
	j, err := st.Journal(ctx, info.ID)
	if err != nil {
		return info, nil, errors.Join(err, st.Delete(context.WithoutCancel(ctx), info.ID))
	}
	return info, j, nil
}

// attach makes conv and its journal current and opens its event log.
func (sr *sessionRun) attach(conv *agent.Conversation, j session.Journal) error {
	var log *telemetry.Log
	var err error
	if !sr.noEventLog {
		log, err = telemetry.OpenLog(telemetry.LogConfig{
			Path:    telemetry.LogPath(sr.stateDir, conv.ID()),
			Debug:   sr.debug,
			OnError: sr.logFailed,
		})
	}
	if err != nil {
		// The log is telemetry: a run goes on without it.
		fmt.Fprintf(sr.app.Stderr, "rein: warning: %s; the run goes on without an event log\n", textclip.FirstLine(err.Error()))
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	sr.id, sr.conv, sr.journal, sr.log = conv.ID(), conv, j, log
	return nil
}

func (sr *sessionRun) logFailed(err error) {
	if !sr.logWarned {
		sr.logWarned = true
		fmt.Fprintf(sr.app.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
	}
}

// setupTracing starts the OTLP pipeline when the environment asks for it.
func (sr *sessionRun) setupTracing(ctx context.Context, cfg *config.Config, getenv func(string) string) error {
	tr, err := telemetry.SetupOTLP(ctx, getenv, versionString(version, readBuildInfo()))
	if err != nil {
		return err
	}
	if tr == nil {
		return nil
	}
	sr.tracing = tr
	sr.tracer = telemetry.NewTracer(telemetry.TracerConfig{
		Provider: tr.Provider, Model: cfg.Model.Model, ProviderName: cfg.Model.Provider,
		CaptureContent: tr.CaptureContent, Debug: sr.debug,
	})
	return nil
}

// ID returns the current session's id.
func (sr *sessionRun) ID() string {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return sr.id
}

// Conversation returns the current session's conversation.
func (sr *sessionRun) Conversation() *agent.Conversation {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return sr.conv
}

// Resumed returns what resuming found, nil for a new session.
func (sr *sessionRun) Resumed() *session.Resumed {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return sr.resumed
}

// input returns the run's input for a headless run given prompt (which
// may be "" when resuming): a resumed session that ends waiting for the
// model continues with no new message.
func (sr *sessionRun) input(prompt string) (string, error) {
	if strings.TrimSpace(prompt) != "" {
		return prompt, nil
	}
	if res := sr.Resumed(); res != nil && res.AwaitsModel() {
		return "", nil
	}
	if sr.Resumed() != nil {
		return "", usagef("session %s is not waiting for the model; give a PROMPT to continue it", sr.ID())
	}
	return "", usagef("missing PROMPT: rein run [flags] PROMPT (use - to read it from stdin)")
}

// restart closes the current session and starts a new one (chat's
// /clear); it returns the new conversation.
func (sr *sessionRun) restart(ctx context.Context) (*agent.Conversation, error) {
	if err := sr.detach(); err != nil {
		fmt.Fprintf(sr.app.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
	}
	sr.mu.Lock()
	sr.resumed = nil
	sr.mu.Unlock()
	if err := sr.startNew(ctx); err != nil {
		return nil, err
	}
	return sr.Conversation(), nil
}

// Append implements agent.Journal on the current session.
func (sr *sessionRun) Append(ctx context.Context, ev agent.Event) error {
	sr.mu.Lock()
	j := sr.journal
	sr.mu.Unlock()
	if j == nil {
		return errors.New("no session is open")
	}
	sr.mu.Lock()
	sr.appended = true
	sr.mu.Unlock()
	return j.Append(ctx, ev)
}

// OnEvent implements agent.Hook: the event log and the tracer, and after
// each tool result the files it changed.
func (sr *sessionRun) OnEvent(ctx context.Context, ev agent.Event) {
	sr.mu.Lock()
	log := sr.log
	sr.mu.Unlock()
	if log != nil {
		log.OnEvent(ctx, ev)
	}
	if sr.tracer != nil {
		sr.tracer.OnEvent(ctx, ev)
	}
	if ev.Type == agent.EventToolResult {
		sr.recordFileChanges(ctx, ev)
	}
}

// watchWorkspace makes the session record the workspace's file changes
// from now on (earlier ones belong to no call of this session).
//
// It first removes the temporary files of atomic writes a killed rein left
// in the workspace (workspace.SweepTemp), saying so on stderr.
func (sr *sessionRun) watchWorkspace(ws *workspace.Workspace) {
	ctx, cancel := context.WithTimeout(context.Background(), sweepTimeout)
	removed := ws.SweepTemp(ctx)
	cancel()
	if n := len(removed); n > 0 {
		fmt.Fprintf(sr.app.Stderr, "rein: removed %s a stopped rein left in the workspace: %s\n",
			plural(n, "temporary file"), strings.Join(removed[:min(n, 3)], ", ")+map[bool]string{true: ", …"}[n > 3])
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	sr.ws = ws
	if sr.procs != nil {
		ws.TrackProcesses(sr)
	}
	if cs := ws.Changes(); len(cs) > 0 {
		sr.seenSeq = cs[len(cs)-1].Seq
	}
}

// recordFileChanges journals, as file.change events, the changes the
// workspace made since the last tool result: each names the call that
// made it by its idempotency key. It runs as a hook, so a failure is
// reported and the run goes on; the workspace's own journal still has the
// changes.
func (sr *sessionRun) recordFileChanges(ctx context.Context, result agent.Event) {
	sr.mu.Lock()
	ws, j, log, id := sr.ws, sr.journal, sr.log, sr.id
	var changes []workspace.Change
	if ws != nil {
		changes = ws.ChangesSince(sr.seenSeq)
		if len(changes) > 0 {
			sr.seenSeq = changes[len(changes)-1].Seq
		}
	}
	sr.mu.Unlock()
	for _, c := range changes {
		if strings.HasPrefix(c.CallID, undoCallPrefix) {
			continue // an undo's own writes are recorded as the undo
		}
		sr.keepBeforeImage(ctx, id, c)
		ev := agent.Event{
			Type: agent.EventFileChange, RunID: result.RunID, Step: result.Step, Time: c.Time,
			FileChange: &agent.FileChange{
				Path: c.Path, Kind: c.Kind(), CallKey: c.CallID,
				BeforeHash: c.Before.Hash, AfterHash: c.After.Hash, AfterSize: c.After.Size,
			},
		}
		if j != nil {
			if err := j.Append(ctx, ev); err != nil {
				sr.logFailed(fmt.Errorf("recording the change of %s in the session: %w", c.Path, err))
			}
		}
		if log != nil {
			log.OnEvent(ctx, ev)
		}
	}
}

// keepBeforeImage stores the content c replaced in the session store, so
// that `rein undo` and a later chat's /undo can restore it. Contents the
// workspace journal did not keep (over its per-file cap) cannot be kept
// here either: undo then refuses the change by name.
//
// The content c left is kept too (under the same caps), so that `rein
// diff` and /diff can show the change after the file moved on.
func (sr *sessionRun) keepBeforeImage(ctx context.Context, id string, c workspace.Change) {
	for _, st := range []workspace.State{c.Before, c.After} {
		if !st.Exists || !st.Stored {
			continue
		}
		if _, err := sr.store.PutImage(ctx, id, st.Data); err != nil {
			sr.logFailed(fmt.Errorf("keeping the content of %s for undo and diff: %w", c.Path, err))
		}
	}
}

// detach closes the current session's journal and log, and deletes the
// session when this process created it and nothing was recorded in it.
func (sr *sessionRun) detach() error {
	sr.mu.Lock()
	j, log, id := sr.journal, sr.log, sr.id
	empty := sr.fresh && !sr.appended
	sr.journal, sr.log = nil, nil
	sr.fresh = false
	sr.mu.Unlock()
	var err error
	if j != nil {
		err = j.Close()
	}
	if log != nil {
		log.Close()
	}
	if empty && err == nil && id != "" {
		err = sr.discard(id)
	}
	return err
}

// discard deletes an empty session and its event log.
func (sr *sessionRun) discard(id string) error {
	if err := sr.store.Delete(context.Background(), id); err != nil {
		return fmt.Errorf("removing the empty session %s: %w", id, err)
	}
	if err := os.Remove(telemetry.LogPath(sr.stateDir, id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the event log of the empty session %s: %w", id, err)
	}
	return nil
}

// close commits and closes everything, flushing traces within
// telemetryShutdown. Telemetry problems are reported as one warning line
// each; they do not change the run's exit status.
func (sr *sessionRun) close() {
	if err := sr.detach(); err != nil {
		fmt.Fprintf(sr.app.Stderr, "rein: %s\n", textclip.FirstLine(err.Error()))
	}
	if err := sr.store.Close(); err != nil {
		fmt.Fprintf(sr.app.Stderr, "rein: %s\n", textclip.FirstLine(err.Error()))
	}
	if sr.tracing != nil {
		ctx, cancel := context.WithTimeout(context.Background(), telemetryShutdown)
		defer cancel()
		if err := sr.tracing.Shutdown(ctx); err != nil {
			fmt.Fprintf(sr.app.Stderr, "rein: warning: %s\n", textclip.FirstLine(err.Error()))
		}
	}
}

// registerSecrets registers every credential rein knows of so that no
// output, store, log, trace or message shows it, in any of the encodings
// secret.Register lists: the configured API key, the keys in the
// environment whichever provider they belong to, and the value of every
// variable of environ whose name marks a credential (GITHUB_TOKEN,
// *_PASSWORD, …; see workspace.CredentialEnv) and is at least
// minEnvSecret bytes long.
func registerSecrets(cfg *config.Config, getenv func(string) string, environ []string) {
	values := []string{cfg.Model.APIKey.Reveal()}
	for _, name := range append(provider.AllKeyVars(), cfg.Model.APIKeyEnv) {
		if name != "" {
			values = append(values, getenv(name))
		}
	}
	values = append(values, workspace.CredentialEnv(environ, minEnvSecret)...)
	redact.Register(values...)
}

// environ is a.Environ(), nil when the App was never given defaults.
func (a *App) environ() []string {
	if a.Environ == nil {
		return nil
	}
	return a.Environ()
}

// minEnvSecret is the shortest environment value registered as a secret:
// shorter values (a "true", a region name) would redact common words.
const minEnvSecret = 8

func truthy(s string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	return err == nil && b
}
