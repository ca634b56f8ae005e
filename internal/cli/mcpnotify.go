package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/mcp"
)

// Stream-json types of what servers report outside calls: a log message
// (every one that passed the Manager's rate bound) and an update of a
// subscribed resource.
const (
	eventMCPLog             = "mcp.log"
	eventMCPResourceUpdated = "mcp.resource_updated"
)

// chatLogLevel is the least severity of server log messages a chat shows
// until the user picks another with /mcp log.
const chatLogLevel = "warning"

// maxLogLine bounds a log message's text shown on one line.
const maxLogLine = 300

// serverLogLine is the stream-json form of a server's log message.
type serverLogLine struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	Server    string    `json:"server"`
	Level     string    `json:"level"`
	Logger    string    `json:"logger,omitempty"`
	Message   string    `json:"message"`
	// Dropped counts the server's messages discarded before this one
	// (it sent them faster than rein passes on).
	Dropped int `json:"dropped,omitempty"`
}

// resourceUpdatedLine is the stream-json form of a resource update.
type resourceUpdatedLine struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	Server    string    `json:"server"`
	URI       string    `json:"uri"`
}

// serverLog reports a server's log message: in stream-json always, as a
// line on stderr when its level is at least show ("" shows none) and no
// question is on the terminal.
func (p *progressReporter) serverLog(l mcp.ServerLog, show string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		writeJSONLine(p.w, p.ex, serverLogLine{Type: eventMCPLog, SessionID: p.sessionID, Time: p.now().UTC(),
			Server: l.Server, Level: l.Level, Logger: l.Logger, Message: p.ex.scrub(l.Text), Dropped: l.Dropped})
		return
	}
	if show == "" || mcp.LogLevelRank(l.Level) < mcp.LogLevelRank(show) || (p.quiet != nil && p.quiet()) {
		return
	}
	src := termText(l.Server, 60)
	if l.Logger != "" {
		src += "/" + termText(l.Logger, 60)
	}
	line := fmt.Sprintf("[%s %s] %s", src, l.Level, termText(p.ex.scrub(l.Text), maxLogLine))
	if l.Dropped > 0 {
		line += fmt.Sprintf(" (%d earlier messages dropped)", l.Dropped)
	}
	io.WriteString(p.w, p.ex.scrubKnown(line)+"\n")
}

// resourceUpdated reports that a subscribed resource changed, and how the
// model reads it again.
func (p *progressReporter) resourceUpdated(u mcp.ResourceUpdate, readTool string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		writeJSONLine(p.w, p.ex, resourceUpdatedLine{Type: eventMCPResourceUpdated, SessionID: p.sessionID, Time: p.now().UTC(), Server: u.Server, URI: u.URI})
		return
	}
	line := fmt.Sprintf("rein: MCP server %s says %s changed", termText(u.Server, 60), termText(u.URI, 300))
	if readTool != "" {
		line += " (the model can read it again with " + termText(readTool, 80) + ")"
	}
	io.WriteString(p.w, p.ex.scrubKnown(line)+"\n")
}

// onServerLog and onResourceUpdated pass the Manager's reports on to the
// run's reporter (nil between runs: dropped).
func (mt *mcpTools) onServerLog(l mcp.ServerLog) {
	show := ""
	if p := mt.logShow.Load(); p != nil {
		show = *p
	}
	mt.progress.Load().serverLog(l, show)
}

func (mt *mcpTools) onResourceUpdated(u mcp.ResourceUpdate) {
	read := ""
	for _, t := range mt.m.ServerTools(u.Server) {
		if n := t.Spec().Name; strings.HasSuffix(n, "__read_resource") {
			read = n
		}
	}
	mt.progress.Load().resourceUpdated(u, read)
	mt.updates.add(u, read)
}

// maxPendingUpdates bounds the resource changes remembered for the
// model's next message; more are summed up in one line.
const maxPendingUpdates = 20

// pendingUpdates remembers the resource changes since the model's last
// message, once per resource, so that the next message can tell it.
type pendingUpdates struct {
	mu    sync.Mutex
	seen  map[mcp.ResourceUpdate]bool
	notes []string
	more  int
}

func (p *pendingUpdates) add(u mcp.ResourceUpdate, readTool string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen[u] {
		return
	}
	if len(p.notes) == maxPendingUpdates {
		p.more++
		return
	}
	if p.seen == nil {
		p.seen = map[mcp.ResourceUpdate]bool{}
	}
	p.seen[u] = true
	note := fmt.Sprintf("[MCP server %s says the resource %s changed", termText(u.Server, 60), termText(u.URI, 300))
	if readTool != "" {
		note += "; read it again with " + readTool + " if it matters"
	}
	p.notes = append(p.notes, note+"]")
}

// takeUpdates returns the notes of the changes since the last call, for
// the model's next message, and forgets them.
func (mt *mcpTools) takeUpdates() []string {
	if mt == nil {
		return nil
	}
	p := &mt.updates
	p.mu.Lock()
	defer p.mu.Unlock()
	notes := p.notes
	if p.more > 0 {
		notes = append(notes, fmt.Sprintf("[and %d more resources changed]", p.more))
	}
	p.notes, p.seen, p.more = nil, nil, 0
	return notes
}

// showLogs sets the least level of server log messages shown as text
// ("" none).
func (mt *mcpTools) showLogs(level string) {
	if mt != nil {
		mt.logShow.Store(&level)
	}
}

// mcpLog is /mcp log [LEVEL|off]: without a level it says what is shown;
// with one it shows messages of that level and above and asks the
// servers to send them (off hides them and leaves the servers as they
// are).
func (s *chatSession) mcpLog(ctx context.Context, level string) {
	w := s.app.Stderr
	if s.mcp == nil {
		fmt.Fprintln(w, noServers)
		return
	}
	switch {
	case level == "":
		cur := ""
		if p := s.mcp.logShow.Load(); p != nil {
			cur = *p
		}
		if cur == "" {
			cur = "off"
		}
		fmt.Fprintf(w, "Server log messages shown: %s (levels: %s; /mcp log LEVEL or off)\n", cur, strings.Join(mcp.LogLevels, ", "))
		return
	case level == "off":
		s.mcp.showLogs("")
		fmt.Fprintln(w, "Server log messages are no longer shown (they still reach the event log).")
		return
	case mcp.LogLevelRank(level) < 0:
		fmt.Fprintf(w, "rein: /mcp log: unknown level %q; one of %s, or off\n", termText(level, 40), strings.Join(mcp.LogLevels, ", "))
		return
	}
	s.mcp.showLogs(level)
	var err error
	sig, _ := s.app.interruptible(ctx, func(ctx context.Context) { err = s.mcp.m.SetLogLevel(ctx, level) })
	switch {
	case sig != nil:
		fmt.Fprintln(w, s.cancelled("cancelled"))
	case err != nil:
		fmt.Fprintf(w, "Showing server log messages of level %s and above; some servers did not take the level: %s\n", level, s.ex.scrub(termText(err.Error(), 600)))
	default:
		fmt.Fprintf(w, "Showing server log messages of level %s and above.\n", level)
	}
}

// mcpSubscribe is /mcp subscribe|unsubscribe SERVER URI.
func (s *chatSession) mcpSubscribe(ctx context.Context, on bool, server, uri string) {
	w := s.app.Stderr
	if s.mcp == nil {
		fmt.Fprintln(w, noServers)
		return
	}
	var err error
	sig, _ := s.app.interruptible(ctx, func(ctx context.Context) {
		if on {
			err = s.mcp.m.Subscribe(ctx, server, uri)
		} else {
			err = s.mcp.m.Unsubscribe(ctx, server, uri)
		}
	})
	switch {
	case sig != nil:
		fmt.Fprintln(w, s.cancelled("cancelled"))
	case err != nil:
		fmt.Fprintf(w, "rein: /mcp: %s\n", s.ex.scrub(termText(err.Error(), 600)))
	case on:
		fmt.Fprintf(w, "Subscribed to %s of %s: its changes are shown here.\n", termText(uri, 300), termText(server, 60))
	default:
		fmt.Fprintf(w, "Unsubscribed from %s of %s.\n", termText(uri, 300), termText(server, 60))
	}
}

// mcpComplete is /mcp complete SERVER PROMPT ARG [PREFIX] [JSON]: the
// server's suggestions for a prompt argument, narrowed by PREFIX and by
// the arguments already chosen (a JSON object of strings).
func (s *chatSession) mcpComplete(ctx context.Context, rest string) {
	w := s.app.Stderr
	if s.mcp == nil {
		fmt.Fprintln(w, noServers)
		return
	}
	server, prompt, arg, prefix, done, err := parseCompleteCommand(rest)
	if err != nil {
		fmt.Fprintf(w, "rein: /mcp complete: %s\n", err)
		return
	}
	var c *mcp.Completion
	sig, _ := s.app.interruptible(ctx, func(ctx context.Context) {
		c, err = s.mcp.m.CompletePrompt(ctx, server, prompt, arg, prefix, done)
	})
	switch {
	case sig != nil:
		fmt.Fprintln(w, s.cancelled("cancelled"))
		return
	case err != nil:
		fmt.Fprintf(w, "rein: /mcp complete: %s\n", s.ex.scrub(termText(err.Error(), 600)))
		return
	case len(c.Values) == 0:
		fmt.Fprintf(w, "%s has no suggestions for %s.\n", termText(server, 60), termText(arg, 60))
		return
	}
	fmt.Fprintf(w, "Suggestions for %s of %s:\n", termText(arg, 60), termText(prompt, 60))
	for _, v := range c.Values {
		fmt.Fprintf(w, "  %s\n", termText(v, 200))
	}
	if c.HasMore {
		more := "more"
		if c.Total > len(c.Values) {
			more = fmt.Sprintf("%d in all", c.Total)
		}
		fmt.Fprintf(w, "  (%s: type more of the value to narrow them)\n", more)
	}
}

// suggestTimeout bounds the completion asked for a missing prompt
// argument: the suggestions are a courtesy, not worth a wait.
const suggestTimeout = 3 * time.Second

// suggestions is what the server suggests for a prompt argument the user
// left out, as a suffix for the message that says so ("" when it
// suggests nothing or offers no completion).
func (s *chatSession) suggestions(ctx context.Context, server, prompt, arg string, done map[string]string) string {
	ctx, cancel := context.WithTimeout(ctx, suggestTimeout)
	defer cancel()
	c, err := s.mcp.m.CompletePrompt(ctx, server, prompt, arg, "", done)
	if err != nil || len(c.Values) == 0 {
		return ""
	}
	vals := c.Values
	if len(vals) > 10 {
		vals = vals[:10]
	}
	more := ""
	if c.HasMore || len(c.Values) > len(vals) {
		more = ", …"
	}
	return fmt.Sprintf(" (suggested for %s: %s%s)", arg, strings.Join(vals, ", "), more)
}

// parseCompleteCommand splits "SERVER PROMPT ARG [PREFIX] [JSON]".
func parseCompleteCommand(rest string) (server, prompt, arg, prefix string, done map[string]string, err error) {
	const usage = `usage: /mcp complete SERVER PROMPT ARGUMENT [PREFIX] [{"earlier":"answer"}]`
	head, js, _ := strings.Cut(rest, "{")
	fields := strings.Fields(head)
	if len(fields) < 3 || len(fields) > 4 {
		return "", "", "", "", nil, errors.New(usage)
	}
	if len(fields) == 4 {
		prefix = fields[3]
	}
	if js != "" {
		if err := json.Unmarshal([]byte("{"+js), &done); err != nil {
			return "", "", "", "", nil, errors.New(`the earlier answers must be one JSON object of strings; ` + usage)
		}
	}
	return fields[0], fields[1], fields[2], prefix, done, nil
}
