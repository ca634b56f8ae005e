// Package mcp connects rein to Model Context Protocol servers and turns
// their tools, resources and prompts into things the agent can use.
//
// It wraps the official Go SDK (github.com/modelcontextprotocol/go-sdk);
// nothing else in rein imports the SDK. The package adds what a harness
// needs on top of it:
//
//   - configuration from [mcp_servers.NAME] TOML tables and .mcp.json
//     files, with ${VAR} expansion and secrets that never print;
//   - a Manager that connects every server concurrently in the background,
//     so a slow or broken server delays the first model call by at most its
//     startup timeout, reports each failure once with the tail of the
//     server's stderr, and fails the run only for servers marked required;
//   - both protocol eras: it probes with server/discover (2026-07-28) under
//     a bound of its own (the SDK's probe has none, so a silent legacy stdio
//     server would hang it), falls back to the initialize handshake
//     (2025-11-25, 2025-06-18, …), remembers each server's era across
//     restarts, and falls back from Streamable HTTP to the legacy HTTP+SSE
//     transport when a server refuses the former with a 4xx;
//   - a stdio transport that owns the server's process group, keeps the tail
//     of its stderr, bounds each message, survives a few lines of stray
//     output, and fails fast and clearly on garbage;
//   - tools adapted to tool.Tool with names models accept
//     (<server>__<tool>, collisions resolved by a hash suffix), annotations
//     mapped to effects, results rendered faithfully as text, resources as
//     two extra tools per server, prompts through Manager methods;
//   - cancellation, progress, restart of a crashed stdio server for the next
//     call (a call is never replayed), and elicitation and sampling requests
//     routed to an Interaction (Decline for headless runs);
//   - MCP tasks for tools that require them (and, with tasks = "always",
//     for those that allow them): the call starts a task, which is polled
//     with backoff, collected, and cancelled when the call is; the task's
//     status reaches the call's progress, and a task's questions are
//     answered through the Interaction (2026-07-28 tasks/update, or the
//     session in 2025-11-25). The SDK has no task support, so
//     rein carries the task fields past it on the raw messages (see
//     taskwire.go). A tool that requires a task rein cannot run (an era
//     without tasks, tasks = "never") is not
//     offered, with a one-line note.
//
// The client never advertises the roots capability unless Config.Roots is
// set. It declares the 2026-07-28 tasks extension (io.modelcontextprotocol/
// tasks) in that era's requests unless the server's tasks setting is
// "never", and never in an older era's initialize (2025-11-25 tasks are
// asked for per call).
//
// # Configuration
//
// A server is a table in config.toml (see ParseSections, LoadServers):
//
//	[mcp_servers.fs]                       # stdio
//	command = "npx"
//	args = ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"]
//	env = { DEBUG = "1" }                  # values may use ${VAR} and ${VAR:-default}
//	env_vars = ["NODE_OPTIONS"]            # passed through from rein's environment
//	cwd = "tools"
//	enabled_tools = ["read_text_file"]     # optional allow-list; disabled_tools hides
//	startup_timeout = "10s"                # or startup_timeout_sec = 10
//	tool_timeout = "2m"                    # or tool_timeout_sec = 120
//	probe_timeout = "3s"                   # bound on the server/discover probe
//	required = true                        # fail the run if it cannot start
//	tasks = "auto"                         # auto (tools requiring tasks) | always | never
//
//	[mcp_servers.remote]                   # HTTP
//	url = "https://example.com/mcp"
//	transport = "auto"                     # auto | streamable | sse
//	headers = { X-Team = "core" }          # or http_headers
//	bearer_token_env_var = "REMOTE_TOKEN"
//	protocol_version = "2025-06-18"        # pin an era; default: probe and fall back
//	enabled = false                        # configured but not started
//
// or an entry of a .mcp.json file (see ParseMCPJSON), the format other MCP
// clients share.
package mcp
