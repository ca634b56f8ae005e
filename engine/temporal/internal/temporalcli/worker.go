package temporalcli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/reinharness/rein/config"
	engine "github.com/reinharness/rein/engine/temporal"
	"github.com/reinharness/rein/internal/cli"
	"github.com/reinharness/rein/model"
)

// Commands are the Temporal commands: rein worker, submit, status, cancel
// and approve (cmd/rein-temporal's extension of rein's command line).
func Commands(a *cli.App) []*cobra.Command {
	return []*cobra.Command{workerCommand(a), submitCommand(a), statusCommand(a), cancelCommand(a), approveCommand(a)}
}

// The Temporal commands: rein worker serves sessions, rein submit starts
// them (one, or a batch), rein status / cancel / approve act on one. None
// of them is reached by rein run or chat: without them nothing of Temporal
// starts.

// dialTemporal connects to the Temporal service. The SDK's log goes to
// stderr, warnings only, so stdout stays the command's.
func dialTemporal(a *cli.App, s temporalSettings) (client.Client, error) {
	c, err := client.Dial(client.Options{
		HostPort: s.address, Namespace: s.namespace,
		Logger: tlog.NewStructuredLogger(a.WarningLogger()),
	})
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s (namespace %s): %v", s.address, s.namespace, cli.OneLine(err.Error()))
	}
	return c, nil
}

// loadClientConfig loads the configuration of a client command: the
// current workspace's layers, for [temporal] and [model].
func loadClientConfig(a *cli.App, configFile string) (*config.Config, string, error) {
	var mf cli.ModelFlags
	mf.SetConfigFile(configFile)
	return a.LoadConfig(&mf, "")
}

// temporalClient loads the settings and dials.
func temporalClient(a *cli.App, tf *temporalFlags) (client.Client, temporalSettings, *config.Config, string, error) {
	cfg, dir, err := loadClientConfig(a, tf.configFile)
	if err != nil {
		return nil, temporalSettings{}, nil, "", err
	}
	s, err := loadTemporal(cfg, tf)
	if err != nil {
		return nil, temporalSettings{}, nil, "", err
	}
	c, err := dialTemporal(a, s)
	if err != nil {
		return nil, temporalSettings{}, nil, "", err
	}
	return c, s, cfg, dir, nil
}

// workspaceArg is one --workspace of rein worker: [NAME=]DIR.
type workspaceArg struct{ name, dir string }

func parseWorkspaces(a *cli.App, args []string) ([]workspaceArg, error) {
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
		abs, err := a.ResolveWorkspace(dir)
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
			return nil, cli.Usagef("two workspaces are named %q: name one NAME=DIR", name)
		}
		seen[name] = true
		out = append(out, workspaceArg{name: name, dir: abs})
	}
	return out, nil
}

func workerCommand(a *cli.App) *cobra.Command {
	var (
		tf         temporalFlags
		mf         cli.ModelFlags
		workspaces []string
		maxPreset  string
		replayAll  bool
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
			return a.Fail(serveWorker(a, cmd.Context(), &tf, &mf, workspaces, maxPreset, replayAll))
		},
	}
	mf.Register(cmd.Flags())
	tf.register(cmd.Flags())
	cmd.Flags().StringVar(&maxPreset, "max-preset", "", "the widest policy preset a session may ask for with rein submit --preset (default: the workspace's configured preset, editor unless [policy] preset says otherwise)")
	cmd.Flags().BoolVar(&replayAll, "replay-every-task", false, "keep no session in memory between its workflow tasks, replaying its whole history each time: slow; a check that sessions replay deterministically")
	cmd.Flags().StringArrayVar(&workspaces, "workspace", nil, "a workspace this worker holds, [NAME=]DIR (repeatable; default the current directory, named after its base name)")
	return cmd
}

func serveWorker(a *cli.App, ctx context.Context, tf *temporalFlags, mf *cli.ModelFlags, args []string, maxPreset string, replayAll bool) error {
	wss, err := parseWorkspaces(a, args)
	if err != nil {
		return err
	}
	cfg, _, err := a.LoadConfig(mf, wss[0].dir)
	if err != nil {
		return err
	}
	tf.configFile = mf.ConfigFile()
	s, err := loadTemporal(cfg, tf)
	if err != nil {
		return err
	}
	p, err := cli.NewProvider(cfg)
	if err != nil {
		return err
	}
	held := map[string]engine.Workspace{}
	for _, w := range wss {
		tw := a.OpenWorkspace(mf, w.dir)
		defer tw.Close()
		if maxPreset != "" {
			if err := tw.SetMaxPreset(maxPreset); err != nil {
				return err
			}
		}
		// Build the default harness now: a broken workspace fails the
		// start, not the first session.
		if err := tw.Warm(ctx); err != nil {
			return fmt.Errorf("workspace %s (%s): %w", w.name, w.dir, err)
		}
		held[w.name] = tw
	}
	c, err := dialTemporal(a, s)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = engine.Serve(ctx, engine.WorkerConfig{
		Client: c, Queue: s.queue, Models: models{p}, Workspaces: held, ReplayEveryTask: replayAll,
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

// models is the worker's model backend, from its configuration.
type models struct{ p model.Provider }

// Provider implements engine.Models.
func (m models) Provider(context.Context) (model.Provider, error) { return m.p, nil }
