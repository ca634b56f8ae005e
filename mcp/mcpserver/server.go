// Package mcpserver exposes rein's tools as an MCP server, with rein's
// policy deciding every call.
//
// One Server speaks both protocol eras: the 2026-07-28 stateless revision
// (server/discover, per-request _meta) and the initialize-handshake
// revisions (2025-11-25, 2025-06-18, …). Over stdio the era is chosen per
// request; over Streamable HTTP one endpoint serves both, routing each
// request to a stateless or a session-keeping handler (see Handler).
//
// Every tools/call goes through the policy first: Allow runs the tool under
// tool.Invoke (timeout, panic recovery, result cap), Deny answers an
// isError result carrying the reason, and Ask is resolved by the Approver
// — or denied when there is none, since a server has no one to ask —
// unless Config.ElicitApprovals puts it to a client that supports
// elicitation. Tools that need their client's input mid-call answer with
// input requests and a requestState signed by a StateSigner (SEP-2322);
// the SDK turns those into real requests for initialize-era clients.
//
// The server is built on github.com/modelcontextprotocol/go-sdk and closes
// its gaps deliberately: capabilities are advertised only for features the
// server has (never logging by default; tasks only when a tool is
// task-capable, see Config.TaskTools), cacheable results are
// marked "private" (rein's tools and resources describe one user's
// workspace), and both eras share one HTTP endpoint.
package mcpserver

//lint:file-ignore SA1019 logging is declared for clients of the 2025 revisions, which rein supports.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// Defaults for Config fields left zero.
const (
	// DefaultName is the server name announced to clients.
	DefaultName = "rein"
	// DefaultSessionTimeout closes an initialize-era HTTP session after
	// this long without a request, so abandoned sessions do not pile up.
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultMaxRequestBytes bounds one HTTP request body.
	DefaultMaxRequestBytes = 4 << 20
	// DefaultShutdownGrace is how long Serve lets in-flight
	// requests finish after its context is cancelled.
	DefaultShutdownGrace = 5 * time.Second
)

// ErrConfig reports an unusable Config; New wraps it with the cause.
var ErrConfig = errors.New("mcpserver: invalid configuration")

// Config configures New.
type Config struct {
	// Tools are the rein tools served. Each is listed with its input
	// schema and annotations derived from its Effects, and every call
	// goes through Policy and tool.Invoke.
	Tools *tool.Set
	// Policy decides every call, rein tools and Features.Tools alike.
	// Required: serving tools without a policy is refused.
	Policy policy.Decider
	// Approver resolves Ask decisions. Nil denies them: a server has no
	// terminal to ask on. Calls to it are serialised, as the Approver
	// contract requires.
	Approver policy.Approver
	// Name and Version identify the server to clients (default "rein"
	// and "dev"); Instructions, if set, is sent to clients as guidance.
	Name, Version, Instructions string
	// ToolTimeout bounds each call (zero: tool.DefaultTimeout);
	// MaxResultBytes caps a rein tool's text result (zero:
	// tool.DefaultMaxResultBytes, negative: no cap).
	ToolTimeout    time.Duration
	MaxResultBytes int
	// Features adds MCP features beyond rein's tools: prompts,
	// resources, completions, logging and natively-written tools. Nil
	// serves tools only.
	Features *Features
	// CacheTTL is the freshness hint (ttlMs) put on cacheable results:
	// tools/list, prompts/list, resources/list, resources/templates/list,
	// resources/read and server/discover. Zero marks them immediately
	// stale, which is always correct; set it only when the lists cannot
	// change for that long.
	CacheTTL time.Duration
	// SessionTimeout closes idle initialize-era HTTP sessions (zero:
	// DefaultSessionTimeout, negative: never).
	SessionTimeout time.Duration
	// MaxRequestBytes bounds an HTTP request body (zero:
	// DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// AllowRemote lets ListenAndServe bind a non-loopback address.
	// Without it only loopback addresses are accepted: the server runs
	// tools on this machine and has no authentication of its own.
	AllowRemote bool
	// AllowedOrigins lists browser origins ("https://app.example:8443")
	// accepted besides loopback ones. A request with any other Origin
	// header is refused with 403 (DNS-rebinding and cross-site defence).
	AllowedOrigins []string
	// ShutdownGrace is how long Serve (and ListenAndServe) waits for in-flight
	// requests when its context ends (zero: DefaultShutdownGrace).
	ShutdownGrace time.Duration
	// Logger receives the SDK's diagnostics; nil discards them.
	Logger *slog.Logger
	// TaskTools marks rein tools that may (TaskOptional) or must
	// (TaskRequired) run as MCP tasks: a client starts the call, polls
	// it with tasks/get and collects it later, and tasks/cancel cancels
	// it (for run_command, killing its process group). Native tools say
	// so in NativeTool.TaskSupport. The tasks capability (2025-11-25) and
	// extension (2026-07-28) are advertised only when some tool is
	// task-capable.
	TaskTools map[string]TaskSupport
	// Tasks bounds the tasks kept (zero fields take the defaults).
	Tasks TaskLimits
	// ElicitApprovals puts a rein tool's Ask to the calling client as an
	// elicitation when the client supports form elicitation: accept runs
	// the call, decline or cancel denies it. Other clients (and native
	// tools) are resolved by Approver, as without it. Leave it off when
	// the Approver already answers for the user (an "auto" approver).
	ElicitApprovals bool
	// StateSigner signs the requestState of multi-round-trip calls,
	// the server's own (approval elicitations) and native tools' that
	// use it. Nil makes one with a random key and the defaults; replicas
	// behind one endpoint must share a signer's key.
	StateSigner *StateSigner
	// OnDecision, if set, is told every policy decision the server acts
	// on (after approval), for logs and audit. It is called on the
	// request's goroutine, possibly concurrently, and must not block.
	OnDecision func(policy.Call, policy.Decision)
}

// Server serves a tool set over MCP. It is safe for concurrent use: any
// number of stdio connections and HTTP requests may be served at once.
type Server struct {
	cfg      Config
	sdk      *sdk.Server
	invoke   tool.InvokeOptions
	origins  map[string]bool
	idPrefix string
	nextID   atomic.Uint64

	// approveSem serialises Approver calls; a channel rather than a
	// mutex so a waiting call can give up when its context ends.
	approveSem chan struct{}

	handlerOnce sync.Once
	handler     *router

	state *StateSigner

	// served is what the server declares, for the capability gate.
	served served

	tasks *taskStore
	// taskMu guards support and gather: native tools may be added while
	// the server runs.
	taskMu  sync.Mutex
	support map[string]TaskSupport
	gather  map[string]bool
}

// New builds a server for cfg. It fails when cfg has no Policy, when a
// tool's input schema is not an object schema (MCP requires one), or when
// a feature cannot be registered.
func New(cfg Config) (*Server, error) {
	if cfg.Policy == nil {
		return nil, fmt.Errorf("%w: Config.Policy is nil; pass a policy.Decider (for example a policy.Engine) — tools are never served without a policy", ErrConfig)
	}
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.CacheTTL < 0 {
		return nil, fmt.Errorf("%w: CacheTTL is negative (%v); use zero for immediately stale results", ErrConfig, cfg.CacheTTL)
	}
	origins, err := normalizeOrigins(cfg.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:        cfg,
		invoke:     tool.InvokeOptions{Timeout: cfg.ToolTimeout, MaxResultBytes: cfg.MaxResultBytes},
		origins:    origins,
		idPrefix:   randomPrefix(),
		approveSem: make(chan struct{}, 1),
		tasks:      newTaskStore(cfg.Tasks),
		support:    map[string]TaskSupport{},
		gather:     map[string]bool{},
	}
	if err := checkTaskTools(cfg); err != nil {
		return nil, err
	}
	if f := cfg.Features; f != nil {
		s.served.completions, s.served.logging, s.served.subscribe = f.Complete != nil, f.Logging, f.Subscribe != nil
	}
	if s.state = cfg.StateSigner; s.state == nil {
		s.state, _ = NewStateSigner(StateOptions{}) // the defaults cannot fail
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: cfg.Name, Version: cfg.Version}, s.serverOptions())
	if err := s.addReinTools(cfg.Tools); err != nil {
		return nil, err
	}
	if err := s.addFeatures(cfg.Features); err != nil {
		return nil, err
	}
	if err := s.addTaskMethods(); err != nil {
		return nil, err
	}
	s.sdk.AddReceivingMiddleware(s.capabilityGate, s.taskMiddleware)
	s.sdk.AddSendingMiddleware(s.taskSendingMiddleware)
	return s, nil
}

// serverOptions sets every capability explicitly: left to itself the SDK
// would advertise logging, which rein's tools do not emit.
func (s *Server) serverOptions() *sdk.ServerOptions {
	f := s.cfg.Features
	if f == nil {
		f = &Features{}
	}
	opts := &sdk.ServerOptions{
		Instructions:       s.cfg.Instructions,
		Logger:             s.cfg.Logger,
		Capabilities:       s.capabilities(f),
		CompletionHandler:  f.Complete,
		SubscribeHandler:   f.Subscribe,
		UnsubscribeHandler: f.Unsubscribe,
		SetCacheable:       s.setCacheable,
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return opts
}

// capabilities lists what the server has, and nothing else. The tasks
// extension is advertised only when a tool is task-capable (the
// 2025-11-25 tasks capability, which the SDK's type lacks, is added to
// the initialize result by the task middleware).
func (s *Server) capabilities(f *Features) *sdk.ServerCapabilities {
	caps := &sdk.ServerCapabilities{}
	if declaresTaskTools(s.cfg) {
		caps.Extensions = map[string]any{TasksExtension: map[string]any{}}
	}
	if s.cfg.Tools.Len() > 0 || len(f.Tools) > 0 {
		caps.Tools = &sdk.ToolCapabilities{ListChanged: f.ListChanged}
	}
	if len(f.Prompts) > 0 {
		caps.Prompts = &sdk.PromptCapabilities{ListChanged: f.ListChanged}
	}
	if len(f.Resources) > 0 || len(f.ResourceTemplates) > 0 {
		caps.Resources = &sdk.ResourceCapabilities{ListChanged: f.ListChanged, Subscribe: f.Subscribe != nil}
	}
	if f.Complete != nil {
		caps.Completions = &sdk.CompletionCapabilities{}
	}
	if f.Logging {
		caps.Logging = &sdk.LoggingCapabilities{}
	}
	return caps
}

// setCacheable marks every cacheable result private: rein's tool list
// follows the user's configuration and its resources are the user's
// files, so no shared cache may serve them to someone else. (The SDK
// would default to public.)
func (s *Server) setCacheable(_ context.Context, _ sdk.Request, c *sdk.Cacheable) {
	c.CacheScope = "private"
	c.TTLMs = int(s.cfg.CacheTTL / time.Millisecond)
}

// Close ends every session the server holds (stdio and HTTP alike) and
// cancels every task; their in-flight calls are cancelled. The server may
// still accept new ones.
func (s *Server) Close() {
	for ss := range s.sdk.Sessions() {
		ss.Close()
	}
	s.tasks.closeAll()
}

// callID returns a new call ID, unique within this process: the policy
// sees it and mutating tools get it as their idempotency key.
func (s *Server) callID() string {
	return fmt.Sprintf("mcp-%s-%d", s.idPrefix, s.nextID.Add(1))
}

// randomPrefix distinguishes this server's call IDs from another
// instance's (a restarted server must not reuse idempotency keys).
func randomPrefix() string {
	var b [4]byte
	rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return hex.EncodeToString(b[:])
}
