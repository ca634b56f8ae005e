package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/claudeperm"
	"github.com/reinharness/rein/policy/netrules"
)

// permissionsTrustFile is the store of trusted project allow rules of
// Claude Code's settings, beside the hooks' (same format).
const permissionsTrustFile = "trusted-permissions.json"

// userClaudeSettings is the user's own Claude Code settings file, under
// the home directory.
var userClaudeSettings = filepath.Join(".claude", "settings.json")

// claudeFile is one settings file's permissions.
type claudeFile struct {
	name  string // as shown: .claude/settings.json, ~/.claude/settings.json
	data  []byte
	rules claudeperm.Rules
	tr    claudeperm.Translation
}

// claudePerms are the permissions of the workspace's and the user's
// Claude Code settings.
type claudePerms struct {
	user     *claudeFile
	project  []claudeFile
	warnings []string
}

// loadClaudePerms reads the "permissions" of ~/.claude/settings.json and
// of the workspace's .claude/settings.json and settings.local.json, with
// the reading the hooks use (readSettings: bounded, confined to the
// directory's os.Root). A workspace file rein cannot read is already
// reported by loadHooks; here only what concerns permissions is.
func loadClaudePerms(ws, home string) claudePerms {
	var cp claudePerms
	env := claudeperm.Env{Workspace: ws, Home: home}
	read := func(dir, name, shown string, report bool) *claudeFile {
		data, err := host.ReadSettings(dir, name)
		if err != nil {
			if report && !errors.Is(err, fs.ErrNotExist) {
				cp.warnings = append(cp.warnings, fmt.Sprintf("%s: permissions not read: %v", shown, err))
			}
			return nil
		}
		rules, w, err := claudeperm.Parse(data, shown)
		cp.warnings = append(cp.warnings, w...)
		if err != nil {
			if report {
				cp.warnings = append(cp.warnings, "permissions not read: "+err.Error())
			}
			return nil
		}
		if rules.Empty() {
			return nil
		}
		f := &claudeFile{name: shown, data: data, rules: rules, tr: claudeperm.Translate(rules, shown, env)}
		cp.warnings = append(cp.warnings, f.tr.Warnings...)
		return f
	}
	if home != "" {
		cp.user = read(home, userClaudeSettings, "~/"+filepath.ToSlash(userClaudeSettings), true)
	}
	// In the home directory itself, .claude/settings.json is the user's
	// own file, not a repository's.
	inHome := home != "" && host.CanonicalDir(home) == host.CanonicalDir(ws)
	for _, name := range host.ClaudeSettingsFiles {
		if inHome && name == userClaudeSettings {
			continue
		}
		if f := read(ws, name, filepath.ToSlash(name), false); f != nil {
			cp.project = append(cp.project, *f)
		}
	}
	// Claude Code decides deny and ask before allow across its files: a
	// project allow covered by the user's deny or ask goes (the project's
	// own deny and ask tighten after every allow anyway).
	if cp.user != nil {
		for i := range cp.project {
			cp.project[i].tr.Allow.Commands = claudeperm.DropCovered(cp.project[i].tr.Allow.Commands, cp.user.tr.Tighten)
		}
	}
	return cp
}

// hasProjectAllow reports whether the workspace's settings allow anything.
func (cp claudePerms) hasProjectAllow() bool {
	for _, f := range cp.project {
		if len(f.rules.Allow) > 0 {
			return true
		}
	}
	return false
}

// fingerprint identifies the project's settings files that hold allow
// rules, by their whole contents: any change to one asks for trust again.
func (cp claudePerms) fingerprint() string {
	h := sha256.New()
	fmt.Fprint(h, "rein-claude-permissions-v1;")
	for _, f := range cp.project {
		if len(f.rules.Allow) > 0 {
			fmt.Fprintf(h, "%d:%s;%d:", len(f.name), f.name, len(f.data))
			h.Write(f.data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func permissionsStore(stateDir string) *host.TrustStore {
	return &host.TrustStore{Path: filepath.Join(stateDir, permissionsTrustFile)}
}

// status says whether the project's allow rules apply: trusted as the
// files are now.
func (cp claudePerms) status(store *host.TrustStore, ws string) host.TrustStatus {
	if !cp.hasProjectAllow() {
		return host.TrustStatus{Trusted: true}
	}
	return store.PinStatus(ws, cp.fingerprint(), nil)
}

// trust records the project's allow rules, as the files are now, as
// trusted for ws.
func (cp claudePerms) trust(store *host.TrustStore, ws string) (host.TrustStatus, error) {
	return store.TrustPins(ws, cp.fingerprint(), nil)
}

// claudeApplied is what the Claude Code permissions add to a run.
type claudeApplied struct {
	layers   []policy.Layer
	network  netrules.Rules
	trusted  map[string]bool // fingerprints of the applied project allow rules
	warnings []string
}

// apply turns the permissions into policy layers: the user's file as a
// user layer; each project file's deny and ask rules as a project layer
// at once, its allow rules only when trusted is true (approved through
// the returned fingerprints, so they stay project rules: they lift a
// preset's question, never a hard denial nor a project deny).
func (cp claudePerms) apply(ws string, trusted bool) claudeApplied {
	out := claudeApplied{trusted: map[string]bool{}, warnings: cp.warnings}
	if f := cp.user; f != nil {
		c := f.tr.Tighten
		c.Tools = append(c.Tools, f.tr.Allow.Tools...)
		c.Commands = append(c.Commands, f.tr.Allow.Commands...)
		c.Paths = append(c.Paths, f.tr.Allow.Paths...)
		out.layers = append(out.layers, policy.Layer{Kind: policy.LayerUser, Source: f.name, Config: c})
		out.network.Allow = append(out.network.Allow, f.tr.NetAllow...)
		out.network.Deny = append(out.network.Deny, f.tr.NetDeny...)
	}
	var untrusted []string
	for _, f := range cp.project {
		out.layers = append(out.layers, policy.Layer{Kind: policy.LayerProject, Source: f.name, Config: f.tr.Tighten})
		out.network.Deny = append(out.network.Deny, f.tr.NetDeny...)
		if len(f.rules.Allow) == 0 {
			continue
		}
		if !trusted {
			untrusted = append(untrusted, f.name)
			continue
		}
		out.layers = append(out.layers, policy.Layer{Kind: policy.LayerProject, Source: f.name, Config: f.tr.Allow})
		out.network.Allow = append(out.network.Allow, f.tr.NetAllow...)
		for _, r := range f.tr.Allow.Tools {
			out.trusted[r.Fingerprint(ws)] = true
		}
		for _, r := range f.tr.Allow.Commands {
			out.trusted[r.Fingerprint(ws)] = true
		}
		for _, r := range f.tr.Allow.Paths {
			out.trusted[r.Fingerprint(ws)] = true
		}
	}
	if len(untrusted) > 0 {
		out.warnings = append(out.warnings, fmt.Sprintf("the allow rules of %s do not apply until you trust them (their deny and ask rules do); review them, then run: rein hooks trust", pathList(untrusted)))
	}
	return out
}

// trustedApprovals approves the project rules the user trusted through
// rein hooks trust, besides those approved at a prompt.
type trustedApprovals struct {
	policy.ApprovedStore
	trusted map[string]bool
}

func (t trustedApprovals) Approved(ws, fp string) bool {
	return t.trusted[fp] || t.ApprovedStore != nil && t.ApprovedStore.Approved(ws, fp)
}

// claudePermissions loads the Claude Code permissions that apply to a
// run in the canonical workspace ws.
func (a *App) claudePermissions(ws, home, state string) claudeApplied {
	cp := loadClaudePerms(ws, home)
	st := cp.status(permissionsStore(state), ws)
	out := cp.apply(ws, st.Trusted)
	if cp.hasProjectAllow() && !st.Trusted && (st.Known || st.Err != nil) {
		why := "they changed since you trusted them"
		if st.Err != nil {
			why = textclip.FirstLine(st.Err.Error())
		}
		out.warnings = append(out.warnings, "the workspace's Claude Code allow rules are not applied: "+why)
	}
	// The warnings quote repository files.
	for i, w := range out.warnings {
		out.warnings[i] = termText(w, 400)
	}
	return out
}

// trustPermissionsCmd records the project's Claude Code allow rules as
// trusted and shows what they allow.
func (a *App) trustPermissionsCmd(cp claudePerms, ws, stateDirFlag string) error {
	store := permissionsStore(host.StateDir(stateDirFlag, a.Getenv))
	before := cp.status(store, ws)
	if _, err := cp.trust(store, ws); err != nil {
		return err
	}
	for _, f := range cp.project {
		if len(f.rules.Allow) == 0 {
			continue
		}
		fmt.Fprintf(a.Stdout, "trusted %s of %s's permissions:\n", plural(len(f.rules.Allow), "allow rule"), termText(f.name, 200))
		for _, r := range f.rules.Allow {
			fmt.Fprintf(a.Stdout, "  allow %s\n", termText(r, 400))
		}
	}
	if before.Known && !before.Trusted {
		fmt.Fprintln(a.Stdout, "  the settings changed since you last trusted them")
	}
	fmt.Fprintln(a.Stdout, "  they lift rein's questions, never a hard denial nor a deny or ask rule; any change to the file asks for trust again")
	return nil
}

// listPermissions adds to rein hooks list the allow rules of the
// workspace's Claude Code settings, which need the same trust.
func (a *App) listPermissions(out io.Writer, cp claudePerms, ws, stateDirFlag string) {
	if !cp.hasProjectAllow() {
		return
	}
	runs := "yes"
	if st := cp.status(permissionsStore(host.StateDir(stateDirFlag, a.Getenv)), ws); !st.Trusted {
		runs = "no: " + untrustedWhy(st)
	}
	for _, f := range cp.project {
		for _, r := range f.rules.Allow {
			fmt.Fprintf(out, "Permission\t-\tproject\t%s\t-\tallow %s\t%s\n", termsafe.Line(runs), termText(r, 400), termText(f.name, 200))
		}
	}
}
