package cli

import (
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/reinharness/rein/mcp"
)

// eventToolProgress is the stream-json type of an MCP tool call's progress
// notification. It is not an agent event: MCP servers send progress on
// their own goroutines while the agent waits for the call, so the command
// line reports it beside the agent's events.
const eventToolProgress = "tool.progress"

// progressInterval is the least time between two progress lines of one
// call (about four a second): a server may notify far more often than
// anyone can read.
const progressInterval = 250 * time.Millisecond

// progressReporter shows the progress notifications of a run's MCP tool
// calls: a compact line on stderr in text output, a tool.progress object
// in stream-json. report is called on SDK goroutines, concurrently with
// the renderer; w must serialise writes (a lockedWriter shared with the
// renderer), so lines never interleave.
type progressReporter struct {
	w    io.Writer
	ex   *explainer
	json bool
	// sessionID names the session in stream-json lines.
	sessionID string
	// quiet, when set and true, holds back lines that are not a call's
	// last: a question is on the terminal and would be broken up.
	quiet func() bool
	now   func() time.Time

	mu sync.Mutex
	// shown is when each running call's last line was shown.
	shown map[progressCall]time.Time
}

// progressCall identifies a call's notifications. Calls of read-only
// tools carry no idempotency key, so concurrent calls of one such tool
// share a rate limit.
type progressCall struct{ server, tool, key string }

// newProgressReporter reports to w in format text or stream-json; it
// returns nil for other formats (json prints one object at the end).
func newProgressReporter(format string, w io.Writer, ex *explainer, sessionID string, quiet func() bool) *progressReporter {
	if format != formatText && format != formatStreamJSON {
		return nil
	}
	return &progressReporter{
		w: w, ex: ex, json: format == formatStreamJSON, sessionID: sessionID, quiet: quiet,
		now: time.Now, shown: map[progressCall]time.Time{},
	}
}

// progressLine is the stream-json form of a progress notification.
type progressLine struct {
	Type           string    `json:"type"`
	SessionID      string    `json:"session_id"`
	Time           time.Time `json:"time"`
	Server         string    `json:"server"`
	Tool           string    `json:"tool"`
	IdempotencyKey string    `json:"idempotency_key,omitempty"`
	// CallID is the call_id of the call's tool.call and tool.result.
	CallID   string  `json:"call_id,omitempty"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// report shows one notification, unless the call showed one less than
// progressInterval ago. A call's last notification (progress reaching a
// known total) is always shown.
func (p *progressReporter) report(pr mcp.Progress) {
	if p == nil {
		return
	}
	last := pr.Total > 0 && pr.Progress >= pr.Total
	k := progressCall{pr.Server, pr.Tool, pr.IdempotencyKey}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !last {
		if t, ok := p.shown[k]; ok && now.Sub(t) < progressInterval {
			return
		}
		if p.quiet != nil && p.quiet() {
			return
		}
		p.shown[k] = now
		p.prune(now)
	} else {
		delete(p.shown, k)
	}
	if p.json {
		writeJSONLine(p.w, p.ex, progressLine{
			Type: eventToolProgress, SessionID: p.sessionID, Time: now.UTC(), Server: pr.Server, Tool: pr.Tool,
			IdempotencyKey: pr.IdempotencyKey, CallID: pr.CallID, Progress: pr.Progress, Total: pr.Total, Message: p.ex.scrub(pr.Message),
		})
		return
	}
	line := "… " + termText(pr.Tool, 80) + " " + formatNumber(pr.Progress)
	if pr.Total > 0 {
		line += "/" + formatNumber(pr.Total)
	}
	if pr.Message != "" {
		line += " " + termText(p.ex.scrub(pr.Message), maxToolLine)
	}
	io.WriteString(p.w, p.ex.scrubKnown(line)+"\n")
}

// prune forgets calls not heard from for a minute (ones that ended
// without a last notification), so a long chat does not accumulate them.
func (p *progressReporter) prune(now time.Time) {
	if len(p.shown) < 64 {
		return
	}
	for k, t := range p.shown {
		if now.Sub(t) > time.Minute {
			delete(p.shown, k)
		}
	}
}

// formatNumber shows a progress value without a needless fraction.
func formatNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// serialOutput makes the app's stdout and stderr safe for concurrent
// writes: in run and chat, MCP servers' goroutines (progress, questions,
// warnings) write beside the agent's renderer, and each line must arrive
// whole.
func (a *App) serialOutput() {
	if _, ok := a.Stdout.(*lockedWriter); !ok {
		a.Stdout = &lockedWriter{w: a.Stdout}
	}
	if _, ok := a.Stderr.(*lockedWriter); !ok {
		a.Stderr = &lockedWriter{w: a.Stderr}
	}
}
