package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/reinharness/rein/config"
	engine "github.com/reinharness/rein/engine/temporal"
)

// The Temporal commands: rein worker serves sessions, rein submit starts
// them (one, or a batch), rein status / cancel / approve act on one. None
// of them is reached by rein run or chat: without them nothing of Temporal
// starts.

// dialTemporal connects to the Temporal service. The SDK's log goes to
// stderr, warnings only, so stdout stays the command's.
func (a *App) dialTemporal(s temporalSettings) (client.Client, error) {
	c, err := client.Dial(client.Options{
		HostPort: s.address, Namespace: s.namespace,
		Logger: tlog.NewStructuredLogger(slog.New(&warningHandler{w: a.Stderr})),
	})
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s (namespace %s): %v", s.address, s.namespace, oneLine(err.Error()))
	}
	return c, nil
}

// loadClientConfig loads the configuration of a client command: the
// current workspace's layers, for [temporal] and [model].
func (a *App) loadClientConfig(configFile string) (*config.Config, string, error) {
	var cf commonFlags
	cf.register(pflag.NewFlagSet("client", pflag.ContinueOnError))
	cf.configFile = configFile
	return a.load(&cf)
}

// temporalClient loads the settings and dials.
func (a *App) temporalClient(tf *temporalFlags) (client.Client, temporalSettings, *config.Config, string, error) {
	cfg, dir, err := a.loadClientConfig(tf.configFile)
	if err != nil {
		return nil, temporalSettings{}, nil, "", err
	}
	s, err := loadTemporal(cfg, tf)
	if err != nil {
		return nil, temporalSettings{}, nil, "", err
	}
	c, err := a.dialTemporal(s)
	if err != nil {
		return nil, temporalSettings{}, nil, "", err
	}
	return c, s, cfg, dir, nil
}

// workspaceArg is one --workspace of rein worker: [NAME=]DIR.
type workspaceArg struct{ name, dir string }

func (a *App) parseWorkspaces(args []string) ([]workspaceArg, error) {
	if len(args) == 0 {
		wd, err := a.Getwd()
		if err != nil {
			return nil, fmt.Errorf("cannot determine the current directory (%v); pass --workspace DIR", err)
		}
		args = []string{wd}
	}
	var out []workspaceArg
	seen := map[string]bool{}
	for _, arg := range args {
		name, dir, ok := strings.Cut(arg, "=")
		if !ok || strings.ContainsRune(name, filepath.Separator) {
			name, dir = "", arg
		}
		abs, err := a.workspace(dir)
		if err != nil {
			return nil, err
		}
		if name == "" {
			name = filepath.Base(abs)
		}
		if err := validateName("workspace name", name); err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, usagef("two workspaces are named %q: name one NAME=DIR", name)
		}
		seen[name] = true
		out = append(out, workspaceArg{name: name, dir: abs})
	}
	return out, nil
}

func (a *App) workerCommand() *cobra.Command {
	var (
		tf         temporalFlags
		cf         commonFlags
		workspaces []string
	)
	cmd := &cobra.Command{
		Use:   "worker --temporal HOST:PORT [--workspace [NAME=]DIR]...",
		Short: "Serve sessions from a Temporal service: their model calls, and the tools of the workspaces given",
		Long: `rein worker polls a Temporal service for sessions started with rein submit.
Every worker runs session workflows and model calls (the shared queue, "rein");
the setup, policy decisions and tool calls of a workspace go to the queue
rein.ws.NAME, served only by the workers started with that workspace.

The model settings ([model], --endpoint, --model…) are the worker's own, as
for rein run. SIGINT or SIGTERM stops the worker gracefully: running calls
get 10 s; a call whose worker dies is reported to the model as interrupted,
never run twice.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serveWorker(cmd.Context(), &tf, cf, workspaces)
		},
	}
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	cf.register(fs)
	for _, name := range []string{"endpoint", "api-key", "model", "provider", "config", "state-dir"} {
		cmd.Flags().AddFlag(fs.Lookup(name))
	}
	tf.register(cmd.Flags())
	cmd.Flags().StringArrayVar(&workspaces, "workspace", nil, "a workspace this worker holds, [NAME=]DIR (repeatable; default the current directory, named after its base name)")
	return cmd
}

func (a *App) serveWorker(ctx context.Context, tf *temporalFlags, cf commonFlags, args []string) error {
	wss, err := a.parseWorkspaces(args)
	if err != nil {
		return err
	}
	first := cf
	first.workspace = wss[0].dir
	cfg, _, err := a.load(&first)
	if err != nil {
		return err
	}
	s, err := loadTemporal(cfg, tf)
	if err != nil {
		return err
	}
	p, err := newProvider(cfg.Model)
	if err != nil {
		return err
	}
	held := map[string]engine.Workspace{}
	for _, w := range wss {
		tw := newTemporalWorkspace(a, cf, w.dir)
		defer tw.close()
		// Build the default harness now: a broken workspace fails the
		// start, not the first session.
		if _, err := tw.get(ctx, ""); err != nil {
			return fmt.Errorf("workspace %s (%s): %w", w.name, w.dir, err)
		}
		held[w.name] = tw
	}
	c, err := a.dialTemporal(s)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = engine.Serve(ctx, engine.WorkerConfig{
		Client: c, Queue: s.queue, Models: temporalModels{p}, Workspaces: held,
		Ready: func(queue string, _ []string) {
			for _, w := range wss {
				fmt.Fprintf(a.Stderr, "rein worker: workspace %s (%s): queue %s\n", w.name, w.dir, engine.WorkspaceQueue(queue, w.name))
			}
			fmt.Fprintf(a.Stderr, "rein worker: ready: queue %s on %s\n", queue, s)
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(a.Stderr, "rein worker: stopped")
	return nil
}

// newSessionID mints a session id like the session store's.
func newSessionID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "s" + hex.EncodeToString(b[:])
}
