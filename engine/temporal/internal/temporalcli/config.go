package temporalcli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/reinharness/rein/config"
	engine "github.com/reinharness/rein/engine/temporal"
	"github.com/reinharness/rein/internal/cli"
)

// temporalSection is the [temporal] table:
//
//	[temporal]
//	address = "127.0.0.1:7233"     # the Temporal frontend; nothing connects without it (or --temporal)
//	namespace = "default"
//	queue = "rein"                 # the shared task queue; workspaces get "rein.ws.NAME"
//	approval_timeout = "10m"       # an unanswered approval is a denial after this
//	heartbeat_timeout = "10s"      # a silent worker is taken for dead after this
//	max_history = 10000            # history events before a session continues as new
type temporalSection struct {
	Address          string `toml:"address"`
	Namespace        string `toml:"namespace"`
	Queue            string `toml:"queue"`
	ApprovalTimeout  string `toml:"approval_timeout"`
	HeartbeatTimeout string `toml:"heartbeat_timeout"`
	MaxHistory       *int   `toml:"max_history"`
}

// temporalSettings are the merged [temporal] table and flags.
type temporalSettings struct {
	address, namespace, queue         string
	approvalTimeout, heartbeatTimeout time.Duration
	maxHistory                        int
}

// temporalFlags are the flags every Temporal command takes.
type temporalFlags struct {
	address, namespace, queue, configFile string
	fs                                    *pflag.FlagSet
}

func (f *temporalFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.address, "temporal", "", "the Temporal frontend HOST:PORT (default [temporal] address)")
	fs.StringVar(&f.namespace, "namespace", "", "the Temporal namespace (default [temporal] namespace, else default)")
	fs.StringVar(&f.queue, "queue", "", "the shared task queue (default [temporal] queue, else rein)")
	if fs.Lookup("config") == nil {
		fs.StringVar(&f.configFile, "config", "", "config file to use instead of ~/.config/rein/config.toml")
	}
}

// loadTemporal merges the [temporal] layers (later wins) under the flags.
// Only the user's layers count: a repository must not point a user's
// client at another cluster.
func loadTemporal(cfg *config.Config, f *temporalFlags) (temporalSettings, error) {
	out := temporalSettings{namespace: "default", queue: engine.DefaultQueue,
		approvalTimeout: engine.DefaultApprovalTimeout, heartbeatTimeout: engine.DefaultHeartbeatTimeout,
		maxHistory: engine.DefaultMaxHistory}
	for _, sec := range cfg.Sections("temporal") {
		if sec.Source.Layer == config.LayerProject {
			continue
		}
		var t temporalSection
		if err := sec.Decode(&t); err != nil {
			return temporalSettings{}, err
		}
		if t.Address != "" {
			out.address = t.Address
		}
		if t.Namespace != "" {
			out.namespace = t.Namespace
		}
		if t.Queue != "" {
			out.queue = t.Queue
		}
		for _, d := range []struct {
			key, val string
			dst      *time.Duration
		}{{"approval_timeout", t.ApprovalTimeout, &out.approvalTimeout}, {"heartbeat_timeout", t.HeartbeatTimeout, &out.heartbeatTimeout}} {
			if d.val == "" {
				continue
			}
			v, err := time.ParseDuration(d.val)
			if err != nil || v < time.Second {
				return temporalSettings{}, sec.Errorf([]string{d.key}, "temporal.%s %q must be a duration of at least 1s, like \"30s\" or \"10m\"", d.key, d.val)
			}
			*d.dst = v
		}
		if t.MaxHistory != nil {
			if *t.MaxHistory < 20 || *t.MaxHistory > 50000 {
				return temporalSettings{}, sec.Errorf([]string{"max_history"}, "temporal.max_history must be between 20 and 50000 (got %d)", *t.MaxHistory)
			}
			out.maxHistory = *t.MaxHistory
		}
	}
	if f.address != "" {
		out.address = f.address
	}
	if f.namespace != "" {
		out.namespace = f.namespace
	}
	if f.queue != "" {
		out.queue = f.queue
	}
	if out.address == "" {
		return temporalSettings{}, cli.Usagef("no Temporal service: pass --temporal HOST:PORT or set [temporal] address (for a local try: temporal server start-dev)")
	}
	return out, nil
}

// validateQueue refuses names Temporal would take but a person would not.
func validateName(what, v string) error {
	if len(v) > 200 {
		return cli.Usagef("%s is too long (%d bytes; at most 200)", what, len(v))
	}
	for _, r := range v {
		if r < 0x21 || r == 0x7f {
			return cli.Usagef("%s %q contains spaces or control characters", what, v)
		}
	}
	return nil
}

func (s temporalSettings) String() string {
	return fmt.Sprintf("%s (namespace %s, queue %s)", s.address, s.namespace, s.queue)
}
