package mcp

//lint:file-ignore SA1019 logging is deprecated in 2026-07-28 but servers of every era still send it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// LogLevels are the syslog severities MCP log messages carry, least
// severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LogLevelRank is the position of level in LogLevels, or -1 for a level
// MCP does not define.
func LogLevelRank(level string) int { return slices.Index(LogLevels, level) }

// ServerLog is one notifications/message of a server, made safe to show:
// Text is printable and bounded whatever the server sent.
type ServerLog struct {
	Server string
	Level  string // one of LogLevels ("info" for a level MCP does not define)
	Logger string // the server's name for the source, "" when absent
	Text   string
	// Dropped counts messages of this server discarded since the last one
	// delivered, because it sent them faster than logBurst/logRate allow.
	Dropped int
}

// Bounds on what a server's log messages may cost rein: a server that
// floods notifications/message gets logRate messages a second through
// (after a burst of logBurst), the rest counted and dropped, and no
// message longer than maxLogText.
const (
	logBurst   = 50
	logRate    = 10.0
	maxLogText = 4000
	maxLogName = 100
	maxURILen  = 2048
)

// notifyState is the Manager's state for the notifications a server
// sends outside any call: log messages and resource updates.
type notifyState struct {
	mu      sync.Mutex
	level   string                // level asked of servers; "" until SetLogLevel
	buckets map[string]*logBucket // per server
	subs    map[string]map[string]bool
}

// logBucket is a token bucket bounding one server's log messages.
type logBucket struct {
	tokens  float64
	last    time.Time
	dropped int
}

// bucket is server's rate bound; n.mu must be held.
func (n *notifyState) bucket(server string) *logBucket {
	if n.buckets == nil {
		n.buckets = map[string]*logBucket{}
	}
	b := n.buckets[server]
	if b == nil {
		b = &logBucket{}
		n.buckets[server] = b
	}
	return b
}

// take reports whether a message may pass at now, and how many were
// dropped before it.
func (b *logBucket) take(now time.Time) (bool, int) {
	if b.last.IsZero() {
		b.tokens = logBurst
	} else {
		b.tokens = min(logBurst, b.tokens+now.Sub(b.last).Seconds()*logRate)
	}
	b.last = now
	if b.tokens < 1 {
		b.dropped++
		return false, 0
	}
	b.tokens--
	d := b.dropped
	b.dropped = 0
	return true, d
}

// onLog delivers a server's log message to Config.OnServerLog, bounded
// in rate and size.
func (s *server) onLog(_ context.Context, req *sdk.LoggingMessageRequest) {
	f := s.m.cfg.OnServerLog
	if f == nil || req == nil || req.Params == nil {
		return
	}
	p := req.Params
	n := &s.m.notes
	n.mu.Lock()
	ok, dropped := n.bucket(s.cfg.Name).take(time.Now())
	n.mu.Unlock()
	if !ok {
		return
	}
	level := string(p.Level)
	if LogLevelRank(level) < 0 {
		level = "info"
	}
	f(ServerLog{
		Server:  s.cfg.Name,
		Level:   level,
		Logger:  clip(oneLine(printable(p.Logger)), maxLogName),
		Text:    s.scrub.scrub(clip(printable(logText(p.Data)), maxLogText)),
		Dropped: dropped,
	})
}

// logText renders a log message's data, which may be any JSON value: a
// string as itself, anything else as its (bounded) JSON.
func logText(data any) string {
	if str, ok := data.(string); ok {
		return str
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Sprintf("(unreadable log data: %T)", data)
	}
	return string(b)
}

// SetLogLevel asks every server that offers logging to send messages of
// level and above. Servers of the 2025 revisions are told with
// logging/setLevel now and on each later connection; in 2026-07-28,
// which replaced that method, the level rides in every request's _meta.
// A server that fails to accept the level is named in the error; the
// level holds for the others.
func (m *Manager) SetLogLevel(ctx context.Context, level string) error {
	if LogLevelRank(level) < 0 {
		return fmt.Errorf("unknown log level %q (one of %v)", level, LogLevels)
	}
	m.notes.mu.Lock()
	m.notes.level = level
	m.notes.mu.Unlock()
	var errs []error
	for _, s := range m.servers {
		sess, _, _, _, _ := s.state()
		if sess == nil {
			continue
		}
		if err := s.applyLogLevel(ctx, sess); err != nil {
			errs = append(errs, fmt.Errorf("server %s: %s", s.cfg.Name, s.redact(err)))
		}
	}
	return errors.Join(errs...)
}

// LogLevel is the level set by SetLogLevel, "" before.
func (m *Manager) LogLevel() string {
	m.notes.mu.Lock()
	defer m.notes.mu.Unlock()
	return m.notes.level
}

// applyLogLevel tells a 2025-era session the level, if one is set and
// the server declares logging.
func (s *server) applyLogLevel(ctx context.Context, sess *session) error {
	level := s.m.LogLevel()
	if level == "" || sess.era >= ProtocolModern {
		return nil
	}
	ir := sess.cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil || ir.Capabilities.Logging == nil {
		return nil
	}
	return sess.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(level)})
}

// logLevelMiddleware puts the level set by SetLogLevel in the _meta of
// each request rein sends in a 2026-07-28 session: a server of that
// revision sends log messages only for requests that ask for them.
func logLevelMiddleware(m *Manager) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			level := m.LogLevel()
			if level == "" || !modernRequest(req) {
				return next(ctx, method, req)
			}
			if p := req.GetParams(); p != nil {
				meta := p.GetMeta()
				if meta == nil {
					meta = map[string]any{}
				}
				if _, set := meta[sdk.MetaKeyLogLevel]; !set {
					meta[sdk.MetaKeyLogLevel] = level
					p.SetMeta(meta)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// modernRequest reports whether req goes out in a 2026-07-28 session.
// Before the session is settled (server/discover) it is not.
func modernRequest(req sdk.Request) bool { return modernResult(req) }

// notifyHandlers installs the handlers of the notifications a server
// sends outside calls.
func (s *server) notifyHandlers(opts *sdk.ClientOptions) {
	opts.LoggingMessageHandler = s.onLog
	opts.ResourceUpdatedHandler = s.onResourceUpdated
}
