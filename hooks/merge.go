package hooks

import (
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/secret"
)

// merge combines the outcomes of the hooks that ran in parallel at p:
// any halt halts; any block blocks, with every reason; the strictest
// permission wins (deny over ask over allow); contexts are joined. An
// allow is Trusted only when every hook that gave one is the user's.
// Everything the model will read is redacted and bounded.
func (r *Runner) merge(p agent.SteerPoint, outcomes []outcome) agent.SteerVerdict {
	var v agent.SteerVerdict
	var reasons, haltReasons, contexts []string
	permReasons := map[agent.Permission][]string{}
	trusted := true
	for _, o := range outcomes {
		if o.halt {
			v.Halt = true
			haltReasons = append(haltReasons, o.haltReason)
		}
		if o.block {
			v.Block = true
			reasons = append(reasons, o.reason)
		}
		if o.permission != agent.PermissionNone {
			if rank(o.permission) > rank(v.Permission) {
				v.Permission = o.permission
			}
			if o.permissionReason != "" {
				permReasons[o.permission] = append(permReasons[o.permission], o.permissionReason)
			}
			if o.permission == agent.PermissionAllow && o.hook.layer != LayerUser {
				trusted = false
			}
		}
		if c := strings.TrimSpace(o.context); c != "" {
			contexts = append(contexts, c)
		}
	}
	v.Trusted = v.Permission == agent.PermissionAllow && trusted
	v.Reason = r.forModel(strings.Join(reasons, "\n"))
	v.PermissionReason = r.forModel(strings.Join(permReasons[v.Permission], "\n"))
	v.Context = r.forModel(strings.Join(contexts, "\n"))
	v.HaltReason = r.forModel(strings.Join(haltReasons, "; "))
	if p.Event == agent.SteerPreToolUse && !v.Block && v.Permission != agent.PermissionDeny && p.Call != nil {
		var by []outcome
		v.UpdatedInput, by = r.updatedInput(p, outcomes)
		if v.UpdatedInput != nil && !allowedOwnInput(by) {
			// The hooks ran in parallel on the model's input: an allow
			// covers that input only. When a hook replaced it, the allow
			// lifts an Ask only if every replacement came from a user
			// hook that gave the allow itself.
			v.Trusted = false
		}
	}
	return v
}

// updatedInput applies the hooks' updatedInput objects to the call's
// arguments, in configuration order, translated to rein's vocabulary.
// The loop has the policy decide the call again with the result.
// It also returns the outcomes whose input was applied.
func (r *Runner) updatedInput(p agent.SteerPoint, outcomes []outcome) ([]byte, []outcome) {
	args := p.Call.Args
	var by []outcome
	for _, o := range outcomes {
		if o.updatedInput == nil {
			continue
		}
		next, err := fromClaudeInput(p.Call.Name, args, o.updatedInput, r.cfg.Workspace)
		if err != nil {
			r.log.Warn("hook "+err.Error()+"; ignored", "event", p.Event, "command", clip(o.hook.cmd.Command))
			continue
		}
		args, by = next, append(by, o)
	}
	if len(by) == 0 {
		return nil, nil
	}
	return args, by
}

// allowedOwnInput reports whether every hook that replaced the input is
// a user hook that allowed the call: only then does the allow cover the
// input that will run.
func allowedOwnInput(by []outcome) bool {
	for _, o := range by {
		if o.hook.layer != LayerUser || o.permission != agent.PermissionAllow {
			return false
		}
	}
	return len(by) > 0
}

// rank orders permissions by strictness.
func rank(p agent.Permission) int {
	switch p {
	case agent.PermissionAllow:
		return 1
	case agent.PermissionAsk:
		return 2
	case agent.PermissionDeny:
		return 3
	}
	return 0
}

// forModel prepares hook text for the model: valid UTF-8 without NUL
// bytes, secrets redacted, at most MaxOutput bytes.
func (r *Runner) forModel(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", ""))
	if s == "" {
		return ""
	}
	s = secret.Redact(s)
	if len(s) > r.cfg.MaxOutput {
		cut := r.cfg.MaxOutput
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "\n[hook output truncated]"
	}
	return s
}
