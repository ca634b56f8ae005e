package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinharness/rein/internal/acp"
	"github.com/reinharness/rein/internal/approve"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/workspace"
)

// acpToolCalls follows a session's tool calls: the idempotency key each
// mutating call got, to find its changes in the workspace journal.
type acpToolCalls struct {
	ws *workspace.Workspace

	mu      sync.Mutex
	seen    int64
	keys    map[string]string
	pending map[string][]workspace.Change
}

func newACPToolCalls(ws *workspace.Workspace) *acpToolCalls {
	t := &acpToolCalls{ws: ws, keys: map[string]string{}, pending: map[string][]workspace.Change{}}
	if cs := ws.Changes(); len(cs) > 0 {
		t.seen = cs[len(cs)-1].Seq
	}
	return t
}

func (t *acpToolCalls) started(callID, key string) {
	if key == "" {
		return
	}
	t.mu.Lock()
	t.keys[callID] = key
	t.mu.Unlock()
}

// toolKinds are the ACP kinds of rein's built-in tools.
var toolKinds = map[string]string{
	"read_file": "read", "list_files": "read", "glob": "search", "grep": "search", "search": "search",
	"write_file": "edit", "edit_file": "edit", "apply_patch": "edit", "delete_file": "delete", "move_file": "move",
	"run_command": "execute", "web_fetch": "fetch", "todo_write": "think", "update_plan": "think",
}

// describe is a call's tool_call: title, kind, the files it names, input.
func (t *acpToolCalls) describe(c model.ToolCall) acp.ToolCall {
	tc := acp.ToolCall{ToolCallID: c.ID, Title: c.Name, Kind: toolKinds[c.Name], RawInput: c.Args}
	if tc.Kind == "" {
		tc.Kind = "other"
	}
	var args map[string]any
	json.Unmarshal(c.Args, &args)
	for _, k := range []string{"path", "file", "file_path"} {
		if p, ok := args[k].(string); ok && p != "" {
			tc.Locations = append(tc.Locations, acp.ToolCallLocation{Path: t.abs(p)})
			tc.Title = c.Name + " " + p
			break
		}
	}
	if cmd, ok := args["command"].(string); ok && tc.Kind == "execute" {
		tc.Title = textclip.FirstLine(cmd)
	}
	return tc
}

// abs resolves a workspace-relative path: ACP's paths are absolute.
func (t *acpToolCalls) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.ws.Dir(), p)
}

// diffs are the diff contents of the files a call changed, from the
// workspace journal (a side whose content was not kept is left out).
func (t *acpToolCalls) diffs(callID string) []acp.ToolCallContent {
	t.mu.Lock()
	defer t.mu.Unlock()
	key, ok := t.keys[callID]
	if !ok {
		return nil
	}
	delete(t.keys, callID)
	for _, c := range t.ws.ChangesSince(t.seen) {
		t.seen = c.Seq
		t.pending[c.CallID] = append(t.pending[c.CallID], c)
	}
	changes := t.pending[key]
	delete(t.pending, key)
	var out []acp.ToolCallContent
	for _, c := range changes {
		if (c.Before.Exists && !c.Before.Stored) || (c.After.Exists && !c.After.Stored) {
			continue
		}
		d := acp.ToolCallContent{Type: "diff", Path: t.abs(c.Path), NewText: ptr(string(c.After.Data))}
		if c.Before.Exists {
			d.OldText = ptr(string(c.Before.Data))
		}
		out = append(out, d)
	}
	return out
}

// acpApprover puts the policy's questions to the editor as
// session/request_permission. It drives the console approver, which keeps
// the session's approvals and the wording of decisions, with the editor's
// answers; "always" is kept in rein's permission store, never in the
// repository. A cancelled request or a closed connection denies.
type acpApprover struct {
	sess  *acpSession
	perms *host.PermissionStore
	inner policy.Approver

	mu       sync.Mutex // one question at a time
	call     policy.Call
	dec      policy.Decision
	answers  []string
	rejected map[string]bool // reject_always, for this session
}

func newACPApprover(sess *acpSession, perms *host.PermissionStore) *acpApprover {
	ap := &acpApprover{sess: sess, perms: perms, rejected: map[string]bool{}}
	ap.inner = approve.Console(strings.NewReader(""), io.Discard, approve.ConsoleOptions{Workspace: sess.h.ws.Dir(), Decider: sess.h.modes, ReadLine: ap.readLine})
	return ap
}

// rejectKey names what reject_always refuses: the command line of a
// command, the tool otherwise.
func rejectKey(c policy.Call) string {
	var args map[string]any
	json.Unmarshal(c.Args, &args)
	if eff := c.Spec.Effects; eff.Exec && eff.CommandArg != "" {
		cmd, _ := args[eff.CommandArg].(string)
		return c.Spec.Name + "\x00" + cmd
	}
	return c.Spec.Name
}

// refusals is what "always reject" stores in rein's permission store:
// the tool, or the command when it is one simple command rein can name
// exactly. A compound command is refused for the session only: refusing
// each of its parts forever would refuse what the user never saw alone.
func (ap *acpApprover) refusals(ws string) []host.Permission {
	if ap.perms == nil {
		return nil
	}
	g := grants(ap.call, ws)
	if len(g) != 1 {
		return nil
	}
	g[0].Deny = true
	return g
}

// Approve implements policy.Approver.
func (ap *acpApprover) Approve(ctx context.Context, c policy.Call, d policy.Decision) (policy.Decision, error) {
	ap.mu.Lock()
	defer ap.mu.Unlock()
	if d.Action == policy.Ask && ap.rejected[rejectKey(c)] {
		return policy.Decision{Action: policy.Deny, Reason: "denied by the user for this session", Rule: "approver:acp"}, nil
	}
	ap.call, ap.dec, ap.answers = c, d, nil
	return ap.inner.Approve(ctx, c, d)
}

// readLine answers the console approver's question from the editor.
func (ap *acpApprover) readLine(ctx context.Context) (string, error) {
	if len(ap.answers) > 0 {
		a := ap.answers[0]
		ap.answers = ap.answers[1:]
		return a, nil
	}
	ws := ap.sess.h.ws.Dir()
	canAlways := ap.perms != nil && approve.AlwaysLifts(ap.dec) && len(grants(ap.call, ws)) > 0
	opts := []acp.PermissionOption{{OptionID: acp.AllowOnce, Name: "Allow once", Kind: acp.AllowOnce}}
	if canAlways {
		opts = append(opts, acp.PermissionOption{OptionID: acp.AllowAlways, Name: "Always allow in this project", Kind: acp.AllowAlways})
	}
	refusals := ap.refusals(ws)
	rejectAlways := "Reject for this session"
	if len(refusals) > 0 {
		rejectAlways = "Always reject in this project"
	}
	opts = append(opts, acp.PermissionOption{OptionID: acp.RejectOnce, Name: "Reject", Kind: acp.RejectOnce},
		acp.PermissionOption{OptionID: acp.RejectAlways, Name: rejectAlways, Kind: acp.RejectAlways})
	tc := ap.sess.tc.describe(model.ToolCall{ID: ap.call.ID, Name: ap.call.Spec.Name, Args: ap.call.Args})
	tc.Status = acp.StatusPending
	var res acp.RequestPermissionResult
	err := ap.sess.srv.conn.Call(ctx, acp.MethodRequestPermission, acp.RequestPermissionParams{SessionID: ap.sess.id, ToolCall: tc, Options: opts}, &res)
	if err != nil {
		if errors.Is(err, acp.ErrClosed) || ctx.Err() != nil {
			return "", err
		}
		ap.answers = []string{""}
		return "n", nil // an answer we cannot read denies
	}
	if res.Outcome.Outcome != "selected" {
		ap.answers = []string{"the request was cancelled"}
		return "n", nil
	}
	switch res.Outcome.OptionID {
	case acp.AllowOnce:
		return "y", nil
	case acp.AllowAlways:
		if canAlways {
			if err := ap.perms.Add(ws, grants(ap.call, ws)...); err != nil {
				fmt.Fprintf(ap.sess.srv.a.Stderr, "rein: warning: could not save the permission: %s (allowed for this session)\n", textclip.FirstLine(err.Error()))
			}
		}
		return "s", nil // a call "always" cannot name is allowed for the session
	case acp.RejectAlways:
		ap.rejected[rejectKey(ap.call)] = true
		if len(refusals) > 0 {
			if err := ap.perms.Add(ws, refusals...); err != nil {
				fmt.Fprintf(ap.sess.srv.a.Stderr, "rein: warning: could not save the refusal: %s (refused for this session)\n", textclip.FirstLine(err.Error()))
			}
		}
	}
	ap.answers = []string{""}
	return "n", nil
}
