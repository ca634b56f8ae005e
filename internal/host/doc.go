// Package host is rein as the command line configures it: the
// composition root that turns the layered configuration (config.Config)
// into the sandbox, the policy layers and network rules, the checks of
// the verification gate, the hooks, the language servers, the custom
// agents and their profiles, and the session and telemetry settings the
// front ends then assemble into a run.
//
// It is internal on purpose. The configuration file's tables and the
// flags that override them are the CLI's contract: they change with the
// CLI, in the same commit, and a library user who imported them would be
// importing that churn. A program that embeds rein composes the public
// packages (agent, tool, tools, policy, mcp, session, workspace) itself,
// choosing its own configuration.
//
// Nothing here names a front end. What a front end decides — how to ask
// the user, where progress goes — is passed in by the caller; what is
// decided here is the same for `rein run`, the chat, `rein mcp serve`,
// `rein acp` and the Temporal worker.
package host
