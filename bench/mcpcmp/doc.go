// Package mcpcmp compares MCP implementations on a tools/call echo:
//
//   - BenchmarkMCPClient: one round trip from each client — rein's
//     adapter (mcp.Manager, the tool as the agent calls it), go-sdk used
//     directly, mcp-go — to the same go-sdk server, over stdio (a
//     subprocess: this test binary re-executed as the server, the way
//     every client launches a stdio server) and Streamable HTTP (a
//     loopback listener).
//   - BenchmarkMCPServer: throughput of each server — rein's
//     (mcp/mcpserver, with its policy decision, timeout and result cap),
//     go-sdk's, mcp-go's — at 1, 8 and 64 concurrent callers sharing one
//     go-sdk client session, over in-process stdio pipes and loopback
//     Streamable HTTP.
package mcpcmp
