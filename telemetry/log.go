// Package telemetry records what runs did, for people and for tools: a
// JSONL event log per session (Log) and OpenTelemetry traces following the
// GenAI semantic conventions (Tracer). Both are agent.Hooks: they observe
// a run and can never change or break it. Every event is redacted
// (package telemetry/redact) before it is written or exported.
package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/telemetry/redact"
)

// MaxLoggedBytes caps tool arguments and results in the event log and in
// exported span contents unless debug logging is on: enough to see what
// happened, not a second copy of every file read.
const MaxLoggedBytes = 1024

// LogPath returns the event log of a session: <stateDir>/logs/<id>.jsonl.
func LogPath(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "logs", sessionID+".jsonl")
}

// LogConfig configures OpenLog.
type LogConfig struct {
	// Path is the log file; see LogPath. Its directory is created (mode
	// 0700) when missing, and the file (mode 0600) is appended to.
	Path string
	// Debug logs tool arguments and results in full, and the streaming
	// text and reasoning deltas, which are otherwise left out because the
	// message events repeat them.
	Debug bool
	// OnError is told about the first write that failed (the log then
	// stops writing); nil ignores it. It is called on the run's goroutine.
	OnError func(error)
}

// Log is a JSONL event log: one redacted agent.Event per line, in the
// stream-json shape. It is an agent.Hook and safe for concurrent use; a
// failing disk never reaches the run — the first error is reported to
// OnError and kept in Err, and later events are dropped.
type Log struct {
	cfg  LogConfig
	mu   sync.Mutex
	f    *os.File
	memo redact.Memo
	buf  []byte
	err  error
}

var _ agent.Hook = (*Log)(nil)

// OpenLog opens (or creates) the log file for appending.
func OpenLog(cfg LogConfig) (*Log, error) {
	if cfg.Path == "" {
		return nil, errors.New("telemetry: LogConfig.Path is required; use LogPath")
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o700); err != nil {
		return nil, fmt.Errorf("telemetry: creating the log directory: %w", err)
	}
	f, err := os.OpenFile(cfg.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("telemetry: opening the event log: %w", err)
	}
	return &Log{cfg: cfg, f: f}, nil
}

// OnEvent implements agent.Hook: it writes ev as one line.
func (l *Log) OnEvent(_ context.Context, ev agent.Event) {
	if !l.cfg.Debug && (ev.Type == agent.EventTextDelta || ev.Type == agent.EventReasoningDelta) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil || l.err != nil {
		return
	}
	// Redact first, then cut: a cut secret would no longer match the
	// patterns that find it.
	ev = l.memo.Event(ev)
	if !l.cfg.Debug {
		ev = Truncate(ev, MaxLoggedBytes)
	}
	line, err := json.Marshal(ev)
	if err == nil {
		l.buf = append(append(l.buf[:0], line...), '\n')
		// One write per line: O_APPEND keeps lines whole even when two
		// processes append to the same session's log.
		_, err = l.f.Write(l.buf)
	}
	if ev.Type == agent.EventMessage || ev.Type == agent.EventSessionCompleted {
		l.memo.Reset() // a turn's repeats are over
	}
	if err != nil {
		l.fail(err)
	}
}

func (l *Log) fail(err error) {
	l.err = fmt.Errorf("telemetry: writing the event log %s: %w; the run goes on without it", l.cfg.Path, err)
	if l.cfg.OnError != nil {
		l.cfg.OnError(l.err)
	}
}

// Err returns the first write error, if any.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close closes the file. Events after Close are dropped.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// truncatedMarker ends a cut text, saying how much there was.
func truncatedMarker(total int) string {
	return "… [truncated: " + strconv.Itoa(total) + " bytes]"
}
