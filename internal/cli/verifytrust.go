package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// checksTrustFile is the store of trusted project [verify] checks in the
// state directory, beside the hooks' (same format).
const checksTrustFile = "trusted-checks.json"

// checksStore returns the store of the trusted project checks.
func checksStore(stateDir string) *host.TrustStore {
	return &host.TrustStore{Path: filepath.Join(stateDir, checksTrustFile)}
}

// projectChecks returns the checks a project layer added.
func projectChecks(checks []host.VerifyCheck) []host.VerifyCheck {
	var out []host.VerifyCheck
	for _, c := range checks {
		if c.Source != "" {
			out = append(out, c)
		}
	}
	return out
}

// checksFingerprint identifies exactly what the project checks run.
func checksFingerprint(checks []host.VerifyCheck) string {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s;", len(p), p)
		}
	}
	write("rein-checks-v1")
	for _, c := range checks {
		write(c.Source, c.Script, c.Timeout.String())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checksStatus says whether the project checks of ws may run: trusted
// as they are, the workspace files they name unchanged.
func checksStatus(store *host.TrustStore, checks []host.VerifyCheck, ws string) host.TrustStatus {
	project := projectChecks(checks)
	pins := host.ScriptPins(scripts(project), ws)
	if len(project) == 0 {
		return host.TrustStatus{Trusted: true, Pins: pins}
	}
	return store.PinStatus(ws, checksFingerprint(project), pins)
}

// trustChecks records the project checks of ws as trusted.
func trustChecks(store *host.TrustStore, checks []host.VerifyCheck, ws string) (host.TrustStatus, error) {
	project := projectChecks(checks)
	return store.TrustPins(ws, checksFingerprint(project), host.ScriptPins(scripts(project), ws))
}

func scripts(checks []host.VerifyCheck) []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.Script
	}
	return out
}

// trustedChecks leaves out the project checks of s unless the user
// trusted them as they are, with one warning saying how to.
func (a *App) trustedChecks(s host.VerifySettings, ws, stateDir string) host.VerifySettings {
	project := projectChecks(s.Checks)
	if len(project) == 0 {
		return s
	}
	st := checksStatus(checksStore(stateDir), s.Checks, ws)
	if st.Trusted {
		return s
	}
	var sources []string
	for _, c := range project {
		if !slices.Contains(sources, c.Source) {
			sources = append(sources, c.Source)
		}
	}
	why := "that were not run"
	switch {
	case st.Err != nil:
		why += ": " + textclip.FirstLine(st.Err.Error())
	case st.Known:
		why += ": they or the files they run changed since you trusted them"
	}
	fmt.Fprintf(a.Stderr, "rein: warning: the workspace's [verify] (%s) adds %s %s; review them with rein hooks list, then run: rein hooks trust\n",
		pathList(sources), plural(len(project), "check"), why)
	s.Checks = slices.DeleteFunc(slices.Clone(s.Checks), func(c host.VerifyCheck) bool { return c.Source != "" })
	return s
}

// checkGate decides a project check like a run_command call: the
// engine's decision, a hard denial refused outright, an Ask put to the
// approver (which, under --approve never, refuses).
type checkGate struct {
	decider  policy.Decider
	approver policy.Approver
	spec     tool.Spec
}

// decide returns "" when the check may run, else why it may not.
func (g *checkGate) decide(ctx context.Context, c host.VerifyCheck) string {
	args, _ := json.Marshal(map[string]string{"command": c.Script})
	call := policy.Call{ID: "verify", Spec: g.spec, Args: args}
	d := g.decider.Decide(ctx, call)
	if d.Action == policy.Ask && !d.Hard && g.approver != nil {
		ad, err := g.approver.Approve(ctx, call, d)
		if err != nil {
			return "not approved: " + textclip.FirstLine(err.Error())
		}
		d = ad
	}
	if d.Action != policy.Allow {
		return "refused by the policy (" + c.Source + " is the repository's check): " + textclip.FirstLine(d.Reason)
	}
	return ""
}
