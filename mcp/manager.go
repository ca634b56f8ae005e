package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// DefaultMaxMessageBytes bounds one message from a server (a stdio line,
// an HTTP JSON body, an SSE event). A larger tools/call response fails that
// call with a clear error instead of exhausting memory; results that fit
// are still capped for the model by the agent.
const DefaultMaxMessageBytes = 64 << 20

// ErrRequiredServer marks the failure of a server configured as required.
var ErrRequiredServer = errors.New("required MCP server unavailable")

// ErrUnknownServer is returned for a server name that is not configured
// (or is disabled).
var ErrUnknownServer = errors.New("unknown MCP server")

// Config configures a Manager. Only Servers is needed; the zero values of
// the other fields are sensible.
type Config struct {
	// Servers to connect. Disabled ones are listed by Status but never
	// started.
	Servers []ServerConfig
	// ClientName and ClientVersion identify rein to servers (default
	// "rein" and "dev").
	ClientName, ClientVersion string
	// Interaction answers elicitation and sampling requests; nil means
	// rein advertises neither capability.
	Interaction Interaction
	// Roots, when set, are absolute directories offered to servers through
	// the roots capability; nil leaves the capability off.
	Roots []string
	// Authorizer completes OAuth flows for servers that demand a sign-in;
	// nil means rein never starts a flow (a headless run): such a server
	// fails with ErrNeedsLogin unless Tokens holds a sign-in for it.
	Authorizer Authorizer
	// Tokens keeps OAuth sign-ins between runs; nil keeps them in memory
	// only. With a store, HTTP servers without other credentials are
	// treated as possibly OAuth-protected (see ServerConfig.OAuth).
	Tokens TokenStore
	// OnProgress receives progress notifications of tool calls. It is
	// called on SDK goroutines and must return quickly.
	OnProgress func(context.Context, Progress)
	// OnProblem receives each failure once: a server that cannot start
	// (with the tail of its stderr), one that crashes. It may be called
	// concurrently.
	OnProblem func(Problem)
	// OnConnected is called after each successful connection to a
	// server (the first, and each after a crash), once its tools are
	// listed: a caller that offered the tools of the servers up at the
	// time (ToolsWithin) adds the late server's with ServerTools. It is
	// called on a goroutine of the Manager and must return quickly.
	OnConnected func(server string)
	// OnToolsChanged is called when a server says its tools changed; the
	// next Tools call returns the new set. It is called on an SDK
	// goroutine and must return quickly.
	OnToolsChanged func(server string)
	// OnServerLog receives servers' log messages (notifications/message),
	// bounded in rate and size (see SetLogLevel); OnResourceUpdated the
	// updates of resources subscribed with Subscribe. Both are called on
	// SDK goroutines and must return quickly.
	OnServerLog       func(ServerLog)
	OnResourceUpdated func(ResourceUpdate)
	// MaxMessageBytes bounds one message from a server (default
	// DefaultMaxMessageBytes).
	MaxMessageBytes int
	// Confine says how each stdio server's process is confined: the
	// sandbox policy it runs under and environment entries added after
	// the inherited base variables, before the server's own env (its
	// private TMPDIR, caches). Every server starts through
	// sandbox.Prepare and Launch.Apply; nil means sandbox mode Off. It
	// is called from the Manager's goroutines and must be safe for
	// concurrent use.
	Confine func(ServerConfig) (Confinement, error)
	// WorkDir is where stdio servers start and relative cwd values are
	// resolved (default: rein's working directory).
	WorkDir string
	// Environ is the environment stdio servers inherit from (filtered; see
	// ServerConfig) and Getenv reads bearer tokens; nil means the process's.
	Environ []string
	Getenv  func(string) string
	// HTTPTransport is the base RoundTripper for HTTP servers (nil: a
	// clone of http.DefaultTransport).
	HTTPTransport http.RoundTripper
	// Logger receives debug logs from rein and the SDK (nil: none).
	Logger *slog.Logger
}

// Problem is a server failure reported through Config.OnProblem.
type Problem struct {
	Server   string
	Required bool
	Err      error
}

// Progress is one progress notification of a tool call.
type Progress struct {
	Server string
	// Tool is the exposed tool name; IdempotencyKey is the call's key (see
	// tool.IdempotencyKey), which identifies the call to the agent.
	Tool           string
	IdempotencyKey string
	// CallID is the model's id of the call (tool.CallID), the call_id
	// of its tool.call and tool.result events; "" outside an agent run.
	CallID   string
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
}

// Manager owns the connections to the configured MCP servers. It is safe
// for concurrent use. Start (or the first Tools call) connects every
// server concurrently in the background; Close stops them.
type Manager struct {
	cfg     Config
	servers []*server // enabled, sorted by name
	all     []ServerConfig
	logger  *slog.Logger

	ctx    context.Context // the servers' lifetime
	cancel context.CancelFunc

	startOnce sync.Once
	wg        sync.WaitGroup

	progress sync.Map // token string → *progressTarget
	tokenSeq atomic.Uint64

	notes notifyState // log level, log rate bounds, subscriptions
}

// New validates cfg and returns a Manager that has not connected yet.
func New(cfg Config) (*Manager, error) {
	if cfg.ClientName == "" {
		cfg.ClientName = "rein"
	}
	if cfg.ClientVersion == "" {
		cfg.ClientVersion = "dev"
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.Environ == nil {
		cfg.Environ = os.Environ()
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.WorkDir == "" {
		if wd, err := os.Getwd(); err == nil {
			cfg.WorkDir = wd
		}
	}
	if cfg.HTTPTransport == nil {
		cfg.HTTPTransport = http.DefaultTransport.(*http.Transport).Clone()
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &Manager{cfg: cfg, logger: logger}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	seen := map[string]bool{}
	for _, sc := range cfg.Servers {
		if err := sc.Validate(); err != nil {
			return nil, err
		}
		if seen[sc.Name] {
			return nil, fmt.Errorf("%w: mcp server %q is configured twice", ErrInvalidConfig, sc.Name)
		}
		seen[sc.Name] = true
		sc = sc.withDefaults()
		m.all = append(m.all, sc)
		if !sc.Disabled {
			m.servers = append(m.servers, newServer(m, sc))
		}
	}
	slices.SortFunc(m.all, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(m.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	return m, nil
}

// Start connects every enabled server in the background and returns at
// once. It is idempotent; Tools, Status and the call methods start the
// Manager implicitly.
func (m *Manager) Start() {
	m.startOnce.Do(func() {
		for _, s := range m.servers {
			s.begin()
		}
	})
}

// Close disconnects every server (stdio servers are asked to exit, then
// terminated) and waits for them. Tools already handed out fail afterwards.
func (m *Manager) Close() error {
	m.startOnce.Do(func() {}) // a closed Manager never starts
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.close)
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

// Tools returns the tools of every server that is up, waiting for each
// server at most until its startup timeout (counted from Start), so that a
// slow or broken server never delays the caller beyond it. A server that is
// not up by then is reported once (Config.OnProblem) and left out, unless
// it is required: then Tools fails with ErrRequiredServer. Servers that come
// up later appear in later calls. The list is sorted by name.
func (m *Manager) Tools(ctx context.Context) ([]tool.Tool, error) {
	return m.tools(ctx, noGrace)
}

// tools is Tools with a grace period for servers that are not required
// (see ToolsWithin); noGrace waits for each until its startup timeout.
func (m *Manager) tools(ctx context.Context, grace time.Duration) ([]tool.Tool, error) {
	m.Start()
	var (
		mu   sync.Mutex
		out  []tool.Tool
		errs []error
		wg   sync.WaitGroup
	)
	for _, s := range m.servers {
		wg.Go(func() {
			ts, err := s.toolsForModel(ctx, grace)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			out = append(out, ts...)
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		// One line, each cause still reachable with errors.Is.
		format := strings.TrimSuffix(strings.Repeat("%w; ", len(errs)), "; ")
		args := make([]any, len(errs))
		for i, e := range errs {
			args[i] = e
		}
		return nil, fmt.Errorf(format, args...)
	}
	slices.SortFunc(out, func(a, b tool.Tool) int { return strings.Compare(a.Spec().Name, b.Spec().Name) })
	return out, nil
}

// server returns the enabled server called name.
func (m *Manager) server(name string) (*server, error) {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s, nil
		}
	}
	for _, sc := range m.all {
		if sc.Name == name {
			return nil, fmt.Errorf("%w: mcp server %q is disabled in %s", ErrUnknownServer, name, sc.Source)
		}
	}
	names := make([]string, 0, len(m.servers))
	for _, s := range m.servers {
		names = append(names, s.cfg.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: %q; no MCP servers are configured", ErrUnknownServer, clip(name, 80))
	}
	return nil, fmt.Errorf("%w: %q; configured: %s", ErrUnknownServer, clip(name, 80), strings.Join(names, ", "))
}

// report passes a problem to Config.OnProblem.
func (m *Manager) report(p Problem) {
	m.logger.Warn("mcp server problem", "server", p.Server, "error", p.Err)
	if m.cfg.OnProblem != nil {
		m.cfg.OnProblem(p)
	}
}

// progressTarget is where a call's progress notifications go.
type progressTarget struct {
	server, tool, key string
	ctx               context.Context
}

// progressGrace keeps a call's progress token registered briefly after the
// call returns: the SDK dispatches notifications on a queue of their own,
// so ones the server sent just before its result may be handled just after
// the result was delivered.
const progressGrace = 250 * time.Millisecond

// trackProgress registers a progress token for one call; the returned
// function unregisters it (after progressGrace). It returns a nil token
// when nobody listens.
func (m *Manager) trackProgress(ctx context.Context, server, toolName string) (any, func()) {
	if m.cfg.OnProgress == nil {
		return nil, func() {}
	}
	token := fmt.Sprintf("rein-%d", m.tokenSeq.Add(1))
	m.progress.Store(token, &progressTarget{server: server, tool: toolName, key: tool.IdempotencyKey(ctx), ctx: context.WithoutCancel(ctx)})
	return token, func() { time.AfterFunc(progressGrace, func() { m.progress.Delete(token) }) }
}

// onProgress is the SDK's progress notification handler.
func (m *Manager) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil || m.cfg.OnProgress == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := m.progress.Load(token)
	if !ok {
		return
	}
	t := v.(*progressTarget)
	m.cfg.OnProgress(t.ctx, Progress{
		Server:         t.server,
		Tool:           t.tool,
		IdempotencyKey: t.key,
		CallID:         tool.CallID(t.ctx),
		Progress:       req.Params.Progress,
		Total:          req.Params.Total,
		Message:        clip(printable(req.Params.Message), 500),
	})
}

// stopAsync stops a stdio server's process in the background; Close
// waits for it.
func (m *Manager) stopAsync(p *process) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		p.stop()
	}()
}
