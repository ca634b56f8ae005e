package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/acp"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
)

func (a *App) acpCommand() *cobra.Command {
	var flags commonFlags
	cmd := &cobra.Command{
		Use:   "acp [flags]",
		Short: "Serve an editor over the Agent Client Protocol (stdio)",
		Long: `Run rein as an Agent Client Protocol agent: the editor (Zed, a JetBrains
IDE, Neovim) starts it and speaks JSON-RPC 2.0 on its stdin and stdout, one
message a line. stdout carries the protocol only; rein's warnings go to stderr.

Each session works in the directory the editor names (cwd) with rein's tools,
policy and sandbox; its modes are rein's presets (read-only, editor, full).
Calls the policy asks about are put to the editor as permission requests;
hard denials never are. Sessions are stored like rein's others: session/load
resumes one after the editor restarted. See docs/acp.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := flags.validate(); err != nil {
				return err
			}
			return a.serveACP(cmd.Context(), &flags)
		},
	}
	flags.register(cmd.Flags())
	return cmd
}

// serveACP runs the agent until the editor closes its end of stdin.
func (a *App) serveACP(ctx context.Context, flags *commonFlags) error {
	a.serialOutput()
	s := &acpServer{a: a, flags: *flags, base: ctx, sessions: map[string]*acpSession{}}
	// Each message is one Write, whole JSON: the JSON writer escapes what a
	// terminal would obey (an editor's log may be one) and keeps the values.
	s.conn = acp.NewConn(a.Stdin, termsafe.NewJSONWriter(a.Stdout), s)
	err := s.conn.Serve(ctx)
	s.closeAll()
	if err != nil && !errors.Is(err, context.Canceled) {
		return a.fail(err, nil)
	}
	return nil
}

// acpServer is the agent side of one ACP connection.
type acpServer struct {
	a     *App
	flags commonFlags
	base  context.Context
	conn  *acp.Conn

	mu          sync.Mutex
	initialized bool
	client      acp.ClientCapabilities
	sessions    map[string]*acpSession
}

// HandleRequest implements acp.Handler.
func (s *acpServer) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method == acp.MethodInitialize {
		return s.initialize(params)
	}
	s.mu.Lock()
	ready := s.initialized
	s.mu.Unlock()
	if !ready {
		return nil, acp.Errorf(acp.CodeInvalidRequest, "call initialize first")
	}
	switch method {
	case acp.MethodAuthenticate:
		// rein reads its provider's key from its configuration and
		// environment; there is nothing to sign in to here.
		return struct{}{}, nil
	case acp.MethodSessionNew:
		var p acp.NewSessionParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return s.deferCommands(s.newSession(p.CWD, "", p.MCPServers))
	case acp.MethodSessionLoad:
		var p acp.LoadSessionParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		if p.SessionID == "" {
			return nil, acp.Errorf(acp.CodeInvalidParams, "sessionId is required")
		}
		return s.deferCommands(s.newSession(p.CWD, p.SessionID, p.MCPServers))
	case acp.MethodSessionPrompt:
		var p acp.PromptParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		sess, err := s.session(p.SessionID)
		if err != nil {
			return nil, err
		}
		return sess.prompt(ctx, p.Prompt)
	case acp.MethodSessionSetMode:
		var p acp.SetModeParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		sess, err := s.session(p.SessionID)
		if err != nil {
			return nil, err
		}
		return struct{}{}, sess.setMode(p.ModeID)
	}
	return nil, acp.Errorf(acp.CodeMethodNotFound, "rein does not implement %q", method)
}

// HandleNotification implements acp.Handler: session/cancel; other
// notifications are ignored, as JSON-RPC has nobody to tell.
func (s *acpServer) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != acp.MethodSessionCancel {
		return
	}
	var p acp.CancelParams
	if decodeParams(params, &p) != nil {
		return
	}
	if sess, err := s.session(p.SessionID); err == nil {
		sess.cancelTurn()
	}
}

// initialize negotiates the protocol version: a client asking for a later
// one is answered with 1 (it decides whether to go on, as ACP says); one
// asking for an earlier one is refused.
func (s *acpServer) initialize(params json.RawMessage) (any, error) {
	var p acp.InitializeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion < acp.ProtocolVersion {
		return nil, acp.Errorf(acp.CodeInvalidParams, "rein speaks ACP protocol version %d; the client asked for %d", acp.ProtocolVersion, p.ProtocolVersion)
	}
	s.mu.Lock()
	s.initialized, s.client = true, p.ClientCapabilities
	s.mu.Unlock()
	return acp.InitializeResult{
		ProtocolVersion: acp.ProtocolVersion,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession: true,
			// Prompts are text for the model: embedded resources are
			// inlined, images are not sent to it.
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
			MCPCapabilities:    acp.MCPCapabilities{HTTP: true},
		},
		AuthMethods: []acp.AuthMethod{},
		AgentInfo:   &acp.Implementation{Name: "rein", Title: "rein", Version: versionString(version, readBuildInfo())},
	}, nil
}

// decodeParams decodes a request's params, answering wrong types with
// invalid params rather than a guess.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return acp.Errorf(acp.CodeInvalidParams, "params: %s must be %s", te.Field, te.Type)
		}
		return acp.Errorf(acp.CodeInvalidParams, "params do not parse")
	}
	return nil
}

// session returns the open session id.
func (s *acpServer) session(id string) (*acpSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return nil, acp.Errorf(acp.CodeInvalidParams, "no open session %q (session/new or session/load first)", id)
	}
	return sess, nil
}

// closeAll cancels the sessions' turns and releases them.
func (s *acpServer) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, sess := range s.sessions {
		sess.close()
		delete(s.sessions, id)
	}
}

// presetModes are rein's presets as ACP session modes.
var presetModes = []acp.SessionMode{
	{ID: string(policy.PresetReadOnly), Name: "Read-only", Description: "reads and searches; asks before any change"},
	{ID: string(policy.PresetEditor), Name: "Editor", Description: "edits files in the workspace; asks before commands"},
	{ID: string(policy.PresetFull), Name: "Full", Description: "edits and runs commands in the sandbox; hard denials still hold"},
}

// newSession opens a session in cwd: a new one, or the stored session
// load, whose history is replayed to the client first.
func (s *acpServer) newSession(cwd, load string, servers []acp.MCPServer) (*acp.SessionResult, *acpSession, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, nil, acp.Errorf(acp.CodeInvalidParams, "cwd must be an absolute path")
	}
	extra, err := acpServers(servers)
	if err != nil {
		return nil, nil, err
	}
	sess, err := s.open(cwd, load, extra)
	if err != nil {
		return nil, nil, acp.Errorf(acp.CodeInternalError, "%s", textclip.FirstLine(newExplainer(sess.modelCfg()).scrub(err.Error())))
	}
	s.mu.Lock()
	if old, ok := s.sessions[sess.id]; ok {
		old.close() // loaded again: the newer one answers
	}
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	res := &acp.SessionResult{Modes: &acp.SessionModes{CurrentModeID: string(sess.h.modes.Preset()), AvailableModes: presetModes}}
	if load == "" {
		res.SessionID = sess.id
	} else {
		sess.replay()
	}
	return res, sess, nil
}

// deferCommands sends the session's custom commands once the answer
// naming the session went out.
func (s *acpServer) deferCommands(res *acp.SessionResult, sess *acpSession, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return acp.Deferred{Result: res, Then: sess.sendCommands}, nil
}

// errBusy answers a prompt sent while the session's turn runs.
var errBusy = acp.Errorf(acp.CodeInvalidRequest, "a prompt is already running on this session; cancel it or wait for its answer")

// stopReason maps a run's outcome to ACP's stop reasons. Outcomes ACP has
// no word for end the turn; their reason was shown as a message.
func stopReason(out *agent.Outcome) string {
	switch out.Kind {
	case agent.Cancelled:
		return acp.StopCancelled
	case agent.StepLimit, agent.RepeatedAction:
		return acp.StopMaxTurnRequests
	case agent.TokenBudget:
		return acp.StopMaxTokens
	case agent.ContentFiltered:
		return acp.StopRefusal
	}
	return acp.StopEndTurn
}

// promptText turns a prompt's blocks into the model's text: resource links
// as links, embedded text resources inlined. Images and audio are refused
// (not offered in promptCapabilities).
func promptText(blocks []acp.ContentBlock) (string, error) {
	var b strings.Builder
	for _, c := range blocks {
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "resource_link":
			fmt.Fprintf(&b, "[@%s](%s)", c.Name, c.URI)
		case "resource":
			if c.Resource == nil || c.Resource.Text == "" {
				return "", acp.Errorf(acp.CodeInvalidParams, "only text resources can be embedded")
			}
			fmt.Fprintf(&b, "\n<context uri=%q>\n%s\n</context>\n", c.Resource.URI, c.Resource.Text)
		default:
			return "", acp.Errorf(acp.CodeInvalidParams, "rein does not take %q content in prompts", c.Type)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", acp.Errorf(acp.CodeInvalidParams, "the prompt is empty")
	}
	return b.String(), nil
}
