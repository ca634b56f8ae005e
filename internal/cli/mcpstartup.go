package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
)

// maxStartupWait bounds [mcp] startup_wait and --mcp-wait; a server slower
// than this is better given its own startup_timeout.
const maxStartupWait = 5 * time.Minute

// mcpSection is the [mcp] table, settings of the MCP client as a whole
// (each server is an [mcp_servers.NAME] table):
//
//	[mcp]
//	startup_wait = "10s"   # how long the first model request waits for servers that are not required
//
// Servers connect in the background, in parallel, from the start. Without
// startup_wait a headless run (rein run, rein -p) waits for each until its
// own startup_timeout (a slow server is not lost, a hung one costs at most
// its timeout), and a chat does not wait: its servers join as they come
// up. startup_wait caps the wait in both (0: do not wait); servers that
// connect later join the tool set from the next model call. Required
// servers are always waited for (until their startup_timeout). A project
// layer may only shorten the wait. startup_grace is the old name of
// startup_wait, still read, with a warning.
type mcpSection struct {
	StartupWait  *string `toml:"startup_wait"`
	StartupGrace *string `toml:"startup_grace"`
}

// startupWait is how long the first model request waits for servers that
// are not required: set says whether the user chose (flag or config);
// unset, a headless run waits for each server's startup_timeout and a
// chat not at all.
type startupWait struct {
	d   time.Duration
	set bool
	// user is set when the user chose (their config or --mcp-wait), not
	// only a repository: a project's value may shorten a headless run's
	// wait but never make a chat wait.
	user bool
}

// forChat is the wait of a chat's first model request.
func (w startupWait) forChat() time.Duration {
	if w.user {
		return w.d
	}
	return 0
}

// loadStartupWait returns the --mcp-wait flag (flag >= 0 when given) or
// else the merged [mcp] startup_wait, and warnings for deprecated keys.
func loadStartupWait(cfg *config.Config, flag time.Duration, flagSet bool) (startupWait, []string, error) {
	var w startupWait
	var warnings []string
	for _, sec := range cfg.Sections("mcp") {
		var t mcpSection
		if err := sec.Decode(&t); err != nil {
			return w, nil, err
		}
		key, val := "startup_wait", t.StartupWait
		switch {
		case t.StartupWait != nil && t.StartupGrace != nil:
			return w, nil, sec.Errorf([]string{"startup_grace"}, "mcp: both startup_wait and startup_grace (its old name) are set; keep startup_wait")
		case t.StartupGrace != nil:
			key, val = "startup_grace", t.StartupGrace
			warnings = append(warnings, fmt.Sprintf("%s: mcp.startup_grace is deprecated; rename it startup_wait", sec.Position("startup_grace")))
		case val == nil:
			continue
		}
		d, err := time.ParseDuration(*val)
		if err != nil || d < 0 || d > maxStartupWait {
			return w, nil, sec.Errorf([]string{key}, "mcp.%s: %q is not a duration between \"0s\" and \"%v\" (for example \"10s\" or \"500ms\")", key, host.ClipRunes(*val, 40), maxStartupWait)
		}
		project := sec.Source.Layer == config.LayerProject
		if project && w.set && d > w.d {
			continue // a repository may not make rein wait longer
		}
		w = startupWait{d: d, set: true, user: w.user || !project}
	}
	if flagSet {
		if flag < 0 || flag > maxStartupWait {
			return w, nil, usagef("--mcp-wait must be a duration between 0s and %v (got %v)", maxStartupWait, flag)
		}
		w = startupWait{d: flag, set: true, user: true}
	}
	return w, warnings, nil
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

// eventMCPFailed is the stream-json type of the note that a server failed
// or did not connect within its startup_timeout: the run goes on without
// it (a required one fails the run). It is sent once per server, beside
// the warning on stderr.
const eventMCPFailed = "mcp.failed"

// failedLine is the stream-json form of that note.
type failedLine struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	Server    string    `json:"server"`
	Required  bool      `json:"required,omitempty"`
	Error     string    `json:"error"`
}

// failed notes in stream-json that server failed to start (text output
// has the warning on stderr already).
func (p *progressReporter) failed(server string, required bool, msg string) {
	if p == nil || !p.json {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	writeJSONLine(p.w, p.ex, failedLine{Type: eventMCPFailed, SessionID: p.sessionID, Time: p.now().UTC(), Server: server, Required: required, Error: msg})
}
