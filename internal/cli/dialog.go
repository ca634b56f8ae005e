package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/internal/approve"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/shell"
	"github.com/reinharness/rein/workspace"
)

// dialogApprover asks approvals in the terminal UI's dialog. It wraps the
// policy's console approver, which keeps the session memory ([s]ession
// approvals) and the wording of decisions; the dialog supplies its
// answers. "Always for this project" is kept in rein's state directory
// (permissionStore), never in the repository, and also remembered for
// the session so it takes effect at once.
type dialogApprover struct {
	front *tuiFront
	ws    *workspace.Workspace
	perms *host.PermissionStore
	inner policy.Approver

	mu      sync.Mutex // one approval at a time
	next    int
	pending tui.ApprovalRequest
	call    policy.Call
	// answers are the lines still to give the console approver (the
	// reason after a denial).
	answers []string
}

func newDialogApprover(f *tuiFront, ws *workspace.Workspace, perms *host.PermissionStore, engine policy.Decider) *dialogApprover {
	d := &dialogApprover{front: f, ws: ws, perms: perms}
	d.inner = approve.Console(strings.NewReader(""), io.Discard, approve.ConsoleOptions{Workspace: ws.Dir(), Decider: engine, ReadLine: d.readLine})
	return d
}

// Approve implements policy.Approver.
func (d *dialogApprover) Approve(ctx context.Context, c policy.Call, dec policy.Decision) (policy.Decision, error) {
	if dec.Action != policy.Ask {
		return d.inner.Approve(ctx, c, dec)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next++
	d.pending = d.request(c, dec)
	d.call, d.answers = c, nil
	return d.inner.Approve(ctx, c, dec)
}

// readLine answers the console approver's questions from the dialog.
func (d *dialogApprover) readLine(ctx context.Context) (string, error) {
	if len(d.answers) > 0 {
		a := d.answers[0]
		d.answers = d.answers[1:]
		return a, nil
	}
	reply := make(chan tui.ApprovalReply, 1)
	d.front.send(tui.ApprovalMsg{Request: d.pending, Reply: reply})
	select {
	case <-ctx.Done():
		d.front.send(tui.ApprovalWithdrawnMsg{ID: d.pending.ID})
		return "", ctx.Err()
	case <-d.front.ended:
		return "", errInputEnded
	case r := <-reply:
		switch r.Choice {
		case tui.ChoiceOnce:
			return "y", nil
		case tui.ChoiceSession:
			return "s", nil
		case tui.ChoiceAlways:
			if err := d.perms.Add(d.ws.Dir(), grants(d.call, d.ws.Dir())...); err != nil {
				d.front.send(tui.NoticeMsg{Kind: tui.NoticeError, Text: "rein: could not save the permission: " + err.Error() + " (allowed for this session)"})
			}
			return "s", nil
		}
		d.answers = []string{r.Reason}
		return "n", nil
	}
}

// request describes a call for the dialog.
func (d *dialogApprover) request(c policy.Call, dec policy.Decision) tui.ApprovalRequest {
	r := tui.ApprovalRequest{ID: d.next, Tool: c.Spec.Name, Why: dec.Reason}
	var args map[string]any
	json.Unmarshal(c.Args, &args)
	eff := c.Spec.Effects
	switch {
	case eff.Exec && eff.CommandArg != "":
		r.Command, _ = args[eff.CommandArg].(string)
	case fileTools[c.Spec.Name]:
		r.Diff = previewDiff(d.ws, c.Spec.Name, args)
	}
	if r.Command == "" && r.Diff == "" {
		r.Args = compactJSON(c.Args)
	}
	r.CanAlways = d.perms != nil && approve.AlwaysLifts(dec) && len(grants(c, d.ws.Dir())) > 0
	return r
}

// grants are the permissions "always" records for a call: each simple
// command of a command line the analyzer reads statically, exactly; the
// tool itself otherwise. A command line it cannot read (dynamic names,
// concerns) gets none: it would be a grant nobody can see the extent of.
func grants(c policy.Call, ws string) []host.Permission {
	now := time.Now().UTC()
	eff := c.Spec.Effects
	if !eff.Exec {
		return []host.Permission{{Tool: c.Spec.Name, Added: now}}
	}
	var args map[string]any
	json.Unmarshal(c.Args, &args)
	cmd, _ := args[eff.CommandArg].(string)
	if cmd == "" {
		return nil
	}
	home, _ := os.UserHomeDir()
	an := shell.Analyze(cmd, shell.Options{Workspace: ws, Home: home})
	if len(an.Concerns()) > 0 || len(an.Hard()) > 0 || len(an.Commands) == 0 {
		return nil
	}
	var out []host.Permission
	for _, sc := range an.Commands {
		if sc.Dynamic {
			return nil
		}
		out = append(out, host.Permission{Command: sc.Args, Added: now})
	}
	return out
}

// maxPreview bounds the file read for a write's preview.
const maxPreview = 1 << 20

// previewDiff is the diff a write_file or edit_file call would make, or
// an apply_patch call's patch.
func previewDiff(ws *workspace.Workspace, name string, args map[string]any) string {
	str := func(k string) string { s, _ := args[k].(string); return s }
	if name == "apply_patch" {
		return str("patch")
	}
	path := str("path")
	if path == "" {
		return ""
	}
	old, err := ws.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "(" + err.Error() + ")"
	}
	if len(old) > maxPreview {
		return "(the file is too large to preview)"
	}
	oldName := "a/" + path
	if err != nil {
		oldName = "/dev/null"
	}
	var next string
	switch name {
	case "write_file":
		next = str("content")
	case "edit_file":
		n := 1
		if all, _ := args["replace_all"].(bool); all {
			n = -1
		}
		next = strings.Replace(string(old), str("old_string"), str("new_string"), n)
	}
	return workspace.UnifiedDiff(oldName, "b/"+path, old, []byte(next))
}
