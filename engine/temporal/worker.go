package temporal

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// WorkerConfig configures Serve.
type WorkerConfig struct {
	// Client is connected to the Temporal service.
	Client client.Client
	// Queue is the shared task queue ("" means DefaultQueue).
	Queue string
	// Models answers the model calls of every session.
	Models Models
	// Workspaces are the workspaces this worker holds, by name: their
	// queues get this worker's setup, policy and tool activities.
	Workspaces map[string]Workspace
	// StopTimeout is how long running activities get when the worker
	// stops (default 10 s).
	StopTimeout time.Duration
	// ReplayEveryTask keeps no workflow in memory between its tasks, so
	// every task replays the session's whole history: slow, and a
	// check that the loop is deterministic (a divergence fails the task
	// with Temporal's nondeterminism error). It applies to the process.
	ReplayEveryTask bool
	// Ready, when set, is called once every queue is being polled.
	Ready func(queue string, workspaces []string)
}

// Serve runs the workers of cfg until ctx is done, then stops them
// gracefully: running activities get StopTimeout to finish.
func Serve(ctx context.Context, cfg WorkerConfig) error {
	if cfg.Client == nil || cfg.Models == nil {
		return fmt.Errorf("engine/temporal: a worker needs a Client and Models")
	}
	if len(cfg.Workspaces) == 0 {
		return errNoWorkspace
	}
	queue := cfg.Queue
	if queue == "" {
		queue = DefaultQueue
	}
	stop := cfg.StopTimeout
	if stop <= 0 {
		stop = 10 * time.Second
	}
	opts := worker.Options{
		// Heartbeats go out at least every second, so a cancellation
		// reaches a running tool within about a second.
		MaxHeartbeatThrottleInterval:     heartbeatEvery,
		DefaultHeartbeatThrottleInterval: heartbeatEvery,
		WorkerStopTimeout:                stop,
	}
	if cfg.ReplayEveryTask {
		worker.SetStickyWorkflowCacheSize(0)
	}
	shared := worker.New(cfg.Client, queue, opts)
	shared.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	shared.RegisterActivityWithOptions(modelActivity(cfg.Models), activity.RegisterOptions{Name: activityModel})
	workers := []worker.Worker{shared}
	var names []string
	for name, ws := range cfg.Workspaces {
		a := &workspaceActivities{name: name, ws: ws}
		w := worker.New(cfg.Client, WorkspaceQueue(queue, name), opts)
		w.RegisterActivityWithOptions(a.setup, activity.RegisterOptions{Name: activitySetup})
		w.RegisterActivityWithOptions(a.decide, activity.RegisterOptions{Name: activityDecide})
		w.RegisterActivityWithOptions(a.tool, activity.RegisterOptions{Name: activityTool})
		w.RegisterActivityWithOptions(a.check, activity.RegisterOptions{Name: activityCheck})
		w.RegisterActivityWithOptions(a.steer, activity.RegisterOptions{Name: activitySteer})
		workers = append(workers, w)
		names = append(names, name)
	}
	started := 0
	defer func() {
		for _, w := range workers[:started] {
			w.Stop()
		}
	}()
	for _, w := range workers {
		if err := w.Start(); err != nil {
			return fmt.Errorf("starting a worker: %w", err)
		}
		started++
	}
	if cfg.Ready != nil {
		cfg.Ready(queue, names)
	}
	<-ctx.Done()
	return nil
}
