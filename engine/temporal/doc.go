// Package temporal runs rein sessions as Temporal workflows, so a team's
// agents, batches of hundreds of tasks and runs that must outlive a machine
// spread over many workers.
//
// One workflow is one session (workflow id = session id). The agent loop
// itself runs inside the workflow, through the determinism seams of package
// agent: workflow time is its Clock, ids are minted from the workflow's run
// id and a counter, and tool calls fan out on workflow coroutines. Whatever
// touches the world is an activity:
//
//   - model calls run on the shared task queue (Queue) that every worker
//     serves; rein's own HTTP retries happen inside, and Temporal retries
//     the activity only when its worker died (a heartbeat or start-to-close
//     timeout), never after the provider answered with an error;
//   - setup, policy decisions and tool calls run on the session's workspace
//     queue (WorkspaceQueue), served only by workers that hold that
//     workspace. A mutating tool call whose worker died is not run again:
//     its retry reports it interrupted, the guarantee `rein run --continue`
//     gives.
//
// Approvals are workflow updates (ApproveUpdate) with the approval timeout
// as a durable timer; sub-agents (the task tool) are child workflows, so
// cancelling a session cancels its children; long sessions continue as new
// before their history grows past Temporal's limits. Clients follow a
// session through the EventsQuery and StatusQuery queries.
//
// Nothing here starts unless asked: rein's embedded default never imports a
// Temporal connection into a run.
//
// This directory is a Go module of its own (github.com/reinharness/rein/engine/temporal),
// holding this package, the Temporal commands (internal/temporalcli) and
// cmd/rein-temporal, so that the Temporal SDK, grpc, nexus and their test
// dependencies never enter the module graph of a program that imports
// rein's library. Its go.mod replaces rein with this tree (../..). Its
// acceptance tests are the module engine/temporal/e2e. See docs/scale-out.md.
package temporal
