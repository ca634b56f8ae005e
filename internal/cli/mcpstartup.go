package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/reinharness/rein/config"
)

// defaultStartupGrace is how long the first model request waits for MCP
// servers that are not required: long enough for a local server that
// starts normally, short enough that a hung one is not felt.
const defaultStartupGrace = time.Second

// maxStartupGrace bounds [mcp] startup_grace; a server slower than this
// is better marked required.
const maxStartupGrace = 5 * time.Minute

// mcpSection is the [mcp] table, settings of the MCP client as a whole
// (each server is an [mcp_servers.NAME] table):
//
//	[mcp]
//	startup_grace = "1s"   # how long the first model request waits for servers that are not required
//
// Servers connect in the background from the start; the first model
// request waits for them at most startup_grace, and servers that connect
// later join the tool set from the next model call. Required servers are
// always waited for (until their startup_timeout). A project layer may
// only shorten the grace.
type mcpSection struct {
	StartupGrace *string `toml:"startup_grace"`
}

// loadStartupGrace returns the merged [mcp] startup_grace.
func loadStartupGrace(cfg *config.Config) (time.Duration, error) {
	grace := defaultStartupGrace
	for _, sec := range cfg.Sections("mcp") {
		var t mcpSection
		if err := sec.Decode(&t); err != nil {
			return 0, err
		}
		if t.StartupGrace == nil {
			continue
		}
		d, err := time.ParseDuration(*t.StartupGrace)
		if err != nil || d < 0 || d > maxStartupGrace {
			return 0, sec.Errorf([]string{"startup_grace"}, "mcp.startup_grace: %q is not a duration between \"0s\" and \"%v\" (for example \"1s\" or \"500ms\")", clipRunes(*t.StartupGrace, 40), maxStartupGrace)
		}
		if sec.Source.Layer == config.LayerProject && d > grace {
			continue // a repository may not make rein wait longer
		}
		grace = d
	}
	return grace, nil
}

// eventMCPConnected is the stream-json type of the note that a server
// which missed the start connected and its tools joined the tool set.
// Like tool.progress it is not an agent event: it comes from the MCP
// client's goroutines beside the run.
const eventMCPConnected = "mcp.connected"

// connectedLine is the stream-json form of that note.
type connectedLine struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	Server    string    `json:"server"`
	Tools     []string  `json:"tools"`
}

// connected shows that server connected late and its tools were added: a
// line on stderr in text output (chat too), an mcp.connected object in
// stream-json.
func (p *progressReporter) connected(server string, tools []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		writeJSONLine(p.w, p.ex, connectedLine{Type: eventMCPConnected, SessionID: p.sessionID, Time: p.now().UTC(), Server: server, Tools: tools})
		return
	}
	io.WriteString(p.w, fmt.Sprintf("rein: MCP server %s connected; its %s join from the next model call\n",
		termText(server, 80), plural(len(tools), "tool")))
}
