package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/reinharness/rein/agent"
)

// outcome is what one hook's run says, before the results of the hooks
// of one point are merged.
type outcome struct {
	hook  selected
	block bool
	// reason goes with block: the text the model (or, for
	// UserPromptSubmit, the user) is shown.
	reason           string
	permission       agent.Permission
	permissionReason string
	updatedInput     json.RawMessage
	context          string
	halt             bool
	haltReason       string
	// messages are for the user (systemMessage, stderr of exit 2 where
	// Claude Code shows it to the user only); warnings say what went
	// wrong with the hook itself.
	messages []string
	warnings []string
}

// interpret turns a hook's exit code and output into its outcome at
// event, following Claude Code: exit 0 (stdout is context for
// UserPromptSubmit and SessionStart, or JSON output when it is a JSON
// object), exit 2 (block with stderr), anything else a non-blocking error.
func interpret(event agent.SteerEvent, h selected, res execResult) outcome {
	o := outcome{hook: h}
	switch {
	case res.startErr != nil:
		o.warnf("could not start: %v", res.startErr)
		return o
	case res.timedOut:
		o.warnf("killed after its timeout of %s", h.cmd.Timeout)
		return o
	case res.exitCode == 2:
		o.exit2(event, res.stderr)
		return o
	case res.exitCode != 0:
		o.warnf("exited with status %d%s", res.exitCode, stderrNote(res.stderr))
		return o
	}
	out := bytes.TrimSpace([]byte(res.stdout))
	if len(out) > 0 && out[0] == '{' {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(out, &obj); err == nil && obj != nil {
			o.applyJSON(event, obj)
			return o
		}
		if res.stdoutTruncated {
			o.warnf("printed more than %d bytes; its JSON output was cut and is ignored", len(res.stdout))
		} else {
			o.warnf("printed output that looks like JSON but does not parse; ignored as JSON")
		}
	}
	if event == agent.SteerUserPromptSubmit || event == agent.SteerSessionStart {
		o.context = res.stdout
	}
	return o
}

// exit2 is a blocking error: stderr is the reason, stdout is ignored.
func (o *outcome) exit2(event agent.SteerEvent, stderr string) {
	reason := strings.TrimSpace(stderr)
	switch event {
	case agent.SteerPreToolUse, agent.SteerPostToolUse, agent.SteerStop,
		agent.SteerSubagentStop, agent.SteerUserPromptSubmit:
		if reason == "" {
			reason = fmt.Sprintf("blocked by hook %s (exit status 2, no message)", clip(o.hook.cmd.Command))
		}
		o.block, o.reason = true, reason
	default:
		// Claude Code shows these to the user only: nothing to block.
		if reason != "" {
			o.messages = append(o.messages, reason)
		}
	}
}

// applyJSON reads a hook's JSON output. Each field is decoded on its own,
// so one field of the wrong type is a warning, not the loss of the rest.
func (o *outcome) applyJSON(event agent.SteerEvent, obj map[string]json.RawMessage) {
	var cont *bool
	o.field(obj, "continue", &cont)
	var stopReason, decision, reason, systemMessage string
	o.field(obj, "stopReason", &stopReason)
	o.field(obj, "decision", &decision)
	o.field(obj, "reason", &reason)
	o.field(obj, "systemMessage", &systemMessage)
	if systemMessage != "" {
		o.messages = append(o.messages, systemMessage)
	}
	if cont != nil && !*cont {
		o.halt = true
		o.haltReason = stopReason
		if o.haltReason == "" {
			o.haltReason = fmt.Sprintf("hook %s ended the run", clip(o.hook.cmd.Command))
		}
		// "continue": false takes precedence over every decision.
		return
	}
	o.decision(event, decision, reason)

	var specific map[string]json.RawMessage
	o.field(obj, "hookSpecificOutput", &specific)
	if specific != nil {
		var name string
		o.field(specific, "hookEventName", &name)
		if name != "" && name != string(event) {
			o.warnf("hookSpecificOutput is for %q, not %s; ignored", clip(name), event)
			specific = nil
		}
	}
	if event == agent.SteerPreToolUse {
		o.permissionOutput(obj, specific)
	}
	var extra string
	o.field(specific, "additionalContext", &extra)
	switch event {
	case agent.SteerUserPromptSubmit, agent.SteerSessionStart, agent.SteerPostToolUse:
		o.context = extra
	}
}

// decision applies the top-level "decision" and "reason".
func (o *outcome) decision(event agent.SteerEvent, decision, reason string) {
	switch decision {
	case "":
		return
	case "block":
		switch event {
		case agent.SteerPreToolUse:
			// Legacy form of permissionDecision "deny".
			o.permission, o.permissionReason = agent.PermissionDeny, reason
		case agent.SteerPostToolUse, agent.SteerUserPromptSubmit, agent.SteerStop, agent.SteerSubagentStop:
			if reason == "" {
				reason = fmt.Sprintf("blocked by hook %s", clip(o.hook.cmd.Command))
			}
			o.block, o.reason = true, reason
		}
	case "approve":
		if event == agent.SteerPreToolUse {
			o.permission, o.permissionReason = agent.PermissionAllow, reason
		}
	default:
		o.warnf("decision %q is not \"block\" or \"approve\"; ignored", clip(decision))
	}
}

// permissionOutput reads PreToolUse's permissionDecision and updatedInput,
// which take precedence over the legacy decision.
func (o *outcome) permissionOutput(obj, specific map[string]json.RawMessage) {
	var perm, why string
	o.field(specific, "permissionDecision", &perm)
	o.field(specific, "permissionDecisionReason", &why)
	switch perm {
	case "":
	case "allow", "deny", "ask":
		o.permission, o.permissionReason = agent.Permission(perm), why
	default:
		o.warnf("permissionDecision %q is not allow, deny or ask; ignored", clip(perm))
	}
	up, ok := specific["updatedInput"]
	if !ok {
		up, ok = obj["updatedInput"]
	}
	if ok && !bytes.Equal(bytes.TrimSpace(up), []byte("null")) {
		var m map[string]json.RawMessage
		if json.Unmarshal(up, &m) != nil || m == nil {
			o.warnf("updatedInput is not a JSON object; ignored")
			return
		}
		o.updatedInput = up
	}
}

// field decodes obj[name] into v when present and not null; a value of
// the wrong type is a warning.
func (o *outcome) field(obj map[string]json.RawMessage, name string, v any) {
	raw, ok := obj[name]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return
	}
	// Decode into a fresh value first: a failed decode may have written
	// part of it (a *bool allocated as false), which must not count.
	fresh := reflect.New(reflect.TypeOf(v).Elem())
	if err := json.Unmarshal(raw, fresh.Interface()); err != nil {
		o.warnf("output field %q has the wrong type; ignored", name)
		return
	}
	reflect.ValueOf(v).Elem().Set(fresh.Elem())
}

func (o *outcome) warnf(format string, args ...any) {
	o.warnings = append(o.warnings, fmt.Sprintf(format, args...))
}

// stderrNote quotes the start of a failing hook's stderr for the log.
func stderrNote(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	return ": " + clip(strings.Join(strings.Fields(s), " "))
}
