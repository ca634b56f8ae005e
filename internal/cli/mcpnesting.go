package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reinharness/rein/mcp"
)

// envMCPDepth tells a process rein starts as a stdio MCP server how many
// reins stand above it. A rein is a common MCP server of another rein
// (`rein mcp serve`), and both read the same user configuration: a server
// entry that names rein itself, or two servers that name each other,
// would otherwise start processes without end.
const envMCPDepth = "REIN_MCP_DEPTH"

// maxMCPDepth is how deep reins may nest as each other's MCP servers: a
// rein this deep starts no MCP server of its own.
const maxMCPDepth = 3

// nestingDepth is this rein's depth: 0 unless another rein started it as
// an MCP server. A value that is not a small number counts as the limit.
func (a *App) nestingDepth() int {
	v := strings.TrimSpace(a.Getenv(envMCPDepth))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxMCPDepth {
		return maxMCPDepth
	}
	return n
}

// nestingEnv is the variable given to the servers this rein starts.
func nestingEnv(depth int) string { return envMCPDepth + "=" + strconv.Itoa(depth+1) }

// withinNesting drops every server when this rein is nested as deep as
// allowed, saying so once, unless a server is required: then the run
// cannot have what it needs and fails.
func (a *App) withinNesting(servers []mcp.ServerConfig) ([]mcp.ServerConfig, error) {
	depth := a.nestingDepth()
	if depth < maxMCPDepth || len(servers) == 0 {
		return servers, nil
	}
	names := make([]string, 0, len(servers))
	for _, sc := range servers {
		if sc.Disabled {
			continue
		}
		if sc.Required {
			return nil, fmt.Errorf("MCP server %s is required, but this rein is already an MCP server %d levels deep (%s=%d): a configuration whose servers start rein again would never end; give the nested rein its own configuration (--config) or leave the server out", sc.Name, depth, envMCPDepth, depth)
		}
		names = append(names, sc.Name)
	}
	if len(names) > 0 {
		fmt.Fprintf(a.Stderr, "rein: warning: MCP servers not started (%s): this rein is an MCP server %d levels deep (%s=%d), and servers that start rein again would never end\n", strings.Join(names, ", "), depth, envMCPDepth, depth)
	}
	return nil, nil
}
