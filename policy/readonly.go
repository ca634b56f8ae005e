package policy

import (
	"os"
	"path"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
	"github.com/reinharness/rein/policy/shell"
)

// Read-only commands under the editor and read-only presets (DESIGN
// §4a). Those presets ask before running commands, but a command line
// the analyzer proves static and that only reads files inside the
// workspace does nothing read_file does not already do without asking.
// Such a line is allowed as if by a built-in rule when all of this holds:
//
//   - the analysis found nothing to ask about (no expansion, substitution,
//     eval, wrapper, glob that may become an option, …);
//   - the line is only simple commands joined by ;, &&, || and pipes: no
//     background job, subshell, group, loop, function or assignment;
//   - no redirection writes (any >, >>, &>, <>); input comes only from a
//     here-document or a file that passes the path checks;
//   - every command is in the read-only set (policy/shell's
//     readonly_set.go), named as written there (no path,
//     no other case), with only the options listed for it;
//   - every operand that names a file resolves, through every directory
//     the line may cd to and every symlink, inside the workspace, to a
//     regular file, a directory or nothing, matches no ask or deny path
//     rule (protected paths included), and no part of it is named like a
//     credential store; a glob must expand, within bounds, to such paths.
//
// An explicit rule still wins (a user's ask rule for cat asks), and path
// rules, concerns and hard denials apply as to any command. The full
// preset allows these commands anyway; a workspace that contains the home
// directory gets no read-only allowance at all, since the secret stores
// there (~/.ssh, ~/.aws, …) would then be "inside the workspace".

// readOnlyRule is the Decision.Rule of a line the read-only set allows.
const readOnlyRule = "rule:builtin:allow read-only commands"

// secretNames are names, matched against every component of a path,
// that usually hold credentials: reading them through a command asks even
// where no rule protects them.
var secretNames = []string{
	".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.kdbx", "id_rsa*", "id_dsa*", "id_ecdsa*",
	"id_ed25519*", ".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".htpasswd",
	"credentials", "credentials.*", ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
}

// readOnlyBase returns the verdict that replaces the preset's for the
// commands no rule decides, when every command line of the call is
// read-only.
func (e *Engine) readOnlyBase(commands []string, analyses []*shell.Analysis, base verdict, tr *tracer) (verdict, bool) {
	if base.explicit || base.action == Allow || (e.preset != PresetEditor && !e.preset.readsOnly()) {
		return verdict{}, false
	}
	if wspath.Within(e.opts.Home, e.opts.Workspace) {
		return verdict{}, false
	}
	for i, cmd := range commands {
		if why := analyses[i].ReadOnly(cmd, e.readOnlyPath); why != "" {
			if tr.on() {
				tr.add("read-only", "not a read-only command line: "+why, base.action, base.rule)
			}
			return verdict{}, false
		}
	}
	v := verdict{action: Allow, rule: readOnlyRule,
		reason: "it only runs read-only commands on files inside the workspace (the built-in read-only commands)"}
	tr.add("read-only", v.reason, Allow, v.rule)
	return v, true
}

// readOnlyPath returns why a path operand may reach something other than
// a plain file or directory inside the workspace that no rule protects,
// or "".
func (e *Engine) readOnlyPath(rp shell.ReadPath) string {
	w, cwds := rp.Arg, rp.Cwds
	what := wspath.Quote(w.Text)
	switch {
	case !w.PathOK || !w.Literal:
		return what + " is only known at run time"
	case w.Glob && (strings.ContainsAny(w.Path, "[]()") || rp.Dir):
		return what + " is a glob rein does not expand for read-only commands (only * and ? are)"
	case !path.IsAbs(w.Path) && rp.CwdUnknown:
		return what + " is relative to a directory rein cannot tell"
	}
	if len(cwds) == 0 {
		cwds = []string{e.opts.Workspace}
	}
	for _, dir := range cwds {
		abs := wspath.AbsUnder(dir, w.Path)
		if why := e.readOnlyTarget(abs); why != "" {
			return what + " " + why
		}
		if !w.Glob {
			continue
		}
		matches, complete := wspath.ExpandGlob(e.opts.Workspace, abs)
		if !complete {
			return what + " matches more than rein checks, or reaches outside the workspace"
		}
		for _, m := range matches {
			if why := e.readOnlyTarget(m); why != "" {
				return what + " matches " + wspath.Quote(e.relPath(m)) + ", which " + strings.TrimPrefix(why, "is ")
			}
		}
	}
	return ""
}

// readOnlyTarget checks one absolute path, as written and as resolved.
func (e *Engine) readOnlyTarget(abs string) string {
	ws := e.opts.Workspace
	written := path.Clean(abs)
	if !wspath.Within(written, ws) {
		return "is outside the workspace"
	}
	resolved := wspath.Resolve(ws, abs)
	if !wspath.Within(resolved, ws) {
		return "leads outside the workspace (through " + wspath.Quote("..") + " or a symlink)"
	}
	for _, form := range []string{written, resolved} {
		for _, comp := range strings.Split(e.relPath(form), "/") {
			for _, pat := range secretNames {
				// Lower case: on a case-insensitive file system .ENV is .env.
				if ok, _ := path.Match(pat, strings.ToLower(comp)); ok {
					return "is named like a credential store (" + wspath.Quote(comp) + ")"
				}
			}
		}
	}
	if v := e.tightenAbs(abs, true, true, "", &tracer{}); v.action != Allow {
		return "matches a path rule (" + v.rule + ")"
	}
	// A missing path makes the command fail; nothing is read.
	if fi, err := os.Lstat(resolved); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return "is not a regular file (a device, pipe, socket or unresolved link)"
	}
	return ""
}
